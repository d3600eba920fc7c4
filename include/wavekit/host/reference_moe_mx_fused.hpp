// Host reference of aiter's fused a4w4 MoE path (the amd-moe-mxfp4 reference's fused_moe with
// per_1x32 MXFP4 weights, <= 1024 tokens; docs/moe.md), one layer over MX expert weights, with every
// intermediate rounded where that path rounds it. Per token t and choice j (e = ids[t][j], a local
// expert; other ids contribute nothing):
//
//   x_q = quantize_mx<Elem>(x, x_rounding)            x: values of T (bf16 or fp16) as floats
//   G   = float(x_q . gate_e^T),  U = float(x_q . up_e^T)
//   H   = T(silu_times(G, U))                          core/silu.hpp's fp32 formula, rounded to T once
//   H_q = quantize_mx<Elem>(H, h_rounding)             per slot, [1][expert_dim]
//   Y_j = float(H_q . down_e^T)
//   out[t] = T(sum over j in choice order of float(weights[t][j] * Y_j))   fp32 products and sum, rounded once
//
// Both roundings default to mx_rounding::ties_away_from_zero, the rule of aiter's
// fused_dynamic_mxfp4_quant_moe_sort (core/mx_rounding.hpp). Nothing rounds G alone: the fused
// stage 1 applies the activation to the fp32 accumulators. round_gate_to_T (for tests only) rounds
// G to T before SiLU, as wavekit's pipeline did before issue 26, so that a test can show what that
// rounding changes (near a power of two it moves H's block amax across a scale boundary).
//
// The dot products are exact: MX elements times their power-of-two scales are exact in double, and
// so are their sums while the products' scales span fewer than about 2^40 (always, for weights and
// activations of one layer); G, U and Y are those exact values rounded once to fp32. A device that
// accumulates in fp32 gets the same values while its partial sums are exact in fp32 (true for
// realistic data: products of two e2m1 values are multiples of 1/4 up to 36, so a row of 7168 at
// one scale needs 21 bits); where they are not, it differs by its accumulation's rounding.
//
// Elem: fp4_e2m1 (MXFP4) or fp8_e4m3fn (MXFP8, no public reference: the same steps). Weights in
// the plain layout of host::moe_mx_weights (gate, up [expert_dim][hidden], down
// [hidden][expert_dim]). Slots are split over threads; fast enough for amd-moe-mxfp4's shapes
// (hidden 7168), decoding the MX bytes as it goes.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "wavekit/core/half_convert.hpp"
#include "wavekit/core/mx_rounding.hpp"
#include "wavekit/core/numeric_types.hpp"
#include "wavekit/core/silu.hpp"
#include "wavekit/host/quantize_mx.hpp"
#include "wavekit/host/reference_moe_mx.hpp"
#include "wavekit/ops/moe/problem.hpp"

namespace wavekit::host {

struct moe_mx_fused_options {
  mx_rounding x_rounding = mx_rounding::ties_away_from_zero;  // x's MX quantization
  mx_rounding h_rounding = mx_rounding::ties_away_from_zero;  // the gated product's
  bool round_gate_to_T = false;  // tests only: G rounded to T before SiLU (the old pipeline)
};

struct moe_mx_fused_result {
  std::vector<float> out;  // [tokens][hidden], values of T
  // Per slot (token * top_k + choice), [expert_dim]; empty for slots without a local expert:
  std::vector<std::vector<float>> gate, up;  // G and U (fp32)
  std::vector<std::vector<float>> h;         // H, values of T (before its MX quantization)
};

namespace detail {

// An MX tensor's element values (no scale) by storage byte: [byte][0 or 1] for fp4 pairs, [byte][0]
// for fp8.
template <class Elem>
std::array<std::array<double, 2>, 256> mx_byte_values() {
  std::array<std::array<double, 2>, 256> v{};
  for (std::uint32_t b = 0; b < 256; ++b) {
    if constexpr (std::is_same_v<Elem, fp4_e2m1>)
      v[b] = {to_float(fp4_e2m1::from_bits(b & 0xF)), to_float(fp4_e2m1::from_bits(b >> 4))};
    else
      v[b] = {to_float(Elem::from_bits(b)), 0.0};
  }
  return v;
}

// One row of an MX tensor as exact doubles: elements [cols] and scales [cols / 32].
template <class Elem>
void mx_row(const mx_tensor<Elem>& t, int r, const std::array<std::array<double, 2>, 256>& values,
            std::vector<double>& elements, std::vector<double>& scales) {
  constexpr int per_byte = mx_tensor<Elem>::elements_per_byte;
  const std::size_t first = std::size_t(r) * t.cols / per_byte;
  elements.resize(t.cols), scales.resize(t.scale_cols());
  for (int c = 0; c < t.cols; c += per_byte) {
    const auto& v = values[t.data[first + c / per_byte].bits];
    elements[c] = v[0];
    if constexpr (per_byte == 2) elements[c + 1] = v[1];
  }
  for (int b = 0; b < t.scale_cols(); ++b) scales[b] = to_float(t.scales[std::size_t(r) * t.scale_cols() + b]);
}

// a . row n of w, exactly (a given as elements and per-32 scales of the same K).
template <class Elem>
double mx_dot(const std::vector<double>& a, const std::vector<double>& a_scale, const mx_tensor<Elem>& w, int n,
              const std::array<std::array<double, 2>, 256>& values) {
  constexpr int per_byte = mx_tensor<Elem>::elements_per_byte;
  const std::size_t first = std::size_t(n) * w.cols / per_byte;
  double sum = 0.0;
  for (int b = 0; b < w.scale_cols(); ++b) {
    double block = 0.0;
    for (int c = b * mx_block_size; c < (b + 1) * mx_block_size; c += per_byte) {
      const auto& v = values[w.data[first + c / per_byte].bits];
      block += a[c] * v[0];
      if constexpr (per_byte == 2) block += a[c + 1] * v[1];
    }
    sum += block * (a_scale[b] * double(to_float(w.scales[std::size_t(n) * w.scale_cols() + b])));
  }
  return sum;
}

template <class T>
float round_to_half(float v) {
  return widen_to_float(T::from_bits(half_bits_rne<T>(v)));
}

}  // namespace detail

// x: [tokens][hidden] values of T; ids, weights: [tokens][top_k]; w: the local experts' MX
// weights (entries of experts no id names may be empty). Throws std::invalid_argument on inputs
// of the wrong size or shape, x values that T does not hold, and (from the MX quantizer)
// non-finite x or H.
template <class T, class Elem = fp4_e2m1>
moe_mx_fused_result reference_moe_mx_fused(const ops::moe::problem& p, std::span<const float> x,
                                           const std::vector<int>& ids, const std::vector<float>& weights,
                                           const moe_mx_weights<Elem>& w, moe_mx_fused_options options = {}) {
  static_assert(std::is_same_v<T, bf16> || std::is_same_v<T, fp16>, "reference_moe_mx_fused: T is bf16 or fp16");
  static_assert(std::is_same_v<Elem, fp4_e2m1> || std::is_same_v<Elem, fp8_e4m3fn>,
                "reference_moe_mx_fused: MX weights are fp4_e2m1 or fp8_e4m3fn");
  const std::string who = "reference_moe_mx_fused (" + p.str() + "): ";
  const int hid = p.hidden, dim = p.expert_dim;
  const std::size_t slots = std::size_t(p.tokens) * p.top_k;
  if (x.size() != std::size_t(p.tokens) * hid) throw std::invalid_argument(who + "x is not [tokens][hidden]");
  if (ids.size() != slots || weights.size() != slots)
    throw std::invalid_argument(who + "ids and weights must be [tokens][top_k]");
  if (hid % mx_block_size != 0 || dim % mx_block_size != 0)
    throw std::invalid_argument(who + "hidden and expert_dim must be multiples of 32");
  for (std::size_t i = 0; i < x.size(); ++i)
    if (x[i] == x[i] && detail::round_to_half<T>(x[i]) != x[i])  // (NaN: the quantizer's message)
      throw std::invalid_argument(who + "x[" + std::to_string(i) + "] = " + std::to_string(x[i]) +
                                  " is not a value of T");
  const std::vector<bool> used = detail::used_experts(p, ids);
  for (int e = 0; e < p.local_experts; ++e) {
    if (!used[e]) continue;
    auto shaped = [&](const std::vector<mx_tensor<Elem>>& v, int rows, int cols) {
      return std::size_t(e) < v.size() && v[e].rows == rows && v[e].cols == cols &&
             v[e].data.size() * mx_tensor<Elem>::elements_per_byte == std::size_t(rows) * cols &&
             v[e].scales.size() == std::size_t(rows) * (cols / mx_block_size);
    };
    if (!shaped(w.gate, dim, hid) || !shaped(w.up, dim, hid) || !shaped(w.down, hid, dim))
      throw std::invalid_argument(who + "local expert " + std::to_string(e) +
                                  "'s weights are not gate, up [expert_dim][hidden] and down [hidden][expert_dim]");
  }

  const mx_tensor<Elem> x_q = quantize_mx<Elem>(x, p.tokens, hid, options.x_rounding);
  const auto values = detail::mx_byte_values<Elem>();
  moe_mx_fused_result r;
  r.gate.resize(slots), r.up.resize(slots), r.h.resize(slots);
  std::vector<std::vector<float>> y(slots);  // each slot's Y: [hidden]
  detail::over_tokens(static_cast<int>(slots), [&](int begin, int end) {
    std::vector<double> xe, xs, he, hs;
    for (int s = begin; s < end; ++s) {
      const int e = ids[s] - p.expert_begin;
      if (e < 0 || e >= p.local_experts) continue;
      detail::mx_row(x_q, s / p.top_k, values, xe, xs);
      std::vector<float>&g = r.gate[s], &u = r.up[s], &h = r.h[s];
      g.resize(dim), u.resize(dim), h.resize(dim);
      for (int n = 0; n < dim; ++n) {
        g[n] = static_cast<float>(detail::mx_dot(xe, xs, w.gate[e], n, values));
        u[n] = static_cast<float>(detail::mx_dot(xe, xs, w.up[e], n, values));
        const float gate = options.round_gate_to_T ? detail::round_to_half<T>(g[n]) : g[n];
        h[n] = detail::round_to_half<T>(silu_times(gate, u[n]));
      }
      const mx_tensor<Elem> h_q = quantize_mx<Elem>(h, 1, dim, options.h_rounding);
      detail::mx_row(h_q, 0, values, he, hs);
      y[s].resize(hid);
      for (int c = 0; c < hid; ++c) y[s][c] = static_cast<float>(detail::mx_dot(he, hs, w.down[e], c, values));
    }
  });
  r.out.assign(std::size_t(p.tokens) * hid, 0.0f);
  detail::over_tokens(p.tokens, [&](int begin, int end) {
    for (int t = begin; t < end; ++t)
      for (int c = 0; c < hid; ++c) {
        float acc = 0.0f;
        for (int j = 0; j < p.top_k; ++j) {
          const std::size_t s = std::size_t(t) * p.top_k + j;
          if (y[s].empty()) continue;
          const float term = weights[s] * y[s][c];  // its own statement: never contracted into an FMA
          acc += term;
        }
        r.out[std::size_t(t) * hid + c] = detail::round_to_half<T>(acc);
      }
  });
  return r;
}

}  // namespace wavekit::host
