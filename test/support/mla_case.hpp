// A random MLA decode batch on the device (bf16 or fp8 queries, a bf16, fp8 or MXFP4 latent cache,
// ragged or paged) and its check against host::reference_mla_decode (fed the values the kernel
// reads: an fp8 code times its scale, an e2m1 code times its block's) at a bound computed from the
// formats (an MXFP4 value times its scale is a bf16 value, so the bound holds for it unchanged):
//   - scores: fp32 accumulation of exact bf16 products over 576 values, so |s - s_ref| <= delta =
//     sm_scale * 576 * 2^-23 * |q|_2 |k|_2 (Cauchy-Schwarz over the query's row and the largest KV
//     row); a weight e^s / sum moves by at most 2 delta relative;
//   - P is rounded to bf16 before the P x V product (the sums count fp32 values), so each
//     normalised weight is off by at most 2^-9 relative (2^-8 counted);
//   - the output is rounded to bf16 (2^-8 relative, counted as a flip's worth), and the split merge
//     adds fp32 roundings (10^-5 relative);
//   |out - ref| <= (2^-8 + 2 delta + 10^-5) * magnitude + 2^-8 |ref|,  |lse - lse_ref| <= 2^-8 + 2 delta
// (magnitude = sum_j p_j |V_jd|, from the reference). With fp8 queries over an fp8 cache (fp8
// products) P is rounded to fp8 instead: each weight, in units of 2^3 e^(s - m) for the kernel's
// running max m (at most the row's max), is off by at most 2^-4 relative or 2^-10 absolute (OCP's
// smallest subnormal 2^-9 halved; fnuz's is smaller), so the output moves by at most 2^-4
// magnitude + 2^-13 spread (spread = sum_j |V_jd| / sum_j e^(s_j - max), from the reference).
#pragma once

#include <hip/hip_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <type_traits>
#include <vector>

#include "support/device_upload.hpp"
#include "wavekit/core/float_codec.hpp"
#include "wavekit/host/quantize_mx.hpp"
#include "wavekit/host/reference_mla_decode.hpp"
#include "wavekit/ops/mla_decode.hpp"

namespace wavekit::test {

// KV: the cache's type, bf16 or an fp8 format (quantized with one per-tensor scale, amax /
// max_finite, by saturate_cast: the host quantizer's rule), or fp4x2_e2m1 (host::quantize_mx's
// MXFP4, its scales in a table of padded rows whose padding holds NaN codes); Q: the queries' type,
// bf16 or fp8.
template <class KV = bf16, class Q = bf16>
struct mla_case {
  static constexpr bool mx = std::is_same_v<KV, fp4x2_e2m1>;
  // Both fp8: the kernel's fp8 products, P rounded to fp8 (the header's bound).
  static constexpr bool fp8_products = !mx && !std::is_same_v<KV, bf16> && !std::is_same_v<Q, bf16>;
  static constexpr int scale_stride = 24;  // an MXFP4 cache's scale rows: 18 used, padded as aiter pads
  ops::mla_decode::problem p;
  std::vector<int> qo, kv_indptr, kv_lens, page_table;
  std::vector<Q> q;
  std::vector<KV> cache;
  std::vector<e8m0> block_scales;  // MXFP4: [cache_rows][scale_stride]
  e8m0* d_block_scales = nullptr;
  float kv_scale = 1.0f, q_scale = 1.0f;
  std::vector<float> q_f, cache_f;  // the values (codes times the scale), for the reference
  Q* d_q = nullptr;
  KV* d_cache = nullptr;
  bf16* d_out = nullptr;
  float* d_lse = nullptr;
  int *d_qo = nullptr, *d_kv_indptr = nullptr, *d_kv_lens = nullptr, *d_pages = nullptr;
  void* workspace = nullptr;
  std::size_t workspace_bytes = 0;

  // lens[b], q_lens[b] per sequence; page_size 0: the ragged layout, else pages of that size
  // given to the sequences in a shuffled order (with spare pages nobody uses). score_ramp != 0:
  // every query's first value is 1 / sm_scale and KV row j's is score_ramp * j, so a sequence's
  // scores rise by about score_ramp a row over the noise of the others (the kernel's running max
  // then moves along the sequence).
  mla_case(int heads, const std::vector<int>& lens, const std::vector<int>& q_lens, int page_size, std::uint32_t seed,
           float score_ramp = 0.0f) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> n(0.0f, 1.0f);
    const int batch = static_cast<int>(lens.size());
    qo.push_back(0);
    for (int b = 0; b < batch; ++b) qo.push_back(qo.back() + q_lens[b]);
    int cache_rows = 0, max_pages = 0;
    if (page_size == 0) {
      kv_indptr.push_back(3);  // the first rows belong to nobody
      for (int len : lens) kv_indptr.push_back(kv_indptr.back() + len);
      cache_rows = kv_indptr.back() + 5;
      p = {batch, heads, ops::mla_decode::kv_layout::ragged, 1, cache_rows, 0, 1.0f / std::sqrt(576.0f)};
    } else {
      for (int len : lens) max_pages = std::max(max_pages, (len + page_size - 1) / page_size);
      max_pages = std::max(max_pages, 1);
      int pages = 2;  // spare pages
      for (int len : lens) pages += (len + page_size - 1) / page_size;
      std::vector<int> order(pages);
      for (int i = 0; i < pages; ++i) order[i] = i;
      std::shuffle(order.begin(), order.end(), rng);
      page_table.assign(std::size_t(batch) * max_pages, -1);  // unused entries: never read
      int next = 0;
      for (int b = 0; b < batch; ++b)
        for (int i = 0; i < (lens[b] + page_size - 1) / page_size; ++i) page_table[b * max_pages + i] = order[next++];
      kv_lens = lens;
      cache_rows = pages * page_size;
      p = {batch, heads, ops::mla_decode::kv_layout::paged, page_size, cache_rows, max_pages, 1.0f / std::sqrt(576.0f)};
    }
    std::vector<float> q_values(std::size_t(qo.back()) * heads * 576), values(std::size_t(cache_rows) * 576);
    for (float& v : q_values) v = n(rng);
    for (float& v : values) v = n(rng);
    if (score_ramp != 0.0f) {
      for (std::size_t r = 0; r < q_values.size(); r += 576) q_values[r] = 1.0f / p.sm_scale;
      for (int b = 0; b < batch; ++b)
        for (int j = 0; j < lens[b]; ++j) values[std::size_t(row_of(b, j)) * 576] = score_ramp * float(j);
    }
    quantize(q_values, q, q_f, q_scale);
    if constexpr (mx) {
      const auto t = host::quantize_mx<fp4_e2m1>(values, cache_rows, 576);
      cache = t.data, cache_f = host::dequantize(t);
      block_scales.assign(std::size_t(cache_rows) * scale_stride, e8m0::from_bits(e8m0_codes::nan));
      for (int r = 0; r < cache_rows; ++r)
        for (int j = 0; j < ops::mla_decode::scale_blocks; ++j)
          block_scales[std::size_t(r) * scale_stride + j] = t.scales[std::size_t(r) * t.scale_cols() + j];
      d_block_scales = upload(block_scales);
    } else {
      quantize(values, cache, cache_f, kv_scale);
    }
    d_q = upload(q), d_cache = upload(cache), d_qo = upload(qo);
    d_kv_indptr = kv_indptr.empty() ? nullptr : upload(kv_indptr);
    d_kv_lens = kv_lens.empty() ? nullptr : upload(kv_lens);
    d_pages = page_table.empty() ? nullptr : upload(page_table);
    hipMalloc(&d_out, std::max<std::size_t>(q.size() / 576 * 512, 1) * 2);
    hipMemset(d_out, 0xff, q.size() / 576 * 512 * 2);  // NaN where a result is missing
    hipMalloc(&d_lse, std::max<std::size_t>(q.size() / 576, 1) * 4);
  }
  ~mla_case() {
    hipFree(d_q), hipFree(d_cache), hipFree(d_qo), hipFree(d_kv_indptr), hipFree(d_kv_lens), hipFree(d_pages);
    hipFree(d_out), hipFree(d_lse), hipFree(workspace), hipFree(d_block_scales);
  }
  mla_case(const mla_case&) = delete;

  // values as T (bf16: rounded; fp8: a per-tensor scale, amax / max_finite) and what they stand for.
  template <class T>
  static void quantize(const std::vector<float>& values, std::vector<T>& codes, std::vector<float>& as_read,
                       float& scale) {
    codes.resize(values.size());
    as_read.resize(values.size());
    if constexpr (std::is_same_v<T, bf16>) {
      for (std::size_t i = 0; i < values.size(); ++i)
        codes[i] = saturate_cast<bf16>(values[i]), as_read[i] = widen_to_float(codes[i]);
    } else {
      float amax = 0.0f;
      for (float v : values) amax = std::max(amax, std::fabs(v));
      scale = amax / element_limits<T>::max_finite;
      for (std::size_t i = 0; i < values.size(); ++i)
        codes[i] = saturate_cast<T>(values[i] / scale), as_read[i] = to_float(codes[i]) * scale;
    }
  }
  mla_case& operator=(const mla_case&) = delete;

  ops::mla_decode::sequences_view view() const { return {qo, kv_indptr, kv_lens, page_table}; }

  // The arguments for a plan (the workspace sized for it).
  ops::mla_decode::args<KV, Q> args(const ops::mla_decode::split_plan& plan) {
    // The bytes alone, whatever the plan (tests pass plans the launch refuses, to see the refusal).
    const std::size_t need = ops::mla_decode::split_partial_bytes(p, view(), plan);
    if (need > workspace_bytes) {
      hipFree(workspace);
      hipMalloc(&workspace, need);
      workspace_bytes = need;
    }
    return {d_q,
            d_cache,
            d_qo,
            d_kv_indptr,
            d_kv_lens,
            d_pages,
            d_out,
            d_lse,
            workspace,
            workspace_bytes,
            kv_scale,
            q_scale,
            d_block_scales,
            mx ? scale_stride : 0};
  }

  // The cache row of sequence b's KV row j.
  int row_of(int b, int j) const {
    return p.layout == ops::mla_decode::kv_layout::ragged
               ? kv_indptr[b] + j
               : page_table[b * p.max_pages + j / p.page_size] * p.page_size + j % p.page_size;
  }
  const float* kv_row(int b, int j) const { return cache_f.data() + std::size_t(row_of(b, j)) * 576; }

  // fp8 products with one split and one query a sequence, where the running max never moves after
  // the first KV tile (a falling score_ramp; checked here: every later score below that tile's
  // max by more than the scores' error): the kernel's P^T is then fp8(2^(x_j - m + 3)) for x_j the
  // scaled score in log2 units and m the first tile's largest, which this model rounds as the
  // kernel does (round to nearest even). The kernel's x_j is within delta_j of the host's (fp32
  // accumulation of exact products, per term 2^-22 * 576 * sum_c |q_c k_c| * sm_scale * log2 e,
  // and the multiply, fma and v_exp_f32 roundings): a weight whose interval spans a rounding
  // boundary may take either code. Bound: those weights' code steps times |V_jd| over the sum, the
  // sum's relative error, fp32 accumulation (10^-5) and the bf16 output (2^-8), all against the
  // model. Returns the outputs outside it (the first few printed), or -1 where a later score
  // comes near the first tile's max (the model does not apply).
  int check_fp8_p(const char* label) const {
    static_assert(fp8_products, "check_fp8_p: the fp8 products' kernel");
    constexpr double log2e = 1.4426950408889634;
    const std::size_t rows = q.size() / 576;
    std::vector<bf16> out(rows * 512);
    hipMemcpy(out.data(), d_out, out.size() * 2, hipMemcpyDeviceToHost);
    int bad = 0;
    for (int b = 0; b < p.batch; ++b) {
      if (qo[b + 1] - qo[b] != 1) return -1;
      const int seen = view().kv_len(b);
      for (int h = 0; h < p.heads; ++h) {
        const std::size_t row = std::size_t(qo[b]) * p.heads + h;
        const float* qv = q_f.data() + row * 576;
        std::vector<double> x(seen), delta(seen);
        for (int j = 0; j < seen; ++j) {
          const float* k = kv_row(b, j);
          double dot = 0, absolute = 0;
          for (int c = 0; c < 576; ++c) dot += double(qv[c]) * k[c], absolute += std::fabs(double(qv[c]) * k[c]);
          x[j] = dot * p.sm_scale * log2e;
          delta[j] = 0x1p-22 * 576 * absolute * p.sm_scale * log2e;
        }
        if (seen == 0) continue;
        int first_max = 0;
        for (int j = 1; j < std::min(seen, 32); ++j)
          if (x[j] > x[first_max]) first_max = j;
        const double m = x[first_max];
        for (int j = 0; j < seen; ++j) delta[j] += 4e-6 * (std::fabs(x[j]) + std::fabs(m) + 4);
        const double dm = delta[first_max];
        for (int j = 32; j < seen; ++j)
          if (x[j] + delta[j] >= m - dm) return -1;
        // The codes each weight may take, and the sum.
        std::vector<double> code(seen), step(seen);
        double sum = 0, sum_error = seen * 0x1p-24;
        for (int j = 0; j < seen; ++j) {
          const double w = std::exp2(x[j] - m + 3), spread = delta[j] + dm;
          auto rounded = [&](double v) { return double(to_float(saturate_cast<KV>(float(v)))); };
          const double low = rounded(w * std::exp2(-spread)), high = rounded(w * std::exp2(spread));
          code[j] = rounded(w), step[j] = high - low;
          sum += w, sum_error = std::max(sum_error, std::exp2(spread) - 1 + seen * 0x1p-24);
        }
        for (int d = 0; d < 512; ++d) {
          double model = 0, ambiguous = 0, magnitude = 0;
          for (int j = 0; j < seen; ++j) {
            const double v = kv_row(b, j)[d];
            model += code[j] * v, ambiguous += step[j] * std::fabs(v), magnitude += code[j] * std::fabs(v);
          }
          model /= sum, ambiguous /= sum, magnitude /= sum;
          const double g = widen_to_float(out[row * 512 + d]);
          const double bound = ambiguous + (sum_error + 1e-5) * magnitude + 0x1p-8 * std::fabs(model) + 1e-30;
          if (!(std::fabs(g - model) <= bound) && bad++ < 5)
            std::printf("%s %s: out[row %zu][%d] = %.6g, fp8-P model %.6g (bound %.3g)\n", label, p.str().c_str(), row,
                        d, g, model, bound);
        }
      }
    }
    return bad;
  }

  // Outputs (and lse) outside the header's bound; each printed, the first few.
  int check(const char* label) const {
    const std::vector<float>& qf = q_f;
    std::vector<int> lens(p.batch);
    for (int b = 0; b < p.batch; ++b) lens[b] = view().kv_len(b);
    const auto ref =
        host::reference_mla_decode(qf, p.heads, qo, lens, p.sm_scale, [&](int b, int j) { return kv_row(b, j); });
    double k_norm = 0;
    for (std::size_t r = 0; r < cache_f.size() / 576; ++r) {
      double s = 0;
      for (int c = 0; c < 576; ++c) s += double(cache_f[r * 576 + c]) * cache_f[r * 576 + c];
      k_norm = std::max(k_norm, std::sqrt(s));
    }
    const std::size_t rows = q.size() / 576;
    std::vector<bf16> out(rows * 512);
    std::vector<float> lse(rows);
    hipMemcpy(out.data(), d_out, out.size() * 2, hipMemcpyDeviceToHost);
    hipMemcpy(lse.data(), d_lse, lse.size() * 4, hipMemcpyDeviceToHost);
    int bad = 0;
    for (std::size_t r = 0; r < rows; ++r) {
      double q_norm = 0;
      for (int c = 0; c < 576; ++c) q_norm += double(qf[r * 576 + c]) * qf[r * 576 + c];
      const double delta = p.sm_scale * 576 * 0x1p-23 * std::sqrt(q_norm) * k_norm;
      const double e = ref.lse[r];
      if (!(std::isinf(e) ? lse[r] == e : std::fabs(lse[r] - e) <= 0x1p-8 + 2 * delta) && bad++ < 5)
        std::printf("%s %s: lse[row %zu] = %.6g, reference %.6g\n", label, p.str().c_str(), r, lse[r], e);
      for (int d = 0; d < 512; ++d) {
        const double g = widen_to_float(out[r * 512 + d]), o = ref.out[r * 512 + d];
        const double p_relative = fp8_products ? 0x1p-4 : 0x1p-8, p_absolute = fp8_products ? 0x1p-13 : 0.0;
        const double bound = (p_relative + 2 * delta + 1e-5) * ref.magnitude[r * 512 + d] +
                             p_absolute * ref.spread[r * 512 + d] + 0x1p-8 * std::fabs(o) + 1e-30;
        if (!(std::fabs(g - o) <= bound) && bad++ < 5)
          std::printf("%s %s: out[row %zu][%d] = %.6g, reference %.6g (bound %.3g)\n", label, p.str().c_str(), r, d, g,
                      o, bound);
      }
    }
    return bad;
  }
};

}  // namespace wavekit::test
