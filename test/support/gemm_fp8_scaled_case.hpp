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

#include "wavekit/core/float_codec.hpp"
#include "wavekit/host/reference_gemm.hpp"
#include "wavekit/host/transpose.hpp"
#include "wavekit/ops/gemm_fp8_scaled/problem.hpp"

namespace wavekit::test {

template <class Fp8, class Out>
struct gemm_fp8_scaled_case {
  ops::gemm_fp8_scaled::problem p;
  Fp8 *a = nullptr, *b = nullptr;
  float *a_scale = nullptr, *b_scale = nullptr;
  Out* c = nullptr;
  void* workspace = nullptr;
  std::size_t workspace_bytes = 0;
  std::vector<float> xa, xb, sa, sb;  // values as stored; scales as given

  gemm_fp8_scaled_case(ops::gemm_fp8_scaled::problem problem, std::uint32_t seed, int max_splits = 8) : p(problem) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> n(0.0f, 2.0f);
    std::uniform_real_distribution<float> s(0.01f, 0.1f);
    std::bernoulli_distribution flip(0.25);
    std::vector<Fp8> ha(std::size_t(p.m) * p.k), hb(std::size_t(p.n) * p.k);
    xa.resize(ha.size()), xb.resize(hb.size());
    for (std::size_t i = 0; i < ha.size(); ++i) ha[i] = saturate_cast<Fp8>(n(rng)), xa[i] = to_float(ha[i]);
    for (std::size_t i = 0; i < hb.size(); ++i) hb[i] = saturate_cast<Fp8>(n(rng)), xb[i] = to_float(hb[i]);
    sa.resize(p.a_scales == ops::gemm_fp8_scaled::scale_granularity::tensor ? 1 : p.m);
    sb.resize(p.b_scales == ops::gemm_fp8_scaled::scale_granularity::tensor ? 1 : p.n);
    for (float& v : sa) v = flip(rng) ? -s(rng) : s(rng);
    for (float& v : sb) v = flip(rng) ? -s(rng) : s(rng);
    if (p.order == layout::mn_contiguous) ha = host::transposed(ha, p.m, p.k), hb = host::transposed(hb, p.n, p.k);
    upload(a, ha), upload(b, hb), upload(a_scale, sa), upload(b_scale, sb);
    hipMalloc(&c, std::size_t(p.m) * p.n * sizeof(Out));
    hipMemset(c, 0xff, std::size_t(p.m) * p.n * sizeof(Out));  // NaN where a result is missing
    workspace_bytes = std::size_t(max_splits) * p.m * p.n * sizeof(float);
    hipMalloc(&workspace, workspace_bytes);
  }
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
    const auto dot = host::reference_gemm_nt(
        p.m, p.n, p.k, [&](int i, int k) { return double(xa[std::size_t(i) * p.k + k]); },
        [&](int j, int k) { return double(xb[std::size_t(j) * p.k + k]); });
    const auto abs_sum = host::reference_gemm_nt(
        p.m, p.n, p.k, [&](int i, int k) { return std::fabs(double(xa[std::size_t(i) * p.k + k])); },
        [&](int j, int k) { return std::fabs(double(xb[std::size_t(j) * p.k + k])); });
    std::vector<Out> got(std::size_t(p.m) * p.n);
    hipMemcpy(got.data(), c, got.size() * sizeof(Out), hipMemcpyDeviceToHost);
    const double out_unit = std::is_same_v<Out, bf16> ? 0x1p-8 : 0x1p-11;
    int bad = 0;
    for (std::size_t i = 0; i < got.size(); ++i) {
      const std::size_t row = i / p.n, col = i % p.n;
      const double scale = double(sa[sa.size() == 1 ? 0 : row]) * sb[sb.size() == 1 ? 0 : col];
      const double e = dot[i] * scale, g = to_float(got[i]);
      const double acc =
          (host::mfma_fp32_error_bound(p.k, 16, abs_sum[i]) + (splits + row_pairs) * 0x1p-24 * abs_sum[i]) *
              std::fabs(scale) +
          2 * 0x1p-24 * std::fabs(e);
      const double bound = acc + (std::fabs(e) + acc) * out_unit;
      if (!(std::fabs(g - e) <= bound) && bad++ < 5)
        std::printf("%s %s: C[%zu][%zu] = %.8g, reference %.8g (bound %.3g)\n", label, p.str().c_str(), row, col, g, e,
                    bound);
    }
    return bad;
  }
};

}  // namespace wavekit::test
