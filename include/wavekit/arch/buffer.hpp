// Raw buffer loads and stores (docs/hardware.md 5): a 128-bit descriptor holds base and
// size; loads past num_records bytes return 0 and stores there are dropped, so ragged tile edges
// need no branches: a lane whose element is outside the tensor uses `out_of_range` instead.
// wavekit's kernels move global data this way (the emulator counts these bytes).
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <hip/hip_runtime.h>  // the platform: HIP on the device, the emulator's shim on the CPU

#include <cstdint>

#include "wavekit/core/platform.hpp"

namespace wavekit::arch {

using u32x2 = std::uint32_t __attribute__((ext_vector_type(2)));
using u32x4 = std::uint32_t __attribute__((ext_vector_type(4)));

// gfx9 raw-buffer descriptor word 3: data format 32-bit, everything else 0 (as CK uses).
inline constexpr int buffer_dword3 = 0x00020000;
// A voffset no tensor below 2 GiB reaches: the load returns 0. As an unsigned base it stays out of
// range when a K offset below 2^31 is added, so a loader can fold the check into a base offset.
inline constexpr std::uint32_t out_of_range = 0x80000000u;

// Loads and stores take a per-lane byte offset and an optional wave-uniform one (the instruction's
// soffset, a scalar register): only the per-lane offset is range-checked (docs/hardware.md 5.2), so a tile
// loader keeps its rows' offsets (out_of_range for missing rows) per lane and advances along K in
// the uniform one, at no vector-ALU cost per load.
// A pointer every lane of the wave holds the same value of, read from memory (an entry of a table
// of pointers, such as a grouped GEMM's per-expert operands): readfirstlane says so, so that a
// buffer over it keeps its descriptor in scalar registers. Without it the compiler wraps every
// access through that buffer in a loop over the distinct descriptors of the wave's lanes.
template <class T>
WAVEKIT_DEVICE WAVEKIT_FORCEINLINE T* uniform_pointer(T* p) {
  const auto bits = reinterpret_cast<std::uintptr_t>(p);
  const auto lo = static_cast<std::uint32_t>(__builtin_amdgcn_readfirstlane(static_cast<int>(bits & 0xFFFFFFFFu)));
  const auto hi = static_cast<std::uint32_t>(__builtin_amdgcn_readfirstlane(static_cast<int>(bits >> 32)));
  return reinterpret_cast<T*>((static_cast<std::uintptr_t>(hi) << 32) | lo);
}

struct buffer {
  __amdgpu_buffer_rsrc_t rsrc;

  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE static buffer over(const void* base, std::uint32_t bytes) {
    return {__builtin_amdgcn_make_buffer_rsrc(const_cast<void*>(base), 0, static_cast<int>(bytes), buffer_dword3)};
  }
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE u32x4 load16(std::uint32_t byte_offset, std::uint32_t uniform_offset = 0) const {
    return __builtin_amdgcn_raw_buffer_load_b128(rsrc, static_cast<int>(byte_offset), static_cast<int>(uniform_offset),
                                                 0);
  }
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE u32x2 load8(std::uint32_t byte_offset, std::uint32_t uniform_offset = 0) const {
    return __builtin_amdgcn_raw_buffer_load_b64(rsrc, static_cast<int>(byte_offset), static_cast<int>(uniform_offset),
                                                0);
  }
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE std::uint32_t load4(std::uint32_t byte_offset,
                                                         std::uint32_t uniform_offset = 0) const {
    return __builtin_amdgcn_raw_buffer_load_b32(rsrc, static_cast<int>(byte_offset), static_cast<int>(uniform_offset),
                                                0);
  }
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE std::uint16_t load2(std::uint32_t byte_offset,
                                                         std::uint32_t uniform_offset = 0) const {
    return __builtin_amdgcn_raw_buffer_load_b16(rsrc, static_cast<int>(byte_offset), static_cast<int>(uniform_offset),
                                                0);
  }
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE std::uint32_t load1(std::uint32_t byte_offset,
                                                         std::uint32_t uniform_offset = 0) const {
    return __builtin_amdgcn_raw_buffer_load_b8(rsrc, static_cast<int>(byte_offset), static_cast<int>(uniform_offset),
                                               0);
  }
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void store1(std::uint8_t v, std::uint32_t byte_offset,
                                                 std::uint32_t uniform_offset = 0) const {
    __builtin_amdgcn_raw_buffer_store_b8(v, rsrc, static_cast<int>(byte_offset), static_cast<int>(uniform_offset), 0);
  }
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void store2(std::uint16_t v, std::uint32_t byte_offset,
                                                 std::uint32_t uniform_offset = 0) const {
    __builtin_amdgcn_raw_buffer_store_b16(v, rsrc, static_cast<int>(byte_offset), static_cast<int>(uniform_offset), 0);
  }
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void store4(std::uint32_t v, std::uint32_t byte_offset,
                                                 std::uint32_t uniform_offset = 0) const {
    __builtin_amdgcn_raw_buffer_store_b32(v, rsrc, static_cast<int>(byte_offset), static_cast<int>(uniform_offset), 0);
  }
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void store8(u32x2 v, std::uint32_t byte_offset,
                                                 std::uint32_t uniform_offset = 0) const {
    __builtin_amdgcn_raw_buffer_store_b64(v, rsrc, static_cast<int>(byte_offset), static_cast<int>(uniform_offset), 0);
  }
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void store16(u32x4 v, std::uint32_t byte_offset,
                                                  std::uint32_t uniform_offset = 0) const {
    __builtin_amdgcn_raw_buffer_store_b128(v, rsrc, static_cast<int>(byte_offset), static_cast<int>(uniform_offset), 0);
  }
};

}  // namespace wavekit::arch
