// Byte shuffles with v_perm_b32 (one instruction picks any 4 of 8 bytes).
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <hip/hip_runtime.h>  // the platform: HIP on the device, the emulator's shim on the CPU

#include <cstdint>

#include "wavekit/core/platform.hpp"

namespace wavekit::arch {

// Transposes a 4x4 byte matrix held in four words (x[r] holds row r, byte c = column c):
// afterwards y[c] holds column c, byte r = x[r]'s byte c. Eight v_perm_b32.
WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void transpose_4x4_bytes(const std::uint32_t (&x)[4], std::uint32_t (&y)[4]) {
  const std::uint32_t t01_lo = __builtin_amdgcn_perm(x[1], x[0], 0x05010400u);  // x0b0 x1b0 x0b1 x1b1
  const std::uint32_t t01_hi = __builtin_amdgcn_perm(x[1], x[0], 0x07030602u);  // x0b2 x1b2 x0b3 x1b3
  const std::uint32_t t23_lo = __builtin_amdgcn_perm(x[3], x[2], 0x05010400u);
  const std::uint32_t t23_hi = __builtin_amdgcn_perm(x[3], x[2], 0x07030602u);
  y[0] = __builtin_amdgcn_perm(t23_lo, t01_lo, 0x05040100u);  // x0b0 x1b0 x2b0 x3b0
  y[1] = __builtin_amdgcn_perm(t23_lo, t01_lo, 0x07060302u);
  y[2] = __builtin_amdgcn_perm(t23_hi, t01_hi, 0x05040100u);
  y[3] = __builtin_amdgcn_perm(t23_hi, t01_hi, 0x07060302u);
}

}  // namespace wavekit::arch
