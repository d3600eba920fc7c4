// A random scaled fp8 GEMM problem on the device in either storage order, with per-tensor or
// per-channel scales (some negative), and its check against the host reference at a bound
// computed from K, the splits and C's format.
#pragma once

#include <hip/hip_runtime.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <type_traits>
#include <vector>

#include "support/gemm_view_storage.hpp"
#include "wavekit/core/float_codec.hpp"
#include "wavekit/host/reference_gemm.hpp"
#include "wavekit/ops/gemm_fp8_scaled/problem.hpp"

namespace wavekit::test {

// Strides and batches as in gemm_half_case (support/gemm_view_storage.hpp); in a batch each
// operand's scales follow it (one set a GEMM, one set for a shared operand).
template <class Fp8, class Out>
struct gemm_fp8_scaled_case {
  ops::gemm_fp8_scaled::problem p;
  gemm_views v;
  std::size_t c_size;
  Fp8 *a = nullptr, *b = nullptr;
  float *a_scale = nullptr, *b_scale = nullptr;
  Out* c = nullptr;
  void* workspace = nullptr;
  std::size_t workspace_bytes = 0;
  std::vector<float> xa, xb, sa, sb;  // values as stored ([batch][rows][K]); scales as given

  gemm_fp8_scaled_case(ops::gemm_fp8_scaled::problem problem, std::uint32_t seed, int max_splits = 8)
      : p(problem), v(problem.views()), c_size(std::size_t(v.c_batch_extent(problem.batch))) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> n(0.0f, 2.0f);
    std::uniform_real_distribution<float> s(0.01f, 0.1f);
    std::bernoulli_distribution flip(0.25);
    const Fp8 nan = Fp8::from_bits(std::is_same_v<Fp8, fp8_e4m3fnuz> ? 0x80 : 0x7f);
    const auto draw = [&] { return saturate_cast<Fp8>(n(rng)); };
    viewed_operand<Fp8> ha = viewed_operand_of(p, p.m, v.lda, v.a_extent, p.batch.a, nan, draw);
    viewed_operand<Fp8> hb = viewed_operand_of(p, p.n, v.ldb, v.b_extent, p.batch.b, nan, draw);
    xa = std::move(ha.x), xb = std::move(hb.x);
    const int batch = p.batch.count;
    sa.resize(std::size_t(p.batch.a ? batch : 1) * a_scales_per_gemm());
    sb.resize(std::size_t(p.batch.b ? batch : 1) * b_scales_per_gemm());
    for (float& x : sa) x = flip(rng) ? -s(rng) : s(rng);
    for (float& x : sb) x = flip(rng) ? -s(rng) : s(rng);
    upload(a, ha.stored), upload(b, hb.stored), upload(a_scale, sa), upload(b_scale, sb);
    hipMalloc(&c, c_size * sizeof(Out));
    hipMemset(c, 0xff, c_size * sizeof(Out));  // NaN where a result is missing
    workspace_bytes = std::size_t(max_splits) * c_size * sizeof(float);
    hipMalloc(&workspace, workspace_bytes);
  }
  int a_scales_per_gemm() const { return p.a_scales == ops::gemm_fp8_scaled::scale_granularity::tensor ? 1 : p.m; }
  int b_scales_per_gemm() const { return p.b_scales == ops::gemm_fp8_scaled::scale_granularity::tensor ? 1 : p.n; }
  ~gemm_fp8_scaled_case() {
    hipFree(a), hipFree(b), hipFree(a_scale), hipFree(b_scale), hipFree(c), hipFree(workspace);
  }
  gemm_fp8_scaled_case(const gemm_fp8_scaled_case&) = delete;
  gemm_fp8_scaled_case& operator=(const gemm_fp8_scaled_case&) = delete;

  template <class U>
  static void upload(U*& dst, const std::vector<U>& src) {
    hipMalloc(&dst, src.size() * sizeof(U));
    hipMemcpy(dst, src.data(), src.size() * sizeof(U), hipMemcpyHostToDevice);
  }

  ops::gemm_fp8_scaled::args<Fp8, Out> args() const { return {a, b, a_scale, b_scale, c, workspace, workspace_bytes}; }

  // |C - exact| per element may be: the MFMA accumulation (groups of 16 fp8 products,
  // docs/hardware.md 1.3) and one fp32 rounding per split in the reduction, both times the scales;
  // two fp32 roundings of the scaling; C's rounding (2^-8 relative for bf16, 2^-11 for fp16).
  // A row-pair atom (arch/mfma_row_pairs.hpp) adds its two sparse rows: one more fp32 rounding.
  int check(int splits, const char* label, bool row_pairs = false) const {
    std::vector<Out> got(c_size);
    hipMemcpy(got.data(), c, got.size() * sizeof(Out), hipMemcpyDeviceToHost);
    const double out_unit = std::is_same_v<Out, bf16> ? 0x1p-8 : 0x1p-11;
    int bad = 0;
    for (int gi = 0; gi < p.batch.count; ++gi) {
      const float* gsa = sa.data() + (p.batch.a ? std::size_t(gi) * a_scales_per_gemm() : 0);
      const float* gsb = sb.data() + (p.batch.b ? std::size_t(gi) * b_scales_per_gemm() : 0);
      const auto [dot, abs_sum] = reference_products_of(p, xa, xb, gi);
      for (int row = 0; row < p.m; ++row)
        for (int col = 0; col < p.n; ++col) {
          const std::size_t i = std::size_t(row) * p.n + col;
          const double scale =
              double(gsa[a_scales_per_gemm() == 1 ? 0 : row]) * gsb[b_scales_per_gemm() == 1 ? 0 : col];
          const double e = dot[i] * scale, g = to_float(got[c_place(p, v, gi, row, col)]);
          const double acc =
              (host::mfma_fp32_error_bound(p.k, 16, abs_sum[i]) + (splits + row_pairs) * 0x1p-24 * abs_sum[i]) *
                  std::fabs(scale) +
              2 * 0x1p-24 * std::fabs(e);
          const double bound = acc + (std::fabs(e) + acc) * out_unit;
          if (!(std::fabs(g - e) <= bound) && bad++ < 5)
            std::printf("%s %s: GEMM %d C[%d][%d] = %.8g, reference %.8g (bound %.3g)\n", label, p.str().c_str(), gi,
                        row, col, g, e, bound);
        }
    }
    if (const int outside = written_outside_views(p, got); outside > 0) {
      std::printf("%s %s: %d elements of C outside the views were written\n", label, p.str().c_str(), outside);
      bad += outside;
    }
    return bad;
  }
};

}  // namespace wavekit::test
