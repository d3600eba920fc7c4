// Two fp32 values that are numbers (not NaN) rounded to bf16, nearest even, packed in one word
// (the first in the low half): an online softmax's weights on their way into a bf16 MFMA operand.
// gfx950 has an instruction for it (v_cvt_pk_bf16_f32, which LLVM selects for a rounding of a
// float pair to bfloat: docs/hardware.md 2.3); gfx942 rounds each in the high half of its word
// (core/float_codec.hpp's bf16_rne_in_high_half: a v_bfe_u32 and a v_add3_u32) and takes both high
// halves with one v_perm_b32; the emulator computes the same bits (bf16_pair_bits_rne_numbers).
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <bit>
#include <cstdint>

#include "wavekit/arch/target.hpp"
#include "wavekit/core/float_codec.hpp"
#include "wavekit/core/platform.hpp"
#include "wavekit/core/vector.hpp"

namespace wavekit::arch {

WAVEKIT_HOST_DEVICE WAVEKIT_FORCEINLINE std::uint32_t pack_bf16x2_rne_numbers(float lo, float hi) {
#if WAVEKIT_TARGET_GFX950 && defined(__HIP_DEVICE_COMPILE__)
  return __builtin_bit_cast(std::uint32_t, __builtin_convertvector((floatx2{lo, hi}), bf16x2));
#elif WAVEKIT_TARGET_GFX942 && defined(__HIP_DEVICE_COMPILE__)
  // Bytes 2-3 of each rounded word: lo's into the low half, hi's into the high half.
  return __builtin_amdgcn_perm(bf16_rne_in_high_half(__builtin_bit_cast(std::uint32_t, hi)),
                               bf16_rne_in_high_half(__builtin_bit_cast(std::uint32_t, lo)), 0x07060302u);
#else
  return bf16_pair_bits_rne_numbers(lo, hi);
#endif
}

// The same pair turned by 16 bits (hi in the low half) where `turn` says so: a turn made once
// (make_bf16x2_turn, outside a loop) and held in a register. gfx942 folds it into its v_perm_b32's
// byte selector (no instruction more); gfx950 and the emulator rotate the packed word by it (one
// v_alignbit_b32 where a turn chosen between constants took a select more).
struct bf16x2_turn {
  std::uint32_t bits;  // gfx942: the perm's selector; else the rotate's bits
};

WAVEKIT_HOST_DEVICE constexpr bf16x2_turn make_bf16x2_turn(bool turned) {
#if WAVEKIT_TARGET_GFX942 && defined(__HIP_DEVICE_COMPILE__)
  return {turned ? 0x03020706u : 0x07060302u};
#else
  return {turned ? 16u : 0u};
#endif
}

WAVEKIT_HOST_DEVICE WAVEKIT_FORCEINLINE std::uint32_t pack_bf16x2_rne_numbers(float lo, float hi, bf16x2_turn turn) {
#if WAVEKIT_TARGET_GFX942 && defined(__HIP_DEVICE_COMPILE__)
  return __builtin_amdgcn_perm(bf16_rne_in_high_half(__builtin_bit_cast(std::uint32_t, hi)),
                               bf16_rne_in_high_half(__builtin_bit_cast(std::uint32_t, lo)), turn.bits);
#else
  const std::uint32_t word = pack_bf16x2_rne_numbers(lo, hi);
  return std::rotr(word, static_cast<int>(turn.bits));
#endif
}

}  // namespace wavekit::arch
