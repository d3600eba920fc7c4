// fp8 <-> wider types on the device.
//
// fp32 -> fp8, as quantizers need it: clamp to the format's largest finite value,
// then v_cvt_pk_fp8_f32 (round to nearest even). The clamp matters: the converter turns an
// out-of-range value into NaN (docs/hardware.md 2.2), and x / scale can land a rounding step past
// the largest finite value for a block's own amax. Clamped this way the result is
// saturate_cast<Fp8>'s (core/numeric_types.hpp) bit for bit; a NaN input stays NaN (both
// comparisons fail, the converter keeps it).
//
// One instruction serves both targets: v_cvt_pk_fp8_f32 writes the fp8 format the target's matrix
// cores read (fnuz e4m3 on gfx942, OCP e4m3 on gfx950; arch/matrix_formats.hpp), so Fp8 must be
// that format (checked where the kernel picks it: arch::reads_fp8).
//
// fp8 -> bf16, exact: e4m3 has fewer exponent and mantissa bits than bf16, so v_cvt_pk_f32_fp8
// (which reads the target's format, likewise) gives fp32 values whose low halves are zero, and
// their top halves are the bf16 values.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <hip/hip_runtime.h>  // the platform: HIP on the device, the emulator's shim on the CPU

#include <cstdint>

#include "wavekit/arch/buffer.hpp"  // u32x2
#include "wavekit/arch/gfx950.hpp"
#include "wavekit/arch/target.hpp"
#include "wavekit/core/numeric_types.hpp"
#include "wavekit/core/platform.hpp"

namespace wavekit::arch {

template <class Fp8>
WAVEKIT_DEVICE WAVEKIT_FORCEINLINE float clamp_to_finite(float v) {
  constexpr float max = element_limits<Fp8>::max_finite;
  return v > max ? max : (v < -max ? -max : v);
}

// Four fp32 values to four fp8 bytes (v0 in the lowest byte), saturating.
template <class Fp8>
WAVEKIT_DEVICE WAVEKIT_FORCEINLINE std::uint32_t pack_fp8x4_saturating(float v0, float v1, float v2, float v3) {
  const int low = __builtin_amdgcn_cvt_pk_fp8_f32(clamp_to_finite<Fp8>(v0), clamp_to_finite<Fp8>(v1), 0, false);
  return static_cast<std::uint32_t>(
      __builtin_amdgcn_cvt_pk_fp8_f32(clamp_to_finite<Fp8>(v2), clamp_to_finite<Fp8>(v3), low, true));
}

// One fp32 value to its fp8 byte (the low 8 bits), saturating: a one-byte store's value.
template <class Fp8>
WAVEKIT_DEVICE WAVEKIT_FORCEINLINE std::uint32_t fp8_bits_saturating(float v) {
  return static_cast<std::uint32_t>(__builtin_amdgcn_cvt_pk_fp8_f32(clamp_to_finite<Fp8>(v), 0.0f, 0, false)) & 0xFFu;
}

// Four fp8 bytes (the lowest first) to four bf16 values, two a word (the first in the low half).
// gfx950 converts a pair to bf16 in one instruction (v_cvt_scalef32_pk_bf16_fp8 at scale 1: exact,
// docs/hardware.md 2.3); gfx942 widens it to fp32 (v_cvt_pk_f32_fp8) and keeps the top halves.
WAVEKIT_DEVICE WAVEKIT_FORCEINLINE u32x2 widen_fp8x4_to_bf16(std::uint32_t bytes) {
#if WAVEKIT_TARGET_GFX950
  return u32x2{
      __builtin_bit_cast(std::uint32_t, WAVEKIT_GFX950_INSTRUCTION(cvt_scalef32_pk_bf16_fp8)(bytes, 1.0f, false)),
      __builtin_bit_cast(std::uint32_t, WAVEKIT_GFX950_INSTRUCTION(cvt_scalef32_pk_bf16_fp8)(bytes, 1.0f, true))};
#else
  // The top halves of the two fp32 values (exact: an fp8 value is a bf16 value): one v_perm_b32.
  auto pack = [](auto pair) {
    return __builtin_amdgcn_perm(__builtin_bit_cast(std::uint32_t, static_cast<float>(pair[1])),
                                 __builtin_bit_cast(std::uint32_t, static_cast<float>(pair[0])), 0x07060302u);
  };
  const int word = static_cast<int>(bytes);
  return u32x2{pack(__builtin_amdgcn_cvt_pk_f32_fp8(word, false)), pack(__builtin_amdgcn_cvt_pk_f32_fp8(word, true))};
#endif
}

}  // namespace wavekit::arch
