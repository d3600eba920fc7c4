// host::reference_mla_decode, the MLA decode kernels' reference, checked where its answer is known
// in closed form: no rows (zeros, lse -inf), one row (that row's values, lse = its score), equal
// keys (the mean of the values, lse = score + log n), causal visibility for several queries of one
// sequence (speculative decoding), a row order that does not matter, and refused inputs.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>
#include <vector>

#include "wavekit/host/reference_mla_decode.hpp"

using wavekit::host::mla_qk_dim;
using wavekit::host::mla_v_dim;
using wavekit::host::reference_mla_decode;

namespace {

std::vector<float> random_values(std::size_t n, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> d(0.0f, 1.0f);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

}  // namespace

TEST_CASE("reference_mla_decode: closed forms", "[unit][mla]") {
  const int heads = 3;
  const float scale = 1.0f / std::sqrt(576.0f);
  // Sequence 0: no rows; 1: one row; 2: four equal rows.
  const std::vector<float> q = random_values(std::size_t(3) * heads * mla_qk_dim, 1);
  const std::vector<float> one = random_values(mla_qk_dim, 2), same = random_values(mla_qk_dim, 3);
  auto kv_row = [&](int b, int) { return b == 1 ? one.data() : same.data(); };
  const auto r = reference_mla_decode(q, heads, {0, 1, 2, 3}, {0, 1, 4}, scale, kv_row);
  for (int h = 0; h < heads; ++h) {
    CHECK(r.lse[h] == -std::numeric_limits<double>::infinity());
    for (int d = 0; d < mla_v_dim; ++d) CHECK(r.out[std::size_t(h) * mla_v_dim + d] == 0.0);
    double s1 = 0, s2 = 0;
    for (int c = 0; c < mla_qk_dim; ++c) {
      s1 += double(q[(std::size_t(1) * heads + h) * mla_qk_dim + c]) * one[c];
      s2 += double(q[(std::size_t(2) * heads + h) * mla_qk_dim + c]) * same[c];
    }
    CHECK(r.lse[heads + h] == Approx(s1 * scale).epsilon(1e-12));
    CHECK(r.lse[2 * heads + h] == Approx(s2 * scale + std::log(4.0)).epsilon(1e-12));
    for (int d = 0; d < mla_v_dim; ++d) {
      CHECK(r.out[(std::size_t(heads) + h) * mla_v_dim + d] == Approx(one[d]).epsilon(1e-12));
      CHECK(r.out[(std::size_t(2) * heads + h) * mla_v_dim + d] == Approx(same[d]).epsilon(1e-12));
      CHECK(r.magnitude[(std::size_t(2) * heads + h) * mla_v_dim + d] == Approx(std::fabs(same[d])).epsilon(1e-12));
    }
  }
}

TEST_CASE("reference_mla_decode: queries of one sequence see the rows before them", "[unit][mla]") {
  // Three new tokens over ten rows: query i sees 8 + i rows, so it equals a one-query problem over
  // those rows.
  const int heads = 2, kv_len = 10, q_len = 3;
  const std::vector<float> q = random_values(std::size_t(q_len) * heads * mla_qk_dim, 4);
  const std::vector<float> kv = random_values(std::size_t(kv_len) * mla_qk_dim, 5);
  auto kv_row = [&](int, int j) { return kv.data() + std::size_t(j) * mla_qk_dim; };
  const auto all = reference_mla_decode(q, heads, {0, q_len}, {kv_len}, 0.05f, kv_row);
  for (int i = 0; i < q_len; ++i) {
    const std::vector<float> qi(q.begin() + std::size_t(i) * heads * mla_qk_dim,
                                q.begin() + std::size_t(i + 1) * heads * mla_qk_dim);
    const auto one = reference_mla_decode(qi, heads, {0, 1}, {kv_len - q_len + 1 + i}, 0.05f, kv_row);
    for (int h = 0; h < heads; ++h) {
      CHECK(all.lse[std::size_t(i) * heads + h] == one.lse[h]);
      for (int d = 0; d < mla_v_dim; ++d)
        CHECK(all.out[(std::size_t(i) * heads + h) * mla_v_dim + d] == one.out[std::size_t(h) * mla_v_dim + d]);
    }
  }
}

TEST_CASE("reference_mla_decode: the order of the rows does not matter, bad inputs are refused", "[unit][mla]") {
  const int heads = 4, kv_len = 33;
  const std::vector<float> q = random_values(std::size_t(heads) * mla_qk_dim, 6);
  const std::vector<float> kv = random_values(std::size_t(kv_len) * mla_qk_dim, 7);
  std::vector<int> order(kv_len);
  for (int j = 0; j < kv_len; ++j) order[j] = (j * 7) % kv_len;  // a permutation (7 and 33 coprime)
  const auto a = reference_mla_decode(q, heads, {0, 1}, {kv_len}, 0.04f,
                                      [&](int, int j) { return kv.data() + std::size_t(j) * mla_qk_dim; });
  const auto b = reference_mla_decode(q, heads, {0, 1}, {kv_len}, 0.04f,
                                      [&](int, int j) { return kv.data() + std::size_t(order[j]) * mla_qk_dim; });
  for (std::size_t i = 0; i < a.out.size(); ++i) CHECK(a.out[i] == Approx(b.out[i]).margin(1e-12));
  for (std::size_t i = 0; i < a.lse.size(); ++i) CHECK(a.lse[i] == Approx(b.lse[i]).epsilon(1e-12));
  auto row = [&](int, int j) { return kv.data() + std::size_t(j) * mla_qk_dim; };
  CHECK_THROWS_AS(reference_mla_decode(q, heads, {0}, {kv_len}, 0.04f, row), std::invalid_argument);
  CHECK_THROWS_AS(reference_mla_decode(q, heads, {0, 1}, {-1}, 0.04f, row), std::invalid_argument);
  CHECK_THROWS_AS(reference_mla_decode(q, heads, {1, 0}, {kv_len}, 0.04f, row), std::invalid_argument);
  CHECK_THROWS_AS(reference_mla_decode(q, heads + 1, {0, 1}, {kv_len}, 0.04f, row), std::invalid_argument);
}
