// Per-lane ALU builtins (clang names) for emulator builds.
#pragma once

#include <cstdint>

#include "wavekit/emu/device_math.hpp"

// The transcendental instructions (v_exp_f32 = 2^x, v_log_f32 = log2 x, v_rcp_f32, v_rsq_f32,
// v_sqrt_f32): "1ULP accuracy, denormals are flushed"; emu/device_math.hpp says how they are
// modelled.
inline float __builtin_amdgcn_exp2f(float x) { return wavekit::emu::device_math::v_exp_f32(x); }
inline float __builtin_amdgcn_logf(float x) { return wavekit::emu::device_math::v_log_f32(x); }
inline float __builtin_amdgcn_rcpf(float x) { return wavekit::emu::device_math::v_rcp_f32(x); }
inline float __builtin_amdgcn_rsqf(float x) { return wavekit::emu::device_math::v_rsq_f32(x); }
inline float __builtin_amdgcn_sqrtf(float x) { return wavekit::emu::device_math::v_sqrt_f32(x); }

// v_perm_b32: byte i of the result is chosen by byte i of `selector` from the 8 bytes of
// {s0 (bytes 4-7), s1 (bytes 0-3)}: 0-7 pick a byte, 8-11 replicate the sign bit of byte 1, 3, 5
// or 7, 12 gives 0x00 and 13-255 give 0xFF.
inline std::uint32_t __builtin_amdgcn_perm(std::uint32_t s0, std::uint32_t s1, std::uint32_t selector) {
  const std::uint64_t bytes = (static_cast<std::uint64_t>(s0) << 32) | s1;
  std::uint32_t result = 0;
  for (int i = 0; i < 4; ++i) {
    const std::uint32_t sel = (selector >> (8 * i)) & 0xFF;
    std::uint32_t byte;
    if (sel < 8)
      byte = static_cast<std::uint32_t>(bytes >> (8 * sel)) & 0xFF;
    else if (sel < 12)
      byte = ((bytes >> (8 * (2 * (sel - 8) + 1) + 7)) & 1) ? 0xFF : 0x00;
    else
      byte = sel == 12 ? 0x00 : 0xFF;
    result |= byte << (8 * i);
  }
  return result;
}
