// Raw buffer loads and stores (clang names) for emulator builds, per docs/hardware.md 5:
// address = base + soffset + voffset; the range check covers voffset only (soffset is excluded)
// against num_records bytes, per dword: an out-of-range dword loads 0 and is not stored.
// (Whether a straddling access is checked per dword or as a whole is not documented; per dword
// is what docs/hardware.md 5.2 recommends.) In-range bytes count as global traffic.
#pragma once

#include <cstdint>
#include <cstring>

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

namespace wavekit::emu::detail {

inline bool dword_in_range(const wavekit_emu_buffer_rsrc& r, std::uint32_t voffset, int dword) {
  return static_cast<std::uint64_t>(voffset) + 4u * static_cast<unsigned>(dword) + 4u <= r.num_records;
}

template <int Bytes>
void buffer_load(void* out, const wavekit_emu_buffer_rsrc& r, int voffset, int soffset) {
  const auto v = static_cast<std::uint32_t>(voffset);
  const char* at = r.base + soffset + static_cast<std::int64_t>(v);
  std::memset(out, 0, Bytes);
  // The bytes read, as runs within the load (out-of-range dwords are skipped).
  unsigned run_begin[Bytes < 4 ? 1 : Bytes / 4], run_bytes[Bytes < 4 ? 1 : Bytes / 4], runs = 0;
  std::uint64_t read = 0;
  if constexpr (Bytes < 4) {
    if (static_cast<std::uint64_t>(v) + Bytes <= r.num_records)
      std::memcpy(out, at, Bytes), run_begin[runs] = 0, run_bytes[runs++] = Bytes, read = Bytes;
  } else {
    for (int d = 0; d < Bytes / 4; ++d)
      if (dword_in_range(r, v, d)) {
        std::memcpy(static_cast<char*>(out) + 4 * d, at + 4 * d, 4);
        if (runs && run_begin[runs - 1] + run_bytes[runs - 1] == 4u * d)
          run_bytes[runs - 1] += 4;
        else
          run_begin[runs] = 4u * d, run_bytes[runs++] = 4;
        read += 4;
      }
  }
  if (!read) return;
  block_state& b = *current_thread().block;
  b.counters.global_bytes_read += read;
  const allocation_span span = allocation_around(reinterpret_cast<std::uintptr_t>(at));
  b.counters.bytes_read_by_allocation[span.begin] += read;
  if (b.footprint && span.begin)
    for (unsigned i = 0; i < runs; ++i)
      b.counters.global_bytes_read_distinct += b.footprint->mark(
          span.begin, span.end - span.begin, reinterpret_cast<std::uintptr_t>(at) + run_begin[i], run_bytes[i]);
}

template <int Bytes>
void buffer_store(const void* in, const wavekit_emu_buffer_rsrc& r, int voffset, int soffset) {
  const auto v = static_cast<std::uint32_t>(voffset);
  char* base = const_cast<char*>(r.base) + soffset + static_cast<std::int64_t>(v);
  std::uint64_t written = 0;
  if constexpr (Bytes < 4) {
    if (static_cast<std::uint64_t>(v) + Bytes <= r.num_records) std::memcpy(base, in, Bytes), written = Bytes;
  } else {
    for (int d = 0; d < Bytes / 4; ++d)
      if (dword_in_range(r, v, d)) std::memcpy(base + 4 * d, static_cast<const char*>(in) + 4 * d, 4), written += 4;
  }
  current_thread().block->counters.global_bytes_written += written;
}

}  // namespace wavekit::emu::detail

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
