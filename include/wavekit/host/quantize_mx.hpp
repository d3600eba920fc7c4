// Host quantizer for OCP MX formats: blocks of 32 consecutive values along a row share one e8m0
// scale. Elements are OCP fp8 (fp8_e4m3fn, bf8_e5m2) or fp4 (fp4_e2m1, stored packed two per
// byte). The scale choice reproduces the reference MXFP4 quantizer of the amd-mxfp4-mm problem
// (aiter's _mxfp4_quant_op, docs/hardware.md 7.3), generalised by the element
// format's largest binade:
//
//   amax     = max |x| over the block, with its fp32 bits rounded as (bits + 0x200000) & 0xFF800000
//              (mantissas >= 0.75 carry into the next power of two; a subnormal amax becomes 0)
//   exponent = clamp(floor(log2(amax)) - max_exponent(elem), -127, 127)   (log2(0) = -inf)
//   scale    = e8m0(exponent + 127)
//   element  = x * 2^-exponent (one fp32 multiply) rounded to elem, saturating at its largest value
//
// max_exponent is 2 for fp4 (max 6 = 1.5 * 2^2), 8 for e4m3fn (448), 15 for e5m2 (57344).
// With the rounding above a block's amax maps below the format's maximum, so saturation only
// clips values within the rounding of amax.
//
// The element's rounding is a choice (core/mx_rounding.hpp), exact for every element format:
//   mx_rounding::nearest_even (the default): saturate_cast, amd-mxfp4-mm's quantizer (aiter's
//       _mxfp4_quant_op) and the hardware conversions';
//   mx_rounding::ties_away_from_zero: halfway values round away from zero (0.25 -> 0.5, 2.5 -> 3
//       for fp4), as aiter's fused_dynamic_mxfp4_quant_moe_sort, the activation quantizer of the
//       amd-moe-mxfp4 reference's fused MoE path for <= 1024 tokens; e4m3fn and e5m2 get the same
//       rule on their own grids (no public reference uses it for them).
// Under both the scale is the same, -0 stays -0, and non-finite input is rejected.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "wavekit/core/mx_rounding.hpp"
#include "wavekit/core/mx_scale.hpp"
#include "wavekit/core/numeric_types.hpp"
#include "wavekit/host/quantize_blockscale.hpp"

namespace wavekit::host {

inline constexpr int mx_block_size = 32;

template <class Elem>
inline constexpr bool is_mx_element_v =
    std::is_same_v<Elem, fp8_e4m3fn> || std::is_same_v<Elem, bf8_e5m2> || std::is_same_v<Elem, fp4_e2m1>;

template <class Elem>
struct mx_tensor {
  static_assert(is_mx_element_v<Elem>, "mx_tensor: Elem must be fp8_e4m3fn, bf8_e5m2 or fp4_e2m1");
  static constexpr int elements_per_byte = std::is_same_v<Elem, fp4_e2m1> ? 2 : 1;
  int rows = 0, cols = 0;
  std::vector<mx_storage_t<Elem>> data;  // (rows, cols / elements_per_byte)
  std::vector<e8m0> scales;              // (rows, cols / 32)

  int scale_cols() const { return cols / mx_block_size; }
  Elem element_at(int r, int c) const {
    const std::size_t i = std::size_t(r) * cols + c;
    if constexpr (elements_per_byte == 2)
      return data[i / 2].element(static_cast<int>(i % 2));
    else
      return data[i];
  }
  e8m0 scale_at(int r, int c) const { return scales[std::size_t(r) * scale_cols() + c / mx_block_size]; }
  float value_at(int r, int c) const { return to_float(element_at(r, c)) * to_float(scale_at(r, c)); }
};

template <class Elem>
mx_tensor<Elem> quantize_mx(std::span<const float> x, int rows, int cols,
                            mx_rounding rounding = mx_rounding::nearest_even) {
  detail::require_matrix(x, rows, cols, "quantize_mx");
  if (cols % mx_block_size != 0)
    throw std::invalid_argument("quantize_mx: cols must be a multiple of 32 (the MX block), got " +
                                std::to_string(cols));
  mx_tensor<Elem> t;
  t.rows = rows, t.cols = cols;
  t.data.resize(x.size() / mx_tensor<Elem>::elements_per_byte);
  t.scales.resize(std::size_t(rows) * t.scale_cols());
  Elem block[mx_block_size];
  for (int r = 0; r < rows; ++r) {
    for (int b = 0; b < t.scale_cols(); ++b) {
      const float* src = x.data() + std::size_t(r) * cols + std::size_t(b) * mx_block_size;
      float amax = 0.0f;
      for (int i = 0; i < mx_block_size; ++i) amax = std::max(amax, std::fabs(src[i]));
      const int exponent = mx_scale_exponent<Elem>(amax);
      t.scales[std::size_t(r) * t.scale_cols() + b] = e8m0::from_exponent(exponent);
      const float inverse_scale = decode_e8m0(static_cast<std::uint32_t>(e8m0_codes::bias - exponent));
      if (rounding == mx_rounding::nearest_even)
        for (int i = 0; i < mx_block_size; ++i) block[i] = saturate_cast<Elem>(src[i] * inverse_scale);
      else
        for (int i = 0; i < mx_block_size; ++i)
          block[i] = Elem::from_bits(encode_float<typename Elem::format>(
              src[i] * inverse_scale, overflow_policy::saturate, wavekit::detail::round_half_away{}));

      const std::size_t first =
          (std::size_t(r) * cols + std::size_t(b) * mx_block_size) / mx_tensor<Elem>::elements_per_byte;
      if constexpr (mx_tensor<Elem>::elements_per_byte == 2) {
        for (int i = 0; i < mx_block_size; i += 2) t.data[first + i / 2] = fp4x2_e2m1::pack(block[i], block[i + 1]);
      } else {
        std::copy(block, block + mx_block_size, t.data.begin() + static_cast<std::ptrdiff_t>(first));
      }
    }
  }
  return t;
}

template <class Elem>
std::vector<float> dequantize(const mx_tensor<Elem>& t) {
  std::vector<float> out(std::size_t(t.rows) * t.cols);
  for (int r = 0; r < t.rows; ++r)
    for (int c = 0; c < t.cols; ++c) out[std::size_t(r) * t.cols + c] = t.value_at(r, c);
  return out;
}

}  // namespace wavekit::host
