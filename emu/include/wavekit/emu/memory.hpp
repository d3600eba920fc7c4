// Guarded memory for the emulator: device allocations (hipMalloc) and LDS arrays are placed so
// their last byte abuts an inaccessible page, with another inaccessible page below them. An
// access past either end faults, and the fault handler names the allocation it belongs to:
// out-of-bounds accesses are reported with their allocation instead of corrupting memory.
//
// The end is exact when the size is a multiple of 16 bytes (allocations start 16-byte aligned
// and end flush against the guard page); otherwise up to 15 bytes of slack go unnoticed.
//
// A freed region stays mapped but inaccessible (its memory given back to the system) and
// remembered, so a use after hipFree faults and is reported as one. The most recently freed
// regions are kept, up to freed_regions_kept of them and freed_bytes_kept of address space; older
// ones are unmapped, and their addresses may be reused.
#pragma once

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <iterator>
#include <map>
#include <mutex>
#include <new>
#include <string>

namespace wavekit::emu {

enum class region_kind : std::uint8_t { global, lds, stack };

struct region_record {
  std::uintptr_t mapping = 0, mapping_bytes = 0;  // the whole mmap, guard pages included
  std::uintptr_t begin = 0, bytes = 0;            // what the program may touch
  region_kind kind = region_kind::global;
  std::string what;    // e.g. "a hipMalloc allocation of 4096 bytes", "LDS array tile (kernel.hpp:12)"
  bool freed = false;  // by guarded_free: inaccessible, kept to report a use after the free
};

// How much freed address space stays reserved to catch uses after a free (memory.hpp's header).
inline constexpr std::size_t freed_regions_kept = 4096;
inline constexpr std::size_t freed_bytes_kept = std::size_t{64} << 30;

namespace detail {

inline std::size_t page_size() { return static_cast<std::size_t>(sysconf(_SC_PAGESIZE)); }

struct region_registry {
  std::mutex mutex;
  std::map<std::uintptr_t, region_record> by_mapping;  // key: mapping start; freed regions too
  std::atomic<std::uint64_t> generation{0};            // changes with every allocation and free
  std::deque<std::uintptr_t> freed;                    // freed mappings still kept, oldest first
  std::size_t freed_bytes = 0;                         // their mapping bytes
};
inline region_registry& regions() {
  static region_registry r;
  return r;
}

inline void write_stderr(const std::string& s) {
  for (std::size_t done = 0; done < s.size();) {
    const ssize_t n = ::write(2, s.data() + done, s.size() - done);
    if (n <= 0) break;
    done += static_cast<std::size_t>(n);
  }
}

// Exit status of a process ended by an invalid access in emulated code.
inline constexpr int fault_exit_status = 70;

// The region whose mapping starts at or below addr (the caller holds the registry's mutex), or end().
inline std::map<std::uintptr_t, region_record>::iterator region_below(std::uintptr_t addr) {
  auto& map = regions().by_mapping;
  auto it = map.upper_bound(addr);
  return it == map.begin() ? map.end() : std::prev(it);
}

// Hook for the launcher: a description of the GPU thread running on this OS thread, if any.
inline std::string (*describe_current_thread)() = nullptr;

inline void fault_handler(int sig, siginfo_t* info, void*) {
  const auto addr = reinterpret_cast<std::uintptr_t>(info->si_addr);
  std::string msg = "wavekit emulator: invalid access at address 0x" + [&] {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%lx", static_cast<unsigned long>(addr));
    return std::string(buf);
  }();
  auto& reg = regions();
  if (reg.mutex.try_lock()) {
    const auto it = region_below(addr);
    if (it != reg.by_mapping.end()) {
      const region_record& r = it->second;
      if (addr >= r.mapping && addr < r.mapping + r.mapping_bytes) {
        const char* kind = r.kind == region_kind::global ? "out-of-bounds global access"
                           : r.kind == region_kind::lds  ? "LDS access past the declared size"
                                                         : "stack overflow of an emulated thread";
        if (r.freed)
          msg = "wavekit emulator: use after hipFree of " + r.what + ": address is " +
                (addr >= r.begin + r.bytes ? std::to_string(addr - (r.begin + r.bytes)) + " bytes past its end"
                 : addr < r.begin          ? std::to_string(r.begin - addr) + " bytes before its start"
                                           : std::to_string(addr - r.begin) + " bytes into it");
        else
          msg = std::string("wavekit emulator: ") + kind + ": address is " +
                (addr >= r.begin + r.bytes ? std::to_string(addr - (r.begin + r.bytes)) + " bytes past the end of "
                                           : std::to_string(r.begin - addr) + " bytes before the start of ") +
                r.what;
      }
    }
    reg.mutex.unlock();
  }
  if (describe_current_thread) msg += " (" + describe_current_thread() + ")";
  // What the program printed before the fault is still in stdout's buffer (a pipe or file buffers
  // fully) and _exit would drop it. Flushed unless another thread holds the stream's lock, where
  // waiting for it could hang the handler.
  if (ftrylockfile(stdout) == 0) {
    fflush_unlocked(stdout);
    funlockfile(stdout);
  }
  write_stderr(msg + "\n");
  (void)sig;
  _exit(fault_exit_status);  // a debugger has already stopped at the fault itself
}

inline void install_fault_handler_once() {
  static const bool installed = [] {
    struct sigaction sa{};
    sa.sa_sigaction = &fault_handler;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, nullptr);
    sigaction(SIGBUS, &sa, nullptr);
    return true;
  }();
  (void)installed;
}

// Each OS thread that runs fibers needs an alternate signal stack: a fault on a fiber stack
// (overflow) cannot run the handler on that same stack.
inline void ensure_signal_stack() {
  static thread_local bool done = false;
  if (done) return;
  done = true;
  stack_t current{};
  if (sigaltstack(nullptr, &current) == 0 && !(current.ss_flags & SS_DISABLE)) return;  // e.g. a sanitizer's
  static constexpr std::size_t bytes = 64 * 1024;
  stack_t ss{};
  ss.ss_sp = std::malloc(bytes);
  ss.ss_size = bytes;
  sigaltstack(&ss, nullptr);
}

}  // namespace detail

// Maps `bytes` with guard pages on both sides; the returned pointer is 16-byte aligned and its
// region ends at the upper guard page (rounded up to 16 bytes).
inline void* guarded_allocate(std::size_t bytes, region_kind kind, std::string what) {
  detail::install_fault_handler_once();
  const std::size_t page = detail::page_size();
  const std::size_t used = (bytes + 15) / 16 * 16;
  const std::size_t body = (used + page - 1) / page * page;
  const std::size_t mapping_bytes = body + 2 * page;
  void* m = mmap(nullptr, mapping_bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED) throw std::bad_alloc();
  auto* base = static_cast<char*>(m);
  mprotect(base + page, body, PROT_READ | PROT_WRITE);
  char* begin = base + page + body - used;
  region_record r{reinterpret_cast<std::uintptr_t>(base),
                  mapping_bytes,
                  reinterpret_cast<std::uintptr_t>(begin),
                  bytes,
                  kind,
                  std::move(what)};
  std::lock_guard<std::mutex> lock(detail::regions().mutex);
  detail::regions().by_mapping[r.mapping] = std::move(r);
  ++detail::regions().generation;
  return begin;
}

// Frees a region returned by guarded_allocate: its pages become inaccessible and their memory
// goes back to the system, and the region stays known as freed (memory.hpp's header). False if p
// is not the start of a live region.
inline bool guarded_free(void* p) {
  const auto addr = reinterpret_cast<std::uintptr_t>(p);
  auto& reg = detail::regions();
  std::lock_guard<std::mutex> lock(reg.mutex);
  auto& map = reg.by_mapping;
  const auto it = detail::region_below(addr);
  if (it == map.end() || it->second.begin != addr || it->second.freed) return false;
  region_record& r = it->second;
  void* mapping = reinterpret_cast<void*>(r.mapping);
  mprotect(mapping, r.mapping_bytes, PROT_NONE);
  madvise(mapping, r.mapping_bytes, MADV_DONTNEED);
  r.freed = true;
  reg.freed.push_back(r.mapping);
  reg.freed_bytes += r.mapping_bytes;
  while (reg.freed.size() > freed_regions_kept || (reg.freed_bytes > freed_bytes_kept && reg.freed.size() > 1)) {
    const auto oldest = map.find(reg.freed.front());
    reg.freed.pop_front();
    reg.freed_bytes -= oldest->second.mapping_bytes;
    munmap(reinterpret_cast<void*>(oldest->second.mapping), oldest->second.mapping_bytes);
    map.erase(oldest);
  }
  ++reg.generation;
  return true;
}

// A copy of the record of the region (live or freed) whose mapping, guard pages included, holds
// addr; kind global with mapping 0 if none does. For reports: takes the registry's lock.
inline region_record region_holding(std::uintptr_t addr) {
  std::lock_guard<std::mutex> lock(detail::regions().mutex);
  const auto it = detail::region_below(addr);
  if (it == detail::regions().by_mapping.end() || addr >= it->second.mapping + it->second.mapping_bytes) return {};
  return it->second;
}

// The allocation holding addr as [begin, end), or {0, 0}. Memoized per OS thread (accesses come
// in runs on one tensor); the memo is dropped whenever an allocation is made or freed.
struct allocation_span {
  std::uintptr_t begin = 0, end = 0;
};
inline allocation_span allocation_around(std::uintptr_t addr) {
  thread_local allocation_span memo;
  thread_local std::uint64_t generation = ~std::uint64_t{0};
  auto& reg = detail::regions();
  if (generation == reg.generation.load(std::memory_order_relaxed) && addr >= memo.begin && addr < memo.end)
    return memo;
  std::lock_guard<std::mutex> lock(reg.mutex);
  generation = reg.generation.load(std::memory_order_relaxed);
  const auto it = detail::region_below(addr);
  if (it == reg.by_mapping.end() || it->second.freed || addr < it->second.begin ||
      addr >= it->second.begin + it->second.bytes)
    memo = {};
  else
    memo = {it->second.begin, it->second.begin + it->second.bytes};
  return memo;
}
// The first byte of the allocation holding addr, or 0.
inline std::uintptr_t allocation_holding(std::uintptr_t addr) { return allocation_around(addr).begin; }

}  // namespace wavekit::emu
