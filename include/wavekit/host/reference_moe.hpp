// Host reference of the MoE layer after routing (ops/moe/problem.hpp states it): per token, per
// choice whose expert is local, gate and up projections, SiLU(gate) * up, the down projection times
// the routing weight, summed over the choices. Dot products in double; the intermediates the device
// keeps in T (gate, the gated product, each weighted down projection) and the output are rounded to
// T at the same points, so what remains between the two is the order of fp32 accumulation and the
// roundings it can flip (test/support/moe_case.hpp bounds it). Threads split the tokens.
#pragma once

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
  // W[e] as a function of (k, n): gate/up k over hidden, n over expert_dim; down k over expert_dim.
  auto gate_up = [&](const std::vector<T>& m, int k, int n) {
    return double(widen_to_float(m[kc ? std::size_t(n) * hid + k : std::size_t(k) * dim + n]));
  };
  auto down_w = [&](const std::vector<T>& m, int k, int n) {
    return double(widen_to_float(m[kc ? std::size_t(n) * dim + k : std::size_t(k) * hid + n]));
  };
  moe_reference_result r;
  r.out.assign(std::size_t(p.tokens) * hid, 0.0);
  r.magnitude.assign(r.out.size(), 0.0);
  auto token_range = [&](int begin, int end) {
    std::vector<double> xv(hid), h(dim), acc(hid), mag(hid);
    for (int t = begin; t < end; ++t) {
      for (int k = 0; k < hid; ++k) xv[k] = widen_to_float(x[std::size_t(t) * hid + k]);
      std::fill(acc.begin(), acc.end(), 0.0);
      std::fill(mag.begin(), mag.end(), 0.0);
      for (int j = 0; j < p.top_k; ++j) {
        const int e = ids[std::size_t(t) * p.top_k + j] - p.expert_begin;
        if (e < 0 || e >= p.local_experts) continue;
        const double weight = weights[std::size_t(t) * p.top_k + j];
        for (int n = 0; n < dim; ++n) {
          double g = 0.0, u = 0.0;
          for (int k = 0; k < hid; ++k) g += xv[k] * gate_up(w.gate[e], k, n), u += xv[k] * gate_up(w.up[e], k, n);
          const double gt = round_to<T>(g);
          h[n] = round_to<T>(gt / (1.0 + std::exp(-gt)) * u);
        }
        for (int c = 0; c < hid; ++c) {
          double y = 0.0, m = 0.0;
          for (int n = 0; n < dim; ++n) {
            const double d = down_w(w.down[e], n, c);
            y += h[n] * d, m += std::fabs(h[n] * d);
          }
          acc[c] += round_to<T>(weight * y);
          mag[c] += std::fabs(weight) * m;
        }
      }
      for (int c = 0; c < hid; ++c)
        r.out[std::size_t(t) * hid + c] = round_to<T>(acc[c]), r.magnitude[std::size_t(t) * hid + c] = mag[c];
    }
  };
  const int threads = std::max(1, std::min<int>(static_cast<int>(std::thread::hardware_concurrency()), p.tokens));
  std::vector<std::thread> pool;
  const int per = threads ? (p.tokens + threads - 1) / threads : 0;
  for (int b = 0; b < p.tokens; b += per) pool.emplace_back(token_range, b, std::min(p.tokens, b + per));
  for (auto& th : pool) th.join();
  return r;
}

}  // namespace wavekit::host
