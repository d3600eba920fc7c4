// Host reference of residual + RMSNorm + fp8 quantization (ops/rmsnorm_quant/problem.hpp), bit
// for bit the kernel's arithmetic:
//
//   x    = T(x + residual)                 (or x without a residual)
//   rstd = 1 / sqrt(sum(x^2) / hidden + eps)      fp32, IEEE division and square root
//   y    = T(T(x * rstd) * weight)
//   q    = host/quantize_fp8_rows.hpp's rule on y
//
// The sum of squares is an fp32 sum whose rounding depends on its order, so the reference sums in
// the kernel's order (block/row_octets.hpp's row_sum over `lanes` threads: each lane's octets
// (i * lanes + lane) in turn, element by element; each wave's 64 partials by an xor butterfly; the
// wave totals in order) and is bit-exact, not merely close: every quantized code and scale can be
// compared exactly, including those where y lands next to a rounding boundary.
//
// NaN and Inf: no special cases, IEEE arithmetic through those formulas. A NaN in a row (of x or
// the residual) makes sum(x^2) NaN, so every y of the row is NaN. An Inf (given, or x + residual
// past fp16's range) makes sum(x^2) Inf and rstd 0: the row's finite x give y = 0, its Infs NaN
// (Inf * 0); a bf16 row whose squares overflow fp32 likewise gives y = 0. The fp8 step then
// follows host/quantize_fp8_rows.hpp (NaN stays NaN; a 1x128 group never takes NaN as its amax).
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <cmath>
#include <cstddef>
#include <span>
#include <stdexcept>
#include <vector>

#include "wavekit/core/half_convert.hpp"
#include "wavekit/core/numeric_types.hpp"
#include "wavekit/core/scale_granularity.hpp"
#include "wavekit/host/quantize_fp8_rows.hpp"

namespace wavekit::host {

// sum(x[c]^2) over one row of `cols` values in block::row_octets<lanes, *>::row_sum's order.
inline float row_sum_of_squares(std::span<const float> x, int lanes) {
  const std::size_t octets = x.size() / 8;
  std::vector<float> partial(lanes, 0.0f);
  for (int lane = 0; lane < lanes; ++lane)
    for (std::size_t o = lane; o < octets; o += lanes)
      for (int h = 0; h < 8; ++h) partial[lane] += x[o * 8 + h] * x[o * 8 + h];
  float sum = 0.0f;
  for (int w = 0; w < lanes / 64; ++w) {
    float v[64];
    for (int l = 0; l < 64; ++l) v[l] = partial[w * 64 + l];
    for (int offset = 32; offset > 0; offset /= 2) {
      float next[64];
      for (int l = 0; l < 64; ++l) next[l] = v[l] + v[l ^ offset];
      for (int l = 0; l < 64; ++l) v[l] = next[l];
    }
    sum = w == 0 ? v[0] : sum + v[0];
  }
  return sum;
}

template <class T, class Fp8>
struct rmsnorm_quant_result {
  std::vector<T> residual;  // [tokens][hidden]: x + residual, rounded to T (x itself without one)
  std::vector<float> y;     // [tokens][hidden]: the values quantized (in T, widened)
  fp8_rows<Fp8> out;        // q and its scales, k_contiguous order
};

// x, weight, residual (empty: none) as T; lanes: the kernel's threads a row (rmsnorm_quant::row_threads).
template <class T, class Fp8>
rmsnorm_quant_result<T, Fp8> reference_rmsnorm_quant(std::span<const T> x, std::span<const T> residual,
                                                     std::span<const T> weight, int tokens, int hidden, float eps,
                                                     scale_granularity scaling, float scale, int lanes) {
  const std::size_t n = std::size_t(tokens) * hidden;
  if (x.size() != n || (!residual.empty() && residual.size() != n) || weight.size() != std::size_t(hidden))
    throw std::invalid_argument("reference_rmsnorm_quant: x and residual hold tokens * hidden values, weight hidden");
  auto round = [](float v) { return widen_to_float(T::from_bits(half_bits_rne<T>(v))); };
  rmsnorm_quant_result<T, Fp8> r;
  r.residual.resize(n), r.y.resize(n);
  std::vector<float> row(hidden);
  for (int t = 0; t < tokens; ++t) {
    for (int c = 0; c < hidden; ++c) {
      const std::size_t i = std::size_t(t) * hidden + c;
      row[c] = residual.empty() ? widen_to_float(x[i]) : round(widen_to_float(x[i]) + widen_to_float(residual[i]));
      r.residual[i] = T::from_bits(half_bits_rne<T>(row[c]));
    }
    const float rstd = 1.0f / std::sqrt(row_sum_of_squares(row, lanes) / static_cast<float>(hidden) + eps);
    for (int c = 0; c < hidden; ++c)
      r.y[std::size_t(t) * hidden + c] = round(round(row[c] * rstd) * widen_to_float(weight[c]));
  }
  r.out = quantize_fp8_rows<Fp8>(r.y, tokens, hidden, scaling, scale);
  return r;
}

}  // namespace wavekit::host
