// host::reference_moe_mx_fused (aiter's fused a4w4 MoE path) on layers small enough to compute by
// hand: one token, one local expert, x and weights whose MX forms are exact. G is placed where
// rounding it to bf16 first moves H's block amax across a scale boundary (the old pipeline's
// rounding, round_gate_to_T, must change the output); ties in x and in H change the output
// between the two element roundings. Then a random layer against a plain recomputation from the
// dequantized tensors (threads, several experts, non-local ids, MXFP4 and MXFP8, bf16 and fp16).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "wavekit/host/reference_moe_mx_fused.hpp"

using namespace wavekit;
using namespace wavekit::host;

namespace {

// An MX tensor holding exactly the values of f ([rows][cols]); each 32-column block's amax must be
// the block's largest value times 2^k for an element value (6, 4 or 3 for e2m1).
template <class Elem = fp4_e2m1>
mx_tensor<Elem> exact_mx(const std::vector<float>& f, int rows, int cols) {
  mx_tensor<Elem> t = quantize_mx<Elem>(f, rows, cols);
  REQUIRE(dequantize(t) == f);
  return t;
}

struct layer {
  ops::moe::problem p;
  std::vector<float> x, gate, up, down;  // x [tokens][hidden]; expert 0's gate, up [dim][hidden], down [hidden][dim]
  std::vector<int> ids;
  std::vector<float> weights;

  layer(int hidden, int dim, std::vector<int> ids_, std::vector<float> weights_)
      : p{1, hidden, dim, 2, static_cast<int>(ids_.size()), 0, 1, layout::k_contiguous},
        x(hidden, 0.0f),
        gate(std::size_t(dim) * hidden, 0.0f),
        up(gate.size(), 0.0f),
        down(gate.size(), 0.0f),
        ids(std::move(ids_)),
        weights(std::move(weights_)) {}
  float& g(int n, int k) { return gate[std::size_t(n) * p.hidden + k]; }
  float& u(int n, int k) { return up[std::size_t(n) * p.hidden + k]; }
  float& d(int c, int n) { return down[std::size_t(c) * p.expert_dim + n]; }

  moe_mx_fused_result run(moe_mx_fused_options o = {}) const {
    moe_mx_weights<fp4_e2m1> w;
    w.gate = {exact_mx(gate, p.expert_dim, p.hidden)};
    w.up = {exact_mx(up, p.expert_dim, p.hidden)};
    w.down = {exact_mx(down, p.hidden, p.expert_dim)};
    return reference_moe_mx_fused<bf16>(p, x, ids, weights, w, o);
  }
};

}  // namespace

TEST_CASE("reference_moe_mx_fused: rounding G to bf16 first moves H's MX scale", "[host][moe][mx]") {
  // x: block 0 at scale 1 (6, 4), block 1 at scale 2^-5 (6/32, 1/32). Row 0:
  //   G = 6*6 + 4*2 + (6/32)*3 + (1/32)*3 = 44.65625 (bf16: 44.75), U = 4*0.25 + (1/32)*8 = 1.25;
  //   SiLU(G) = G in fp32 (e^-G < 2^-24), so H = bf16(G * U) = bf16(55.8203125) = 55.75, mantissa
  //   below 0.75: H's block scale 2^3, H_q = 6 * 8 = 48 (6.97 saturates). Rounded first:
  //   bf16(44.75 * 1.25 = 55.9375) = 56 = 1.75 * 32 carries: scale 2^4, H_q = 4 * 16 = 64.
  // Row 1: G = 6*4 + 4*2 = 32, U = (1/32)*4 = 0.125, H = 4: at scale 2^3 it is 0.5 * 8 = 4; at 2^4
  //   it is the tie 0.25, away from zero 0.5 * 16 = 8 (to even: 0).
  // Down: out[c] = 0.5 * H_q[c] for c < 2; the second choice's expert is not local.
  layer l(64, 32, {0, 1}, {0.5f, 0.75f});
  l.x[0] = 6, l.x[1] = 4, l.x[32] = 6.0f / 32, l.x[33] = 1.0f / 32;
  l.g(0, 0) = 6, l.g(0, 1) = 2, l.g(0, 32) = 3, l.g(0, 33) = 3;
  l.u(0, 1) = 0.25f, l.u(0, 33) = 8;
  l.g(1, 0) = 4, l.g(1, 1) = 2, l.u(1, 33) = 4;
  l.d(0, 0) = 1, l.d(1, 1) = 1;
  const moe_mx_fused_result fused = l.run();
  CHECK(fused.gate[0][0] == 44.65625f);
  CHECK(fused.up[0][0] == 1.25f);
  CHECK(fused.h[0][0] == 55.75f);
  CHECK(fused.h[0][1] == 4.0f);
  CHECK(fused.h[1].empty());  // the choice of a non-local expert
  CHECK(fused.out[0] == 24.0f);
  CHECK(fused.out[1] == 2.0f);
  for (int c = 2; c < 64; ++c) CHECK(fused.out[c] == 0.0f);

  const moe_mx_fused_result old = l.run({.round_gate_to_T = true});
  CHECK(old.h[0][0] == 56.0f);
  CHECK(old.out[0] == 32.0f);
  CHECK(old.out[1] == 4.0f);
}

TEST_CASE("reference_moe_mx_fused: ties in x and in H under the two element roundings", "[host][moe][mx]") {
  // x = (6, 2.5, 1, -0.25, ...) at scale 1: 2.5 and -0.25 are e2m1 ties (to even 2 and -0, away 3
  // and -0.5). Row 0: G = 16 x_1, U = x_2 + 4 x_3: to even G = 32, U = 1; away G = 48, U = -1.
  // Row 1: G = 3 x_0 + 2 x_2 = 20, U = x_2 = 1: H = 20, 2.5 at H's scale 2^3 (amax 32 or 48): a tie.
  layer l(32, 32, {0}, {1.0f});
  l.x[0] = 6, l.x[1] = 2.5f, l.x[2] = 1, l.x[3] = -0.25f;
  l.g(0, 1) = 16, l.u(0, 2) = 1, l.u(0, 3) = 4;
  l.g(1, 0) = 3, l.g(1, 2) = 2, l.u(1, 2) = 1;
  l.d(0, 0) = 1, l.d(1, 1) = 1;
  constexpr auto even = mx_rounding::nearest_even, away = mx_rounding::ties_away_from_zero;
  const auto ee = l.run({.x_rounding = even, .h_rounding = even});
  const auto ea = l.run({.x_rounding = even, .h_rounding = away});
  const auto ae = l.run({.x_rounding = away, .h_rounding = even});
  const auto aa = l.run();  // the fused path's: ties away for both
  CHECK(ee.h[0][0] == 32.0f);
  CHECK(aa.h[0][0] == -48.0f);
  CHECK(ee.h[0][1] == 20.0f);
  CHECK(ee.out[0] == 32.0f);
  CHECK(ee.out[1] == 16.0f);  // 20 / 8 = 2.5 to even: 2
  CHECK(ea.out[0] == 32.0f);
  CHECK(ea.out[1] == 24.0f);  // away: 3
  CHECK(ae.out[0] == -48.0f);
  CHECK(ae.out[1] == 16.0f);
  CHECK(aa.out[0] == -48.0f);
  CHECK(aa.out[1] == 24.0f);
}

namespace {

// The same layer recomputed from the dequantized tensors, one slot at a time.
template <class T, class Elem>
std::vector<float> plain_fused(const ops::moe::problem& p, const std::vector<float>& x, const std::vector<int>& ids,
                               const std::vector<float>& weights, const moe_mx_weights<Elem>& w) {
  const std::vector<float> xq = dequantize(quantize_mx<Elem>(x, p.tokens, p.hidden, mx_rounding::ties_away_from_zero));
  std::vector<float> out(x.size());
  for (int t = 0; t < p.tokens; ++t) {
    std::vector<float> acc(p.hidden, 0.0f);
    for (int j = 0; j < p.top_k; ++j) {
      const int e = ids[t * p.top_k + j] - p.expert_begin;
      if (e < 0 || e >= p.local_experts) continue;
      const std::vector<float> g = dequantize(w.gate[e]), u = dequantize(w.up[e]), d = dequantize(w.down[e]);
      std::vector<float> h(p.expert_dim);
      for (int n = 0; n < p.expert_dim; ++n) {
        double gs = 0, us = 0;
        for (int k = 0; k < p.hidden; ++k)
          gs += double(xq[t * p.hidden + k]) * g[n * p.hidden + k],
              us += double(xq[t * p.hidden + k]) * u[n * p.hidden + k];
        const float gf = static_cast<float>(gs), uf = static_cast<float>(us);
        h[n] = widen_to_float(T::from_bits(half_bits_rne<T>(gf / (1.0f + std::exp(-gf)) * uf)));
      }
      const std::vector<float> hq = dequantize(quantize_mx<Elem>(h, 1, p.expert_dim, mx_rounding::ties_away_from_zero));
      for (int c = 0; c < p.hidden; ++c) {
        double ys = 0;
        for (int n = 0; n < p.expert_dim; ++n) ys += double(hq[n]) * d[c * p.expert_dim + n];
        const float term = weights[t * p.top_k + j] * static_cast<float>(ys);
        acc[c] += term;
      }
    }
    for (int c = 0; c < p.hidden; ++c) out[t * p.hidden + c] = widen_to_float(T::from_bits(half_bits_rne<T>(acc[c])));
  }
  return out;
}

template <class T, class Elem>
void check_random_layer(std::uint32_t seed) {
  // 5 tokens, top 3 of 6 experts, local experts [1, 5): ids 0 and 5 contribute nothing.
  const ops::moe::problem p{5, 96, 64, 6, 3, 1, 4, layout::k_contiguous};
  std::mt19937 rng(seed);
  std::normal_distribution<float> n(0.0f, 1.0f);
  auto values = [&](std::size_t count, float scale) {
    std::vector<float> v(count);
    for (float& f : v) f = widen_to_float(T::from_bits(half_bits_rne<T>(n(rng) * scale)));
    return v;
  };
  const std::vector<float> x = values(std::size_t(p.tokens) * p.hidden, 1.0f);
  moe_mx_weights<Elem> w;
  for (int e = 0; e < p.local_experts; ++e) {
    w.gate.push_back(quantize_mx<Elem>(values(std::size_t(p.expert_dim) * p.hidden, 0.1f), p.expert_dim, p.hidden));
    w.up.push_back(quantize_mx<Elem>(values(std::size_t(p.expert_dim) * p.hidden, 0.1f), p.expert_dim, p.hidden));
    w.down.push_back(quantize_mx<Elem>(values(std::size_t(p.hidden) * p.expert_dim, 0.1f), p.hidden, p.expert_dim));
  }
  std::vector<int> ids(std::size_t(p.tokens) * p.top_k);
  std::vector<float> weights(ids.size());
  for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<int>(rng() % 6), weights[i] = 0.25f + 0.1f * n(rng);
  const moe_mx_fused_result r = reference_moe_mx_fused<T, Elem>(p, x, ids, weights, w);
  CHECK(r.out == plain_fused<T, Elem>(p, x, ids, weights, w));
  CHECK(std::count(r.out.begin(), r.out.end(), 0.0f) < static_cast<long>(r.out.size() / 4));
  for (std::size_t s = 0; s < ids.size(); ++s) CHECK(r.h[s].empty() == (ids[s] < 1 || ids[s] >= 5));
}

}  // namespace

TEST_CASE("reference_moe_mx_fused: a random layer equals a plain recomputation", "[host][moe][mx]") {
  check_random_layer<bf16, fp4_e2m1>(1);
  check_random_layer<fp16, fp4_e2m1>(2);
  check_random_layer<bf16, fp8_e4m3fn>(3);
}

TEST_CASE("reference_moe_mx_fused: bad input is refused with a message", "[host][moe][mx]") {
  layer l(32, 32, {0}, {1.0f});
  l.x[0] = 1.0f + 1.0f / 1024;  // not a bf16 value
  CHECK_THROWS_WITH(l.run(), Catch::Contains("x[0] = 1.000977 is not a value of T"));
  l.x[0] = 1;
  moe_mx_weights<fp4_e2m1> w;
  w.gate = w.up = w.down = {exact_mx(l.gate, 32, 32)};
  w.down[0].rows = 16;
  CHECK_THROWS_WITH(reference_moe_mx_fused<bf16>(l.p, l.x, l.ids, l.weights, w),
                    Catch::Contains("local expert 0's weights are not"));
  CHECK_THROWS_WITH(reference_moe_mx_fused<bf16>(l.p, l.x, {0, 0}, l.weights, w),
                    Catch::Contains("ids and weights must be [tokens][top_k]"));
}
