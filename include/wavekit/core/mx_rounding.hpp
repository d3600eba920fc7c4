// How an MX quantizer rounds an element that lies exactly halfway between two values of its format,
// after the division by the block's power-of-two scale (core/mx_scale.hpp picks the scale the same
// way under either rule). The public references differ here, and a MoE layer's output is sensitive
// to it (about 0.6% of the elements of N(0, 1) bf16 data are such ties):
//
//   nearest_even         amd-mxfp4-mm's quantizer (aiter's _mxfp4_quant_op, docs/hardware.md 7.3)
//                        and gfx950's v_cvt_scalef32_pk_fp4_f32: 0.25 -> 0, 0.75 -> 1, 2.5 -> 2
//   ties_away_from_zero  aiter's fused_dynamic_mxfp4_quant_moe_sort, the activation quantizer of the
//                        amd-moe-mxfp4 reference's fused MoE path for <= 1024 tokens:
//                        0.25 -> 0.5, 0.75 -> 1, 1.25 -> 1.5, 2.5 -> 3, 3.5 -> 4, 5 -> 6
//
// Both saturate at the format's largest finite value; the scale, -0, and what NaN and Inf become
// are the same under both rules (the host quantizer rejects non-finite input; the device quantizer
// gives NaN and Inf the hardware conversion's result under either rule).
//
// round_to_grid_ties_away<Elem>(y) rounds an fp32 value to Elem's grid with ties away from zero and
// returns it as an fp32 (unsaturated: 7 gives 8 for e2m1; NaN and Inf as they were, the sign kept,
// -0 included), so a converter that rounds to nearest even then encodes it exactly: the device
// quantizer's ties-away form (block/quantize_1x32_mx.hpp). Normal binades keep the format's mantissa
// bits of y's fp32 bits, rounding half up on the magnitude (a carry moves to the next binade); the
// format's subnormal range rounds to its one quantum by comparison (e2m1) or std::round, which rounds
// halves away from zero (others).
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <cstdint>

#include "wavekit/core/numeric_types.hpp"
#include "wavekit/core/platform.hpp"

namespace wavekit {

enum class mx_rounding : std::uint8_t { nearest_even, ties_away_from_zero };

constexpr const char* to_string(mx_rounding r) {
  return r == mx_rounding::nearest_even ? "nearest_even" : "ties_away_from_zero";
}

template <class Elem>
WAVEKIT_HOST_DEVICE WAVEKIT_FORCEINLINE float round_to_grid_ties_away(float y) {
  using F = typename Elem::format;
  static_assert(is_small_float_v<Elem> && F::mantissa_bits < 23, "round_to_grid_ties_away: a narrow float format");
  constexpr int dropped = 23 - F::mantissa_bits;  // fp32 mantissa bits below the grid
  constexpr std::uint32_t min_normal = static_cast<std::uint32_t>(128 - F::bias) << 23;  // the format's, as fp32 bits
  const std::uint32_t b = __builtin_bit_cast(std::uint32_t, y);
  const std::uint32_t sign = b & 0x80000000u, mag = b & 0x7FFFFFFFu;
  // Every candidate computed and one selected (no branches in a wave): the normal binades' (Inf
  // stays Inf, fp32's largest finite values carry to Inf), the subnormal range's, NaN's as it is.
  const std::uint32_t normal = (mag + (1u << (dropped - 1))) & ~((1u << dropped) - 1);
  std::uint32_t subnormal;
  if constexpr (F::mantissa_bits == 1 && F::bias == 1) {
    // e2m1 below 1: the one subnormal 0.5; 0.25 and 0.75 are the ties.
    subnormal = mag >= 0x3F400000u ? 0x3F800000u : (mag >= 0x3E800000u ? 0x3F000000u : 0u);
  } else {
    constexpr int quantum = 1 - F::bias - F::mantissa_bits;  // log2 of the subnormal step
    constexpr float per_step = __builtin_bit_cast(float, static_cast<std::uint32_t>(127 - quantum) << 23);
    constexpr float step = __builtin_bit_cast(float, static_cast<std::uint32_t>(127 + quantum) << 23);
    subnormal = __builtin_bit_cast(std::uint32_t, __builtin_roundf(__builtin_bit_cast(float, mag) * per_step) * step);
  }
  const std::uint32_t r = mag > 0x7F800000u ? mag : (mag >= min_normal ? normal : subnormal);
  return __builtin_bit_cast(float, sign | r);
}

}  // namespace wavekit
