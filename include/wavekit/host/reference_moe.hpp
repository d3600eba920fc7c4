// Host reference of the MoE layer after routing (ops/moe/problem.hpp states it): per token, per
// choice whose expert is local, gate and up projections, SiLU(gate) * up, the down projection times
// the routing weight, summed over the choices. Dot products in double; rounded to T where the device
// rounds (docs/moe.md): the gated product (from the unrounded gate and up) and the output (the
// weighted sum, never its terms), so what remains between the two is the order of fp32
// accumulation and the roundings it can flip (test/support/moe_case.hpp bounds it).
//
// Fast enough for amd-mixture-of-experts' full sizes: each expert's weights are widened to fp32
// once, every loop runs along contiguous memory in either storage order, and threads split the
// tokens.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <thread>
#include <vector>

#include "wavekit/core/float_codec.hpp"
#include "wavekit/core/half_convert.hpp"
#include "wavekit/core/layout.hpp"
#include "wavekit/ops/moe/problem.hpp"

namespace wavekit::host {

template <class T>
struct moe_reference_weights {
  std::vector<std::vector<T>> gate, up, down;  // [local expert] in the problem's weight order
};

struct moe_reference_result {
  std::vector<double> out;        // [tokens][hidden], rounded to T
  std::vector<double> magnitude;  // [tokens][hidden]: sum over choices of |w| sum_d |h_d| |down_dc|
};

template <class T>
double round_to(double v) {
  return widen_to_float(T::from_bits(half_bits_rne<T>(static_cast<float>(v))));
}

template <class T>
moe_reference_result reference_moe(const ops::moe::problem& p, const std::vector<T>& x, const std::vector<int>& ids,
                                   const std::vector<float>& weights, const moe_reference_weights<T>& w) {
  const int hid = p.hidden, dim = p.expert_dim;
  const bool kc = p.weight_order == layout::k_contiguous;
  auto widen_all = [](const std::vector<T>& m) {
    std::vector<float> f(m.size());
    for (std::size_t i = 0; i < m.size(); ++i) f[i] = widen_to_float(m[i]);
    return f;
  };
  // Only the experts some token chose (the others may hold no tensor).
  std::vector<bool> used(p.local_experts, false);
  for (int id : ids)
    if (id >= p.expert_begin && id < p.expert_begin + p.local_experts) used[id - p.expert_begin] = true;
  std::vector<std::vector<float>> gate(p.local_experts), up(p.local_experts), down(p.local_experts);
  for (int e = 0; e < p.local_experts; ++e)
    if (used[e]) gate[e] = widen_all(w.gate[e]), up[e] = widen_all(w.up[e]), down[e] = widen_all(w.down[e]);

  moe_reference_result r;
  r.out.assign(std::size_t(p.tokens) * hid, 0.0);
  r.magnitude.assign(r.out.size(), 0.0);
  auto token_range = [&](int begin, int end) {
    std::vector<double> xv(hid), g(dim), u(dim), h(dim), y(hid), m(hid), acc(hid), mag(hid);
    for (int t = begin; t < end; ++t) {
      for (int k = 0; k < hid; ++k) xv[k] = widen_to_float(x[std::size_t(t) * hid + k]);
      std::fill(acc.begin(), acc.end(), 0.0);
      std::fill(mag.begin(), mag.end(), 0.0);
      for (int j = 0; j < p.top_k; ++j) {
        const int e = ids[std::size_t(t) * p.top_k + j] - p.expert_begin;
        if (e < 0 || e >= p.local_experts) continue;
        const double weight = weights[std::size_t(t) * p.top_k + j];
        const float *wg = gate[e].data(), *wu = up[e].data(), *wd = down[e].data();
        // Gate and up: [hidden][dim] rows scaled by x[k] (mn), or one dot per column (k).
        if (kc) {
          for (int n = 0; n < dim; ++n) {
            double gs = 0.0, us = 0.0;
            const float *gr = wg + std::size_t(n) * hid, *ur = wu + std::size_t(n) * hid;
            for (int k = 0; k < hid; ++k) gs += xv[k] * gr[k], us += xv[k] * ur[k];
            g[n] = gs, u[n] = us;
          }
        } else {
          std::fill(g.begin(), g.end(), 0.0);
          std::fill(u.begin(), u.end(), 0.0);
          for (int k = 0; k < hid; ++k) {
            const double xk = xv[k];
            const float *gr = wg + std::size_t(k) * dim, *ur = wu + std::size_t(k) * dim;
            for (int n = 0; n < dim; ++n) g[n] += xk * gr[n], u[n] += xk * ur[n];
          }
        }
        for (int n = 0; n < dim; ++n) h[n] = round_to<T>(g[n] / (1.0 + std::exp(-g[n])) * u[n]);
        // Down: [dim][hidden] rows scaled by h[d] (mn), or one dot per output column (k).
        if (kc) {
          for (int c = 0; c < hid; ++c) {
            double ys = 0.0, ms = 0.0;
            const float* dr = wd + std::size_t(c) * dim;
            for (int d = 0; d < dim; ++d) ys += h[d] * dr[d], ms += std::fabs(h[d] * dr[d]);
            y[c] = ys, m[c] = ms;
          }
        } else {
          std::fill(y.begin(), y.end(), 0.0);
          std::fill(m.begin(), m.end(), 0.0);
          for (int d = 0; d < dim; ++d) {
            const double hd = h[d], ad = std::fabs(hd);
            const float* dr = wd + std::size_t(d) * hid;
            for (int c = 0; c < hid; ++c) y[c] += hd * dr[c], m[c] += ad * std::fabs(dr[c]);
          }
        }
        for (int c = 0; c < hid; ++c) acc[c] += weight * y[c], mag[c] += std::fabs(weight) * m[c];
      }
      for (int c = 0; c < hid; ++c)
        r.out[std::size_t(t) * hid + c] = round_to<T>(acc[c]), r.magnitude[std::size_t(t) * hid + c] = mag[c];
    }
  };
  const int threads = std::max(1, std::min<int>(static_cast<int>(std::thread::hardware_concurrency()), p.tokens));
  std::vector<std::thread> pool;
  const int per = (p.tokens + threads - 1) / threads;
  for (int b = 0; b < p.tokens; b += per) pool.emplace_back(token_range, b, std::min(p.tokens, b + per));
  for (auto& th : pool) th.join();
  return r;
}

}  // namespace wavekit::host
