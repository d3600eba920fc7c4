// Host reference of MLA decode attention (DeepSeek's absorbed form, one latent KV head shared by
// every query head), in plain C++ for checking wavekit's decode kernels:
//
//   for sequence b, its query rows i (q_len of them) and head h:
//     s_j = sm_scale * q[i][h][0:576] . K_j[0:576]     j over the KV rows the query sees
//     p = softmax(s),  out[i][h][0:512] = sum_j p_j V_j,  V_j = K_j[0:512],  lse = log sum_j e^{s_j}
//
// Query i of a sequence sees its first kv_len - q_len + 1 + i rows (causal within the q_len new
// tokens of speculative decoding; every row when q_len = 1). With no row to see (kv_len = 0, say)
// the output is 0 and lse is -inf: the definition wavekit's kernels follow (never NaN).
//
// The caller supplies the rows: kv_row(b, j) returns the 576 dequantized values of sequence b's row j
// (whatever the cache layout: ragged rows or pages), so one reference serves every layout and KV
// format. Softmax in double, two passes (max, then sums); besides the output and lse it returns
// what an error bound needs: magnitude[i][h][d] = sum_j p_j |V_jd|, and for weights rounded with an
// absolute floor (fp8's subnormals) spread[i][h][d] = sum_j |V_jd| / sum_j e^{s_j - max_j s_j}.
// Threads split the sequences.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace wavekit::host {

inline constexpr int mla_qk_dim = 576, mla_v_dim = 512;

struct mla_reference_result {
  std::vector<double> out;        // [total_q][heads][512]
  std::vector<double> lse;        // [total_q][heads], natural log; -inf where no row is seen
  std::vector<double> magnitude;  // [total_q][heads][512]
  std::vector<double> spread;     // [total_q][heads][512]
};

// q: [total_q][heads][576] as floats; qo_indptr, kv_lens: per sequence (query rows
// [qo_indptr[b], qo_indptr[b+1]) and its KV length).
template <class KvRow>
mla_reference_result reference_mla_decode(const std::vector<float>& q, int heads, const std::vector<int>& qo_indptr,
                                          const std::vector<int>& kv_lens, float sm_scale, KvRow&& kv_row) {
  const int batch = static_cast<int>(kv_lens.size());
  if (static_cast<int>(qo_indptr.size()) != batch + 1)
    throw std::invalid_argument("reference_mla_decode: qo_indptr needs batch + 1 entries");
  const int total_q = qo_indptr[batch];
  if (q.size() != std::size_t(total_q) * heads * mla_qk_dim)
    throw std::invalid_argument("reference_mla_decode: q holds " + std::to_string(q.size()) + " values, expected " +
                                std::to_string(std::size_t(total_q) * heads * mla_qk_dim));
  for (int b = 0; b < batch; ++b)
    if (qo_indptr[b + 1] < qo_indptr[b] || kv_lens[b] < 0)
      throw std::invalid_argument("reference_mla_decode: sequence " + std::to_string(b) +
                                  " has a negative q_len or kv_len");
  mla_reference_result r;
  r.out.assign(std::size_t(total_q) * heads * mla_v_dim, 0.0);
  r.magnitude.assign(r.out.size(), 0.0);
  r.spread.assign(r.out.size(), 0.0);
  r.lse.assign(std::size_t(total_q) * heads, -std::numeric_limits<double>::infinity());
  auto sequences = [&](int begin, int end) {
    std::vector<double> s;
    for (int b = begin; b < end; ++b) {
      const int q_len = qo_indptr[b + 1] - qo_indptr[b];
      for (int i = 0; i < q_len; ++i) {
        const int row = qo_indptr[b] + i, seen = kv_lens[b] - q_len + 1 + i;
        if (seen <= 0) continue;
        for (int h = 0; h < heads; ++h) {
          const float* qv = q.data() + (std::size_t(row) * heads + h) * mla_qk_dim;
          s.assign(seen, 0.0);
          double max = -std::numeric_limits<double>::infinity();
          for (int j = 0; j < seen; ++j) {
            const float* k = kv_row(b, j);
            double dot = 0.0;
            for (int c = 0; c < mla_qk_dim; ++c) dot += double(qv[c]) * k[c];
            s[j] = dot * sm_scale;
            max = std::max(max, s[j]);
          }
          double sum = 0.0;
          for (int j = 0; j < seen; ++j) sum += (s[j] = std::exp(s[j] - max));
          double* o = r.out.data() + (std::size_t(row) * heads + h) * mla_v_dim;
          double* m = r.magnitude.data() + (std::size_t(row) * heads + h) * mla_v_dim;
          double* w = r.spread.data() + (std::size_t(row) * heads + h) * mla_v_dim;
          for (int j = 0; j < seen; ++j) {
            const double p = s[j] / sum;
            const float* v = kv_row(b, j);
            for (int d = 0; d < mla_v_dim; ++d) {
              const double a = std::fabs(double(v[d]));
              o[d] += p * v[d], m[d] += p * a, w[d] += a / sum;
            }
          }
          r.lse[std::size_t(row) * heads + h] = max + std::log(sum);
        }
      }
    }
  };
  if (batch == 0) return r;
  const int threads = std::max(1, std::min<int>(static_cast<int>(std::thread::hardware_concurrency()), batch));
  std::vector<std::thread> pool;
  const int per = (batch + threads - 1) / std::max(threads, 1);
  for (int b = 0; b < batch; b += per) pool.emplace_back(sequences, b, std::min(batch, b + per));
  for (auto& t : pool) t.join();
  return r;
}

}  // namespace wavekit::host
