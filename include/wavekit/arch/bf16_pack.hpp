// Two fp32 values that are numbers (not NaN) rounded to bf16, nearest even, packed in one word
// (the first in the low half): an online softmax's weights on their way into a bf16 MFMA operand.
// gfx950 has an instruction for it (v_cvt_pk_bf16_f32, which LLVM selects for a rounding of a
// float pair to bfloat: docs/hardware.md 2.3); gfx942 and the emulator compute the same bits with
// integer operations (core/float_codec.hpp's bf16_pair_bits_rne_numbers: two v_bfe_u32 and
// v_add3_u32 and one v_and_or_b32).
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <cstdint>

#include "wavekit/arch/target.hpp"
#include "wavekit/core/float_codec.hpp"
#include "wavekit/core/platform.hpp"
#include "wavekit/core/vector.hpp"

namespace wavekit::arch {

WAVEKIT_HOST_DEVICE WAVEKIT_FORCEINLINE std::uint32_t pack_bf16x2_rne_numbers(float lo, float hi) {
#if WAVEKIT_TARGET_GFX950 && defined(__HIP_DEVICE_COMPILE__)
  using floatx2 = float __attribute__((ext_vector_type(2)));
  return __builtin_bit_cast(std::uint32_t, __builtin_convertvector((floatx2{lo, hi}), bf16x2));
#else
  return bf16_pair_bits_rne_numbers(lo, hi);
#endif
}

}  // namespace wavekit::arch
