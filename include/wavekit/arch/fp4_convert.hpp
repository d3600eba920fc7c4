// MXFP4 -> bf16 on gfx950: v_cvt_scalef32_pk_bf16_fp4 widens the two e2m1 values of one byte
// (the low nibble first) times a block's e8m0 scale, 2^(e - 127), read from the exponent field of
// its fp32 scale operand (docs/hardware.md 2.3). Exact while the products stay inside bf16's range:
// an e2m1 value has 2 significant bits and bf16 8, so 6 * 2^(e - 127) is exact up to e = 254 - 2
// (larger scales overflow to Inf, as the scale-then-round reference does in fp32 only beyond
// 2^128). gfx942 has no such instruction; its builds trap here (the callers refuse an MXFP4 operand
// there first).
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <hip/hip_runtime.h>  // the platform: HIP on the device, the emulator's shim on the CPU

#include <cstdint>

#include "wavekit/arch/buffer.hpp"  // u32x4
#include "wavekit/arch/gfx950.hpp"
#include "wavekit/arch/target.hpp"
#include "wavekit/core/platform.hpp"

namespace wavekit::arch {

// The fp32 scale operand of gfx950's scaled conversions for e8m0 code `code` (0 to 254): the code
// in the exponent field, nothing else (the instructions read no more).
WAVEKIT_HOST_DEVICE constexpr float e8m0_scale_operand(std::uint32_t code) {
  return __builtin_bit_cast(float, code << 23);
}

// Eight e2m1 values (four bytes, the lowest first) times the block scale `scale_operand`
// (e8m0_scale_operand), as eight bf16 values two a word, the first in the low half.
WAVEKIT_DEVICE WAVEKIT_FORCEINLINE u32x4 widen_fp4x8_to_bf16(std::uint32_t bytes, float scale_operand) {
#if defined(__HIP__) || WAVEKIT_TARGET_GFX950
  // The byte select is an immediate: literal in each call.
  using words = std::uint32_t;
  return u32x4{
      __builtin_bit_cast(words, WAVEKIT_GFX950_INSTRUCTION(cvt_scalef32_pk_bf16_fp4)(bytes, scale_operand, 0)),
      __builtin_bit_cast(words, WAVEKIT_GFX950_INSTRUCTION(cvt_scalef32_pk_bf16_fp4)(bytes, scale_operand, 1)),
      __builtin_bit_cast(words, WAVEKIT_GFX950_INSTRUCTION(cvt_scalef32_pk_bf16_fp4)(bytes, scale_operand, 2)),
      __builtin_bit_cast(words, WAVEKIT_GFX950_INSTRUCTION(cvt_scalef32_pk_bf16_fp4)(bytes, scale_operand, 3))};
#else
  // The emulator has gfx950's conversions in its gfx950 builds only; callers check the target.
  (void)bytes, (void)scale_operand;
  __builtin_trap();
#endif
}

// Four e2m1 values (the two low bytes of `bytes`) the same way: four bf16 values two a word.
WAVEKIT_DEVICE WAVEKIT_FORCEINLINE u32x2 widen_fp4x4_to_bf16(std::uint32_t bytes, float scale_operand) {
#if defined(__HIP__) || WAVEKIT_TARGET_GFX950
  using words = std::uint32_t;
  return u32x2{
      __builtin_bit_cast(words, WAVEKIT_GFX950_INSTRUCTION(cvt_scalef32_pk_bf16_fp4)(bytes, scale_operand, 0)),
      __builtin_bit_cast(words, WAVEKIT_GFX950_INSTRUCTION(cvt_scalef32_pk_bf16_fp4)(bytes, scale_operand, 1))};
#else
  (void)bytes, (void)scale_operand;
  __builtin_trap();
#endif
}

}  // namespace wavekit::arch
