// Host quantizer for fp8 with fp32 block scales, DeepSeek-V3 style: 1x128 blocks for activations
// (one scale per row per 128 columns) and 128x128 blocks for weights.
//
// Each block's scale is amax / max_finite(Fp8), so the block's largest magnitude lands on the
// format's largest finite value; elements are x / scale converted with saturate_cast (round to
// nearest even). An all-zero block gets scale 1. Dequantization is to_float(q) * scale, exactly
// what a block-scaled GEMM reads.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "wavekit/core/numeric_types.hpp"

namespace wavekit::host {

// (rows, cols) fp8 values, row-major, with one fp32 scale per (block_rows x block_cols) block,
// stored row-major as (ceil(rows / block_rows), ceil(cols / block_cols)).
template <class Fp8>
struct blockscale_tensor {
  int rows = 0, cols = 0;
  int block_rows = 1, block_cols = 128;
  std::vector<Fp8> data;      // (rows, cols)
  std::vector<float> scales;  // (scale_rows(), scale_cols())

  int scale_rows() const { return (rows + block_rows - 1) / block_rows; }
  int scale_cols() const { return (cols + block_cols - 1) / block_cols; }
  float scale_at(int r, int c) const {
    return scales[static_cast<std::size_t>(r / block_rows) * scale_cols() + c / block_cols];
  }
  float value_at(int r, int c) const { return to_float(data[static_cast<std::size_t>(r) * cols + c]) * scale_at(r, c); }
};

// The rule on one block's amax: the scale that puts it on the format's largest finite value, 1 for
// an all-zero block.
template <class Fp8>
float fp8_block_scale(float amax) {
  return amax > 0.0f ? amax / element_limits<Fp8>::max_finite : 1.0f;
}

// The rule on one group of values, any values (the tensor quantizers below take finite ones):
// q[i] = saturate_cast(x[i] / scale), the scale returned. As the device quantizers apply it
// (block/quantize_1x128.hpp): a NaN is never the amax (it stays NaN in its own element); an Inf
// amax makes the scale Inf, so the group's finite values become 0 and its Infs NaN.
template <class Fp8>
float quantize_fp8_group(std::span<const float> x, std::span<Fp8> q) {
  float amax = 0.0f;
  for (float v : x) amax = std::max(amax, std::fabs(v));  // std::max(amax, NaN) is amax
  const float scale = fp8_block_scale<Fp8>(amax);
  for (std::size_t i = 0; i < x.size(); ++i) q[i] = saturate_cast<Fp8>(x[i] / scale);
  return scale;
}

namespace detail {
inline void require_matrix(std::span<const float> x, int rows, int cols, const char* who) {
  if (rows <= 0 || cols <= 0) throw std::invalid_argument(std::string(who) + ": rows and cols must be positive");
  if (x.size() != static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols))
    throw std::invalid_argument(std::string(who) + ": input holds " + std::to_string(x.size()) +
                                " values, expected rows * cols = " + std::to_string(std::size_t(rows) * cols));
  for (std::size_t i = 0; i < x.size(); ++i)
    if (!std::isfinite(x[i]))
      throw std::invalid_argument(std::string(who) + ": non-finite input at (" + std::to_string(i / cols) + ", " +
                                  std::to_string(i % cols) + ")");
}
}  // namespace detail

template <class Fp8>
blockscale_tensor<Fp8> quantize_blockscale(std::span<const float> x, int rows, int cols, int block_rows,
                                           int block_cols) {
  detail::require_matrix(x, rows, cols, "quantize_blockscale");
  if (block_rows <= 0 || block_cols <= 0)
    throw std::invalid_argument("quantize_blockscale: block sizes must be positive");
  blockscale_tensor<Fp8> t;
  t.rows = rows, t.cols = cols, t.block_rows = block_rows, t.block_cols = block_cols;
  t.data.resize(x.size());
  t.scales.resize(static_cast<std::size_t>(t.scale_rows()) * t.scale_cols());

  for (int br = 0; br < t.scale_rows(); ++br) {
    for (int bc = 0; bc < t.scale_cols(); ++bc) {
      const int r0 = br * block_rows, r1 = std::min(rows, r0 + block_rows);
      const int c0 = bc * block_cols, c1 = std::min(cols, c0 + block_cols);
      float amax = 0.0f;
      for (int r = r0; r < r1; ++r)
        for (int c = c0; c < c1; ++c) amax = std::max(amax, std::fabs(x[std::size_t(r) * cols + c]));
      const float scale = fp8_block_scale<Fp8>(amax);
      t.scales[std::size_t(br) * t.scale_cols() + bc] = scale;
      for (int r = r0; r < r1; ++r)
        for (int c = c0; c < c1; ++c) {
          const std::size_t i = std::size_t(r) * cols + c;
          t.data[i] = saturate_cast<Fp8>(x[i] / scale);
        }
    }
  }
  return t;
}

// Activations: one scale per row per 128 columns.
template <class Fp8>
blockscale_tensor<Fp8> quantize_fp8_1x128(std::span<const float> x, int rows, int cols) {
  return quantize_blockscale<Fp8>(x, rows, cols, 1, 128);
}

// Weights: one scale per 128x128 block.
template <class Fp8>
blockscale_tensor<Fp8> quantize_fp8_128x128(std::span<const float> x, int rows, int cols) {
  return quantize_blockscale<Fp8>(x, rows, cols, 128, 128);
}

template <class Fp8>
std::vector<float> dequantize(const blockscale_tensor<Fp8>& t) {
  std::vector<float> out(t.data.size());
  for (int r = 0; r < t.rows; ++r)
    for (int c = 0; c < t.cols; ++c) out[std::size_t(r) * t.cols + c] = t.value_at(r, c);
  return out;
}

}  // namespace wavekit::host
