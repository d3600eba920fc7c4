// Host reference of one MLA decode layer as amd-mla-decode defines it (shared/reference/problems.md,
// the 2025 problem): DeepSeek's attention in its plain, un-absorbed form, every tensor rounded to
// bf16 where the problem's PyTorch reference holds it in bf16, for checking a composed layer:
//
//   q_lora = x Wq_down^T        kv_lora = x Wkv_down^T       (both bf16)
//   cache[b][prefill] = kv_lora (the cache keeps the latent row and its rope part un-rotated)
//   q = q_lora Wq_up^T, per head [q_nope 128 | q_rope 64]; q_rope rotated at position prefill
//   per cache row j: [k_nope | v] per head = c_kv_j Wkv_up^T (bf16), k_rope = rotate(row's rope
//     part, position j), shared by the heads
//   s = bf16(bf16(q . k) / sqrt(192)), p = bf16(softmax(s)), o_h = bf16(p . v), y = bf16(o Wo^T)
//
// RoPE as the problem's reference builds it, in bf16 at every step: theta_i = bf16(10000^(-i/32)),
// angle = bf16(bf16(position) theta_i) (the position is cast to bf16 first, so 513 becomes 514),
// c = bf16(cos angle), s = bf16(sin angle); rotate(x) = [x1 c - x2 s | x2 c + x1 s] with each
// product and each sum rounded to bf16 (x1, x2 the two halves). mla_rope_table holds c and s for
// the device code to share.
//
// Linear layers accumulate in double and round once (the device's fp32 sums are within the
// problem's tolerance of that). Sequences are independent: `check` names the ones to compute (a
// full-size layer has 128 of up to 8192 rows each; a few suffice), a thread each.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <thread>
#include <vector>

#include "wavekit/core/float_codec.hpp"
#include "wavekit/core/half_convert.hpp"
#include "wavekit/core/numeric_types.hpp"

namespace wavekit::host {

struct mla_layer_config {
  int batch, dim, q_lora, heads;
  int prefill;  // rows already in each sequence's cache; the new token's position
  int max_seq;  // rows of each sequence's cache
  static constexpr int kv_lora = 512, nope = 128, rope = 64, v = 128;
  int q_head() const { return nope + rope; }
  int kv_head() const { return nope + v; }
};

// bf16 values (as floats), row-major [out][in] like nn.Linear's weights.
struct mla_layer_weights {
  std::vector<float> q_down;   // [q_lora][dim]
  std::vector<float> kv_down;  // [kv_lora + rope][dim]
  std::vector<float> q_up;     // [heads * (nope + rope)][q_lora]
  std::vector<float> kv_up;    // [heads * (nope + v)][kv_lora]
  std::vector<float> wo;       // [dim][heads * v]
};

inline float round_to_bf16(double x) { return widen_to_float(saturate_cast<bf16>(static_cast<float>(x))); }

// cos and sin of the problem's RoPE: [position][rope / 2], bf16 values.
struct mla_rope_table {
  int half = mla_layer_config::rope / 2;
  std::vector<float> cos, sin;
  explicit mla_rope_table(int positions) : cos(std::size_t(positions) * half), sin(cos.size()) {
    for (int i = 0; i < half; ++i) {
      const float theta = round_to_bf16(std::pow(10000.0f, -static_cast<float>(i) / static_cast<float>(half)));
      for (int p = 0; p < positions; ++p) {
        const float angle = round_to_bf16(static_cast<double>(round_to_bf16(p)) * theta);
        cos[std::size_t(p) * half + i] = round_to_bf16(std::cos(angle));
        sin[std::size_t(p) * half + i] = round_to_bf16(std::sin(angle));
      }
    }
  }
  // x[0 .. rope) rotated to position p into out (the reference's bf16 steps).
  void rotate(const float* x, int p, float* out) const {
    for (int i = 0; i < half; ++i) {
      const float c = cos[std::size_t(p) * half + i], s = sin[std::size_t(p) * half + i];
      const float x1 = x[i], x2 = x[i + half];
      out[i] = round_to_bf16(static_cast<double>(round_to_bf16(double(x1) * c)) - round_to_bf16(double(x2) * s));
      out[i + half] = round_to_bf16(static_cast<double>(round_to_bf16(double(x2) * c)) + round_to_bf16(double(x1) * s));
    }
  }
};

// out[r] = bf16(sum_k in[k] w[r][k]) for r < rows.
inline void linear_bf16(const float* in, const float* w, int rows, int k, float* out) {
  for (int r = 0; r < rows; ++r) {
    double acc = 0;
    for (int i = 0; i < k; ++i) acc += double(in[i]) * w[std::size_t(r) * k + i];
    out[r] = round_to_bf16(acc);
  }
}

// One decode step: x [batch][dim], cache [batch][max_seq][576] (rows < prefill filled; row prefill
// is written here, for every sequence). Returns y [batch][dim] for the sequences in `check` (the
// other rows stay 0).
inline std::vector<float> reference_mla_layer(const mla_layer_config& c, const mla_layer_weights& w,
                                              const std::vector<float>& x, std::vector<float>& cache,
                                              const std::vector<int>& check) {
  constexpr int row_dim = mla_layer_config::kv_lora + mla_layer_config::rope;
  const int n = c.prefill + 1, qh = c.q_head(), kvh = c.kv_head(), nope = c.nope, rope = c.rope;
  const mla_rope_table table(n);
  // The cache append: every sequence's new row.
  for (int b = 0; b < c.batch; ++b)
    linear_bf16(&x[std::size_t(b) * c.dim], w.kv_down.data(), row_dim, c.dim,
                &cache[(std::size_t(b) * c.max_seq + c.prefill) * row_dim]);
  std::vector<float> y(std::size_t(c.batch) * c.dim, 0.0f);
  auto sequence = [&](int b) {
    std::vector<float> ql(c.q_lora), q(std::size_t(c.heads) * qh), qr(std::size_t(c.heads) * rope);
    linear_bf16(&x[std::size_t(b) * c.dim], w.q_down.data(), c.q_lora, c.dim, ql.data());
    linear_bf16(ql.data(), w.q_up.data(), c.heads * qh, c.q_lora, q.data());
    for (int h = 0; h < c.heads; ++h) table.rotate(&q[std::size_t(h) * qh + nope], n - 1, &qr[std::size_t(h) * rope]);
    // Each cache row: its heads' k_nope and v, and its rotated rope part.
    std::vector<float> kv(std::size_t(n) * c.heads * kvh), kr(std::size_t(n) * rope);
    for (int j = 0; j < n; ++j) {
      const float* row = &cache[(std::size_t(b) * c.max_seq + j) * row_dim];
      linear_bf16(row, w.kv_up.data(), c.heads * kvh, c.kv_lora, &kv[std::size_t(j) * c.heads * kvh]);
      table.rotate(row + c.kv_lora, j, &kr[std::size_t(j) * rope]);
    }
    std::vector<float> o(std::size_t(c.heads) * c.v), p(n);
    for (int h = 0; h < c.heads; ++h) {
      double max = -INFINITY;
      for (int j = 0; j < n; ++j) {
        const float* kn = &kv[(std::size_t(j) * c.heads + h) * kvh];
        double dot = 0;
        for (int d = 0; d < nope; ++d) dot += double(q[std::size_t(h) * qh + d]) * kn[d];
        for (int d = 0; d < rope; ++d) dot += double(qr[std::size_t(h) * rope + d]) * kr[std::size_t(j) * rope + d];
        p[j] = round_to_bf16(static_cast<float>(round_to_bf16(dot)) / static_cast<float>(std::sqrt(double(qh))));
        max = std::max<double>(max, p[j]);
      }
      double sum = 0;
      std::vector<double> e(n);
      for (int j = 0; j < n; ++j) sum += e[j] = std::exp(double(p[j]) - max);
      for (int j = 0; j < n; ++j) p[j] = round_to_bf16(e[j] / sum);
      for (int d = 0; d < c.v; ++d) {
        double acc = 0;
        for (int j = 0; j < n; ++j) acc += double(p[j]) * kv[(std::size_t(j) * c.heads + h) * kvh + nope + d];
        o[std::size_t(h) * c.v + d] = round_to_bf16(acc);
      }
    }
    linear_bf16(o.data(), w.wo.data(), c.dim, c.heads * c.v, &y[std::size_t(b) * c.dim]);
  };
  std::vector<std::thread> pool;
  for (int b : check) pool.emplace_back(sequence, b);
  for (auto& t : pool) t.join();
  return y;
}

}  // namespace wavekit::host
