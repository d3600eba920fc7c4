// The lanes' part of MX quantization (e2m1 or e4m3fn elements, one e8m0 scale per 32 values) on
// gfx950, for a quantizer that holds 8 consecutive values a lane with a 32-value block in 4
// neighbouring lanes (a quad): the block's amax by two DPP moves and the lane's elements and the
// block's scale by the host quantizer's rule (block/quantize_1x32_mx.hpp states it and where each
// step rounds). block/quantize_1x32_mx.hpp runs them over a tensor; tile/tile_loader_quantize_fp4.hpp
// as it loads a GEMM's A tile, which is why they sit at this level.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <hip/hip_runtime.h>  // the platform: HIP on the device, the emulator's shim on the CPU

#include <cstdint>
#include <type_traits>

#include "wavekit/arch/buffer.hpp"
#include "wavekit/arch/fp4_convert.hpp"  // e8m0_scale_operand
#include "wavekit/arch/fp8_convert.hpp"
#include "wavekit/arch/gfx950.hpp"
#include "wavekit/core/mx_rounding.hpp"
#include "wavekit/core/mx_scale.hpp"
#include "wavekit/core/numeric_types.hpp"
#include "wavekit/core/platform.hpp"

namespace wavekit::arch {

inline constexpr int mx_group = 32;                  // columns per scale
inline constexpr int mx_quantize_lane_elements = 8;  // elements per work item
inline constexpr int mx_quantize_group_lanes = 4;    // work items per scale

// A lane's fp4 octet: four bytes of e2m1 and its block's e8m0 exponent + 127.
struct fp4_octet {
  std::uint32_t bytes;
  std::uint32_t scale;
};
// The amaxes of N 32-column blocks, each from a lane's 8 values: a lane's own by fmaxf (v_max3_f32
// with the magnitudes as source modifiers: over finite values the host quantizer's max; NaN, which
// the host rejects, is what maxnum makes of it on the device: a quiet NaN is not the amax), then
// DPP moves within each quad of lanes (VALU, no LDS): lanes swapped by 1 (quad_perm [1, 0, 3, 2]),
// then by 2 ([2, 3, 0, 1]). The N blocks' moves are interleaved, so that a DPP move reads a
// register written N instructions before, not one (a move that reads the previous instruction's
// result waits two cycles: s_nop).
template <int N>
WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void block_amaxes(const float (&v)[N][mx_quantize_lane_elements], float (&amax)[N]) {
#pragma unroll
  for (int n = 0; n < N; ++n) {
    amax[n] = 0.0f;
#pragma unroll
    for (int h = 0; h < mx_quantize_lane_elements; ++h) amax[n] = __builtin_fmaxf(amax[n], __builtin_fabsf(v[n][h]));
  }
  auto quad_max = [&amax]<int Ctrl>() {
#pragma unroll
    for (int n = 0; n < N; ++n) {
      const float other =
          __builtin_bit_cast(float, __builtin_amdgcn_mov_dpp(__builtin_bit_cast(int, amax[n]), Ctrl, 0xF, 0xF, false));
      amax[n] = __builtin_fmaxf(amax[n], other);
    }
  };
  quad_max.template operator()<0xB1>();
  quad_max.template operator()<0x4E>();
}
WAVEKIT_DEVICE WAVEKIT_FORCEINLINE float block_amax(const float (&v)[mx_quantize_lane_elements]) {
  float one[1][mx_quantize_lane_elements], amax[1];
#pragma unroll
  for (int h = 0; h < mx_quantize_lane_elements; ++h) one[0][h] = v[h];
  block_amaxes<1>(one, amax);
  return amax[0];
}

// N lanes' octets (N blocks) to fp4, the blocks' DPP moves interleaved (block_amaxes).
// (A template so that only gfx950 code instantiates the conversion.)
template <int N, class Elem = fp4_e2m1, mx_rounding R = mx_rounding::nearest_even>
WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void quantize_fp4_octets(const float (&v)[N][mx_quantize_lane_elements],
                                                            fp4_octet (&out)[N]) {
  static_assert(std::is_same_v<Elem, fp4_e2m1>, "quantize_fp4_octets: fp4 e2m1");
  float amax[N];
  block_amaxes<N>(v, amax);
#pragma unroll
  for (int n = 0; n < N; ++n) {
    const int exponent = mx_scale_exponent<Elem>(amax[n]);
    std::uint32_t bytes = 0;
    if constexpr (R == mx_rounding::ties_away_from_zero) {
      float y[mx_quantize_lane_elements];
#pragma unroll
      for (int h = 0; h < mx_quantize_lane_elements; ++h)
        y[h] = round_to_grid_ties_away<Elem>(__builtin_ldexpf(v[n][h], -exponent));
      bytes = gfx950::cvt_scalef32_pk_fp4_f32<0>(bytes, y[0], y[1], 1.0f);
      bytes = gfx950::cvt_scalef32_pk_fp4_f32<1>(bytes, y[2], y[3], 1.0f);
      bytes = gfx950::cvt_scalef32_pk_fp4_f32<2>(bytes, y[4], y[5], 1.0f);
      bytes = gfx950::cvt_scalef32_pk_fp4_f32<3>(bytes, y[6], y[7], 1.0f);
    } else {
      const float scale = e8m0_scale_operand(static_cast<std::uint32_t>(exponent + 127));
      bytes = gfx950::cvt_scalef32_pk_fp4_f32<0>(bytes, v[n][0], v[n][1], scale);
      bytes = gfx950::cvt_scalef32_pk_fp4_f32<1>(bytes, v[n][2], v[n][3], scale);
      bytes = gfx950::cvt_scalef32_pk_fp4_f32<2>(bytes, v[n][4], v[n][5], scale);
      bytes = gfx950::cvt_scalef32_pk_fp4_f32<3>(bytes, v[n][6], v[n][7], scale);
    }
    out[n] = {bytes, static_cast<std::uint32_t>(exponent + 127)};
  }
}
// Eight values of a 32-column block (the block's other 24 in the three neighbouring lanes of the
// group of four) to four bytes of e2m1, and the block's e8m0 exponent + 127.
template <class Elem = fp4_e2m1, mx_rounding R = mx_rounding::nearest_even>
WAVEKIT_DEVICE WAVEKIT_FORCEINLINE fp4_octet quantize_fp4_octet(const float (&v)[mx_quantize_lane_elements]) {
  float one[1][mx_quantize_lane_elements];
#pragma unroll
  for (int h = 0; h < mx_quantize_lane_elements; ++h) one[0][h] = v[h];
  fp4_octet out[1];
  quantize_fp4_octets<1, Elem, R>(one, out);
  return out[0];
}

// The same to eight bytes of e4m3fn: x * 2^-exponent (2^-exponent is a normal fp32 for every
// exponent the rule gives e4m3fn, at most 127 - 8), saturating.
struct fp8_octet {
  u32x2 bytes;
  std::uint32_t scale;
};
template <class Elem = fp8_e4m3fn, mx_rounding R = mx_rounding::nearest_even>
WAVEKIT_DEVICE WAVEKIT_FORCEINLINE fp8_octet quantize_fp8_octet(const float (&v)[mx_quantize_lane_elements]) {
  static_assert(std::is_same_v<Elem, fp8_e4m3fn>, "quantize_fp8_octet: OCP fp8 e4m3fn");
  const int exponent = mx_scale_exponent<Elem>(block_amax(v));
  const float inverse = __builtin_ldexpf(1.0f, -exponent);
  if constexpr (R == mx_rounding::ties_away_from_zero) {
    float y[mx_quantize_lane_elements];
#pragma unroll
    for (int h = 0; h < mx_quantize_lane_elements; ++h) y[h] = round_to_grid_ties_away<Elem>(v[h] * inverse);
    return {
        u32x2{pack_fp8x4_saturating<Elem>(y[0], y[1], y[2], y[3]), pack_fp8x4_saturating<Elem>(y[4], y[5], y[6], y[7])},
        static_cast<std::uint32_t>(exponent + 127)};
  }
  return {u32x2{pack_fp8x4_saturating<Elem>(v[0] * inverse, v[1] * inverse, v[2] * inverse, v[3] * inverse),
                pack_fp8x4_saturating<Elem>(v[4] * inverse, v[5] * inverse, v[6] * inverse, v[7] * inverse)},
          static_cast<std::uint32_t>(exponent + 127)};
}

}  // namespace wavekit::arch
