// The bytes a launch reads at least once: a bitmap per allocation, shared by the launch's OS
// threads. The global-read counter counts every byte a load fetches (what the caches serve); this
// counts each byte of an allocation once per launch, which is what DRAM serves when the caches hold
// what the launch re-reads (a decode layer's operands fit the 256 MiB Infinity Cache many times
// over, docs/hardware.md 6). An op that re-reads a small operand from every workgroup (RMSNorm's
// weight) reads more than its ideal but fetches exactly its ideal from DRAM; the counters show both.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>

namespace wavekit::emu {

class read_footprint {
 public:
  // Marks [addr, addr + bytes) of the allocation [begin, begin + size) as read; returns how many
  // of those bytes this launch had not read before.
  std::uint64_t mark(std::uintptr_t begin, std::uintptr_t size, std::uintptr_t addr, unsigned bytes) {
    std::atomic<std::uint64_t>* words = bitmap(begin, size);
    std::uint64_t fresh = 0;
    for (std::uintptr_t at = addr - begin, end = at + bytes; at < end;) {
      const std::uintptr_t first = at % 64, count = std::min<std::uintptr_t>(64 - first, end - at);
      const std::uint64_t mask = (count == 64 ? ~std::uint64_t{0} : ((std::uint64_t{1} << count) - 1)) << first;
      const std::uint64_t before = words[at / 64].fetch_or(mask, std::memory_order_relaxed);
      fresh += static_cast<std::uint64_t>(__builtin_popcountll(mask & ~before));
      at += count;
    }
    return fresh;
  }

 private:
  // The allocation's bitmap, memoized per OS thread (loads come in runs on one tensor); the memo
  // is keyed by this footprint's serial number, never reused by a later launch's footprint.
  std::atomic<std::uint64_t>* bitmap(std::uintptr_t begin, std::uintptr_t size) {
    thread_local std::uint64_t memo_serial = 0;
    thread_local std::uintptr_t memo_begin = 0;
    thread_local std::atomic<std::uint64_t>* memo = nullptr;
    if (memo_serial == serial_ && memo_begin == begin) return memo;
    std::lock_guard<std::mutex> lock(mutex_);
    auto& words = by_allocation_[begin];
    if (!words) words = std::make_unique<std::atomic<std::uint64_t>[]>((size + 63) / 64);  // zeroed
    memo_serial = serial_, memo_begin = begin, memo = words.get();
    return memo;
  }

  static std::uint64_t next_serial() {
    static std::atomic<std::uint64_t> last{0};
    return ++last;
  }
  const std::uint64_t serial_ = next_serial();
  std::mutex mutex_;
  std::map<std::uintptr_t, std::unique_ptr<std::atomic<std::uint64_t>[]>> by_allocation_;
};

}  // namespace wavekit::emu
