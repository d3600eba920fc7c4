// Host reference of the MoE layer over fp8 block-scaled expert weights (ops/moe/problem.hpp's
// blockscale_args), in its two halves, so that a check can hand the second the device's own
// quantized gated product (the one point where a rounding flip upstream changes an fp8 code and a
// 1x128 scale, which no tight end-to-end bound survives):
//
//   reference_moe_blockscale_up:   per slot (token, choice) with a local expert, from the
//       dequantized input (x_q * its scale, 1x128 or per token) and weights (q * the 128x128
//       block's scale): g = x W_gate, u = x W_up (double), h = T(SiLU(g) * u), T(.) the
//       device's rounding to the activations' type (the gate itself is never rounded); with what
//       a bound needs (g, u and the magnitudes sum |x_k w_k| of g and u).
//   reference_moe_blockscale_down: from each slot's quantized h (fp8 codes and 1x128 scales, as
//       host::quantize_fp8_1x128 makes them), y = h_q W_down (double), each choice's
//       weight * y summed in choice order and the sum rounded to T once; with the magnitude
//       sum over choices of |weight| sum_d |h_d w_dc|.
//
// Both dequantize exactly (fp8 codes times fp32 scales are exact in double), accumulate in double
// and split the tokens over threads. Their cores take dequantized operands
// (reference_moe_up_dequantized, reference_moe_down_dequantized), which the MXFP4 layer's reference
// (host/reference_moe_mx.hpp) shares.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <thread>
#include <vector>

#include "wavekit/core/layout.hpp"
#include "wavekit/core/numeric_types.hpp"
#include "wavekit/host/quantize_blockscale.hpp"
#include "wavekit/host/reference_moe.hpp"
#include "wavekit/ops/moe/problem.hpp"

namespace wavekit::host {

// One expert tensor: fp8 codes and 128x128 block scales, as the device reads them (the problem's
// weight order: k_contiguous [N][K] with scales [ceil(N/128)][K/128]; mn_contiguous [K][N] with
// scales [K/128][ceil(N/128)]).
template <class Fp8>
struct blockscale_expert_tensor {
  std::vector<Fp8> q;
  std::vector<float> scale;
};

template <class Fp8>
struct moe_blockscale_weights {
  std::vector<blockscale_expert_tensor<Fp8>> gate, up, down;  // [local expert]; empty where unused
};

// The input: fp8 codes [tokens][hidden] with a scale per 128 columns ([tokens][hidden/128]) or
// per token ([tokens]).
template <class Fp8>
struct moe_blockscale_input {
  std::vector<Fp8> q;
  std::vector<float> scale;
  ops::moe::scale_granularity scaling = ops::moe::scale_granularity::group_1x128;
};

struct moe_blockscale_up_result {
  // [tokens * top_k][expert_dim]; rows of slots without a local expert are empty.
  std::vector<std::vector<double>> h, gate, up, gate_magnitude, up_magnitude;
};

namespace detail {

// A tensor of the problem's weight order, dequantized to [N][K] (n-major: one row per output).
template <class Fp8>
std::vector<double> dequantize_nk(const blockscale_expert_tensor<Fp8>& t, int n, int k, bool kc) {
  std::vector<double> out(std::size_t(n) * k);
  const int n_blocks = (n + 127) / 128, k_blocks = k / 128;
  for (int r = 0; r < n; ++r)
    for (int c = 0; c < k; ++c) {
      const double code = to_float(kc ? t.q[std::size_t(r) * k + c] : t.q[std::size_t(c) * n + r]);
      const double s =
          kc ? t.scale[std::size_t(r / 128) * k_blocks + c / 128] : t.scale[std::size_t(c / 128) * n_blocks + r / 128];
      out[std::size_t(r) * k + c] = code * s;
    }
  return out;
}

template <class F>
void over_tokens(int tokens, F&& f) {
  const int threads = std::max(1, std::min<int>(static_cast<int>(std::thread::hardware_concurrency()), tokens));
  std::vector<std::thread> pool;
  const int per = (tokens + threads - 1) / std::max(threads, 1);
  for (int b = 0; b < tokens; b += per) pool.emplace_back(f, b, std::min(tokens, b + per));
  for (auto& th : pool) th.join();
}

inline std::vector<bool> used_experts(const ops::moe::problem& p, const std::vector<int>& ids) {
  std::vector<bool> used(p.local_experts, false);
  for (int id : ids)
    if (id >= p.expert_begin && std::int64_t{id} < std::int64_t{p.expert_begin} + p.local_experts)
      used[id - p.expert_begin] = true;
  return used;
}

}  // namespace detail

// The up half from dequantized operands, for any weight format: x_row(t, xv) fills token t's
// input values; gate[e] and up[e] are local expert e's [expert_dim][hidden] (empty: unused).
template <class T, class XRow>
moe_blockscale_up_result reference_moe_up_dequantized(const ops::moe::problem& p, XRow&& x_row,
                                                      const std::vector<int>& ids,
                                                      const std::vector<std::vector<double>>& gate,
                                                      const std::vector<std::vector<double>>& up) {
  const int hid = p.hidden, dim = p.expert_dim;
  moe_blockscale_up_result r;
  const std::size_t slots = std::size_t(p.tokens) * p.top_k;
  for (auto* v : {&r.h, &r.gate, &r.up, &r.gate_magnitude, &r.up_magnitude}) v->resize(slots);
  detail::over_tokens(p.tokens, [&](int begin, int end) {
    std::vector<double> xv(hid);
    for (int t = begin; t < end; ++t) {
      x_row(t, xv);
      for (int j = 0; j < p.top_k; ++j) {
        const std::size_t s = std::size_t(t) * p.top_k + j;
        const int e = ids[s] - p.expert_begin;
        if (e < 0 || e >= p.local_experts) continue;
        for (auto* v : {&r.h, &r.gate, &r.up, &r.gate_magnitude, &r.up_magnitude}) (*v)[s].resize(dim);
        for (int n = 0; n < dim; ++n) {
          const double *gr = gate[e].data() + std::size_t(n) * hid, *ur = up[e].data() + std::size_t(n) * hid;
          double gs = 0, us = 0, gm = 0, um = 0;
          for (int k = 0; k < hid; ++k) {
            gs += xv[k] * gr[k], us += xv[k] * ur[k];
            gm += std::fabs(xv[k] * gr[k]), um += std::fabs(xv[k] * ur[k]);
          }
          r.gate[s][n] = gs, r.up[s][n] = us, r.gate_magnitude[s][n] = gm, r.up_magnitude[s][n] = um;
          r.h[s][n] = round_to<T>(gs / (1.0 + std::exp(-gs)) * us);
        }
      }
    }
  });
  return r;
}

// The down half from dequantized operands: h(s, d) is slot s's quantized gated product's value d;
// down[e] local expert e's [hidden][expert_dim] (empty: unused).
template <class T, class H>
moe_reference_result reference_moe_down_dequantized(const ops::moe::problem& p, H&& h, const std::vector<int>& ids,
                                                    const std::vector<float>& weights,
                                                    const std::vector<std::vector<double>>& down) {
  const int hid = p.hidden, dim = p.expert_dim;
  moe_reference_result r;
  r.out.assign(std::size_t(p.tokens) * hid, 0.0);
  r.magnitude.assign(r.out.size(), 0.0);
  detail::over_tokens(p.tokens, [&](int begin, int end) {
    std::vector<double> hv(dim), acc(hid), mag(hid);
    for (int t = begin; t < end; ++t) {
      std::fill(acc.begin(), acc.end(), 0.0);
      std::fill(mag.begin(), mag.end(), 0.0);
      for (int j = 0; j < p.top_k; ++j) {
        const std::size_t s = std::size_t(t) * p.top_k + j;
        const int e = ids[s] - p.expert_begin;
        if (e < 0 || e >= p.local_experts) continue;
        for (int d = 0; d < dim; ++d) hv[d] = h(s, d);
        const double weight = weights[s];
        for (int c = 0; c < hid; ++c) {
          const double* dr = down[e].data() + std::size_t(c) * dim;
          double ys = 0, ms = 0;
          for (int d = 0; d < dim; ++d) ys += hv[d] * dr[d], ms += std::fabs(hv[d] * dr[d]);
          acc[c] += weight * ys, mag[c] += std::fabs(weight) * ms;
        }
      }
      for (int c = 0; c < hid; ++c)
        r.out[std::size_t(t) * hid + c] = round_to<T>(acc[c]), r.magnitude[std::size_t(t) * hid + c] = mag[c];
    }
  });
  return r;
}

template <class T, class Fp8>
moe_blockscale_up_result reference_moe_blockscale_up(const ops::moe::problem& p, const moe_blockscale_input<Fp8>& x,
                                                     const std::vector<int>& ids,
                                                     const moe_blockscale_weights<Fp8>& w) {
  const int hid = p.hidden, dim = p.expert_dim;
  const bool kc = p.weight_order == layout::k_contiguous;
  const std::vector<bool> used = detail::used_experts(p, ids);
  std::vector<std::vector<double>> gate(p.local_experts), up(p.local_experts);
  for (int e = 0; e < p.local_experts; ++e)
    if (used[e])
      gate[e] = detail::dequantize_nk(w.gate[e], dim, hid, kc), up[e] = detail::dequantize_nk(w.up[e], dim, hid, kc);
  const bool per_token = x.scaling == ops::moe::scale_granularity::row;
  return reference_moe_up_dequantized<T>(
      p,
      [&](int t, std::vector<double>& xv) {
        for (int k = 0; k < hid; ++k)
          xv[k] = double(to_float(x.q[std::size_t(t) * hid + k])) *
                  x.scale[per_token ? std::size_t(t) : std::size_t(t) * (hid / 128) + k / 128];
      },
      ids, gate, up);
}

// h_q[s]: slot s's quantized gated product ([expert_dim] codes, [expert_dim/128] scales), empty for
// slots without a local expert.
template <class T, class Fp8>
moe_reference_result reference_moe_blockscale_down(const ops::moe::problem& p,
                                                   const std::vector<blockscale_tensor<Fp8>>& h_q,
                                                   const std::vector<int>& ids, const std::vector<float>& weights,
                                                   const moe_blockscale_weights<Fp8>& w) {
  const bool kc = p.weight_order == layout::k_contiguous;
  const std::vector<bool> used = detail::used_experts(p, ids);
  std::vector<std::vector<double>> down(p.local_experts);
  for (int e = 0; e < p.local_experts; ++e)
    if (used[e]) down[e] = detail::dequantize_nk(w.down[e], p.hidden, p.expert_dim, kc);
  return reference_moe_down_dequantized<T>(
      p, [&](std::size_t s, int d) { return double(h_q[s].value_at(0, d)); }, ids, weights, down);
}

}  // namespace wavekit::host
