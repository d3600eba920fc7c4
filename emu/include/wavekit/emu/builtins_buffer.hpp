// Raw buffer loads and stores (clang names) for emulator builds, per docs/hardware.md 5:
// address = base + soffset + voffset; the range check covers voffset only (soffset is excluded)
// against num_records bytes, per dword: an out-of-range dword loads 0 and is not stored.
// (Whether a straddling access is checked per dword or as a whole is not documented; per dword
// is what docs/hardware.md 5.2 recommends.) In-range bytes count as global traffic.
//
// Addresses are computed as integers and become pointers only for the bytes in range: a buffer
// over a null base with num_records 0 (an absent optional tensor) is legal and touches nothing.
// Under ThreadSanitizer the kernel's own access (the copy) is checked and the emulator's
// bookkeeping around it (counters, memos, footprint bitmaps) is not.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "wavekit/emu/block.hpp"
#include "wavekit/emu/memory.hpp"

struct wavekit_emu_buffer_rsrc {
  const char* base = nullptr;
  std::uint32_t num_records = 0;  // bytes, for a raw (stride 0) buffer
  short stride = 0;
  int flags = 0;
};
using __amdgpu_buffer_rsrc_t = wavekit_emu_buffer_rsrc;

inline __amdgpu_buffer_rsrc_t __builtin_amdgcn_make_buffer_rsrc(const void* base, short stride, long num_records,
                                                                int flags) {
  return {static_cast<const char*>(base), static_cast<std::uint32_t>(num_records), stride, flags};
}

namespace wavekit::emu {

namespace detail {
inline std::atomic<bool>& strict_buffers_flag() {
  static std::atomic<bool> on{[] {
    const char* v = std::getenv("WAVEKIT_EMU_STRICT_BUFFERS");
    return v && *v && std::strcmp(v, "0") != 0;
  }()};
  return on;
}
}  // namespace detail

// Strict buffer mode. The hardware checks a buffer access against num_records only, so a buffer
// whose num_records is larger than the allocation behind it (a size the host computed from a
// device table that disagrees with it) reads and writes whatever lies past the allocation. In
// strict mode an access whose in-range bytes fall outside the allocation its base pointer belongs
// to fails the launch, naming the allocation, the offsets and the thread. Dwords past num_records
// load 0 as on the hardware (legal tails) in either mode. Off by default; on with
// WAVEKIT_EMU_STRICT_BUFFERS=1 in the environment or set_strict_buffers(true).
inline bool strict_buffers() { return detail::strict_buffers_flag().load(std::memory_order_relaxed); }
inline void set_strict_buffers(bool on) { detail::strict_buffers_flag().store(on, std::memory_order_relaxed); }

namespace detail {

inline bool dword_in_range(const wavekit_emu_buffer_rsrc& r, std::uint32_t voffset, int dword) {
  return static_cast<std::uint64_t>(voffset) + 4u * static_cast<unsigned>(dword) + 4u <= r.num_records;
}

// The bytes of a Bytes-wide access at voffset that are in range: a prefix of the access (whole
// dwords for accesses of a dword or more).
template <int Bytes>
unsigned bytes_in_range(const wavekit_emu_buffer_rsrc& r, std::uint32_t voffset) {
  if constexpr (Bytes < 4) {
    return static_cast<std::uint64_t>(voffset) + Bytes <= r.num_records ? Bytes : 0;
  } else {
    unsigned bytes = 0;
    while (bytes < Bytes && dword_in_range(r, voffset, static_cast<int>(bytes / 4))) bytes += 4;
    return bytes;
  }
}

inline std::uintptr_t buffer_address(const wavekit_emu_buffer_rsrc& r, std::uint32_t voffset, int soffset) {
  return reinterpret_cast<std::uintptr_t>(r.base) + static_cast<std::uintptr_t>(static_cast<std::intptr_t>(soffset)) +
         voffset;
}

template <int Bytes>
constexpr const char* buffer_instruction(bool store) {
  switch (Bytes) {
    case 1: return store ? "buffer_store_byte" : "buffer_load_ubyte";
    case 2: return store ? "buffer_store_short" : "buffer_load_ushort";
    case 4: return store ? "buffer_store_dword" : "buffer_load_dword";
    case 8: return store ? "buffer_store_dwordx2" : "buffer_load_dwordx2";
    case 12: return store ? "buffer_store_dwordx3" : "buffer_load_dwordx3";
    default: return store ? "buffer_store_dwordx4" : "buffer_load_dwordx4";
  }
}

// Strict buffer mode: [at, at + bytes) must lie in the allocation holding the buffer's base.
// Bases outside the emulator's regions (host memory) have no known extent and are not checked.
inline void check_buffer_access(const wavekit_emu_buffer_rsrc& r, std::uintptr_t at, unsigned bytes,
                                std::uint32_t voffset, int soffset, const char* instruction) {
  [[maybe_unused]] tsan_ignore_scope bookkeeping;
  const auto base = reinterpret_cast<std::uintptr_t>(r.base);
  const allocation_span span = allocation_around(base);
  if (span.begin && at >= span.begin && at + bytes <= span.end) return;
  const region_record a = region_holding(base);
  if (!a.mapping) return;
  const std::uintptr_t end = a.begin + a.bytes;
  const std::string where =
      a.freed        ? "use after hipFree of " + a.what
      : at < a.begin ? "address is " + std::to_string(a.begin - at) + " bytes before the start of " + a.what
                     : "address is " + std::to_string(std::max(at, end) - end) + " bytes past the end of " + a.what;
  const auto signed_offset = [](std::uintptr_t x, std::uintptr_t from) {
    return std::to_string(static_cast<std::int64_t>(x - from));
  };
  fail(std::string("buffer access outside its allocation (strict buffers): ") + instruction + " at voffset " +
       std::to_string(voffset) + " + soffset " + std::to_string(soffset) + " of a buffer with base at byte " +
       signed_offset(base, a.begin) + " and num_records " + std::to_string(r.num_records) + ": " + where + " (" +
       thread_name(current_thread()) + ")");
}

// Every load and store is one vector-memory instruction of the lane, counted for vmcnt
// (lds_dma.hpp's vmem_queue).
template <int Bytes>
void buffer_load(void* out, const wavekit_emu_buffer_rsrc& r, int voffset, int soffset,
                 const char* instruction = buffer_instruction<Bytes>(false)) {
  ++current_thread().vmem.issued;
  const auto v = static_cast<std::uint32_t>(voffset);
  const unsigned read = bytes_in_range<Bytes>(r, v);
  std::memset(out, 0, Bytes);
  if (!read) return;
  const std::uintptr_t at = buffer_address(r, v, soffset);
  if (strict_buffers()) check_buffer_access(r, at, read, v, soffset, instruction);
  std::memcpy(out, reinterpret_cast<const void*>(at), read);  // the kernel's access
  [[maybe_unused]] tsan_ignore_scope bookkeeping;
  block_state& b = *current_thread().block;
  b.counters.global_bytes_read += read;
  const allocation_span span = allocation_around(at);
  b.counters.bytes_read_by_allocation[span.begin] += read;
  if (b.footprint && span.begin)
    b.counters.global_bytes_read_distinct += b.footprint->mark(span.begin, span.end - span.begin, at, read);
}

template <int Bytes>
void buffer_store(const void* in, const wavekit_emu_buffer_rsrc& r, int voffset, int soffset) {
  ++current_thread().vmem.issued;
  const auto v = static_cast<std::uint32_t>(voffset);
  const unsigned written = bytes_in_range<Bytes>(r, v);
  if (!written) return;
  const std::uintptr_t at = buffer_address(r, v, soffset);
  if (strict_buffers()) check_buffer_access(r, at, written, v, soffset, buffer_instruction<Bytes>(true));
  std::memcpy(reinterpret_cast<void*>(at), in, written);  // the kernel's access
  [[maybe_unused]] tsan_ignore_scope bookkeeping;
  current_thread().block->counters.global_bytes_written += written;
}

}  // namespace detail
}  // namespace wavekit::emu

using wavekit_emu_u32x2 = std::uint32_t __attribute__((ext_vector_type(2)));
using wavekit_emu_u32x3 = std::uint32_t __attribute__((ext_vector_type(3)));
using wavekit_emu_u32x4 = std::uint32_t __attribute__((ext_vector_type(4)));

#define WAVEKIT_EMU_BUFFER(bits, Type)                                                                              \
  inline Type __builtin_amdgcn_raw_buffer_load_b##bits(__amdgpu_buffer_rsrc_t r, int voffset, int soffset,          \
                                                       int /*aux*/) {                                               \
    Type v;                                                                                                         \
    wavekit::emu::detail::buffer_load<bits / 8>(&v, r, voffset, soffset);                                           \
    return v;                                                                                                       \
  }                                                                                                                 \
  inline void __builtin_amdgcn_raw_buffer_store_b##bits(Type v, __amdgpu_buffer_rsrc_t r, int voffset, int soffset, \
                                                        int /*aux*/) {                                              \
    wavekit::emu::detail::buffer_store<bits / 8>(&v, r, voffset, soffset);                                          \
  }
WAVEKIT_EMU_BUFFER(8, std::uint8_t)
WAVEKIT_EMU_BUFFER(16, std::uint16_t)
WAVEKIT_EMU_BUFFER(32, std::uint32_t)
WAVEKIT_EMU_BUFFER(64, wavekit_emu_u32x2)
WAVEKIT_EMU_BUFFER(96, wavekit_emu_u32x3)
WAVEKIT_EMU_BUFFER(128, wavekit_emu_u32x4)
#undef WAVEKIT_EMU_BUFFER
