// A random half-precision GEMM problem on the device in either storage order, and its check
// against the host reference at a bound computed from K, the format, the splits and C's format.
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
#include "wavekit/ops/gemm_half/problem.hpp"

namespace wavekit::test {

template <class T, class Out>
struct gemm_half_case {
  ops::gemm_half::problem p;
  T *a = nullptr, *b = nullptr;
  Out* c = nullptr;
  void* workspace = nullptr;
  std::size_t workspace_bytes = 0;
  std::vector<float> xa, xb;  // [M][K], [N][K]: the values as stored

  gemm_half_case(ops::gemm_half::problem problem, std::uint32_t seed, int max_splits = 8) : p(problem) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> n(0.0f, 1.0f);
    std::vector<T> ha(std::size_t(p.m) * p.k), hb(std::size_t(p.n) * p.k);
    xa.resize(ha.size()), xb.resize(hb.size());
    for (std::size_t i = 0; i < ha.size(); ++i) ha[i] = saturate_cast<T>(n(rng)), xa[i] = to_float(ha[i]);
    for (std::size_t i = 0; i < hb.size(); ++i) hb[i] = saturate_cast<T>(n(rng)), xb[i] = to_float(hb[i]);
    if (p.order == layout::mn_contiguous) ha = host::transposed(ha, p.m, p.k), hb = host::transposed(hb, p.n, p.k);
    upload(a, ha), upload(b, hb);
    hipMalloc(&c, std::size_t(p.m) * p.n * sizeof(Out));
    hipMemset(c, 0xff, std::size_t(p.m) * p.n * sizeof(Out));  // NaN everywhere a result is missing
    workspace_bytes = std::size_t(max_splits) * p.m * p.n * sizeof(float);
    hipMalloc(&workspace, workspace_bytes);
  }
  ~gemm_half_case() { hipFree(a), hipFree(b), hipFree(c), hipFree(workspace); }
  gemm_half_case(const gemm_half_case&) = delete;
  gemm_half_case& operator=(const gemm_half_case&) = delete;

  template <class U>
  static void upload(U*& dst, const std::vector<U>& src) {
    hipMalloc(&dst, src.size() * sizeof(U));
    hipMemcpy(dst, src.data(), src.size() * sizeof(U), hipMemcpyHostToDevice);
  }

  ops::gemm_half::args<T, Out> args() const { return {a, b, c, workspace, workspace_bytes}; }

  // |C - exact| per element may be: the MFMA accumulation (groups of 8 products for 16-bit
  // inputs, docs/hardware.md 1.3), one fp32 rounding per split in the reduction, and C's rounding
  // (half an ulp: 2^-8 relative for bf16, 2^-11 for fp16, none for fp32).
  int check(int splits, const char* label) const {
    const auto ref = host::reference_gemm_nt(
        p.m, p.n, p.k, [&](int i, int k) { return double(xa[std::size_t(i) * p.k + k]); },
        [&](int j, int k) { return double(xb[std::size_t(j) * p.k + k]); });
    const auto abs_sum = host::reference_gemm_nt(
        p.m, p.n, p.k, [&](int i, int k) { return std::fabs(double(xa[std::size_t(i) * p.k + k])); },
        [&](int j, int k) { return std::fabs(double(xb[std::size_t(j) * p.k + k])); });
    std::vector<Out> got(std::size_t(p.m) * p.n);
    hipMemcpy(got.data(), c, got.size() * sizeof(Out), hipMemcpyDeviceToHost);
    const double out_unit = std::is_same_v<Out, float> ? 0.0 : std::is_same_v<Out, bf16> ? 0x1p-8 : 0x1p-11;
    int bad = 0;
    for (std::size_t i = 0; i < got.size(); ++i) {
      double g;
      if constexpr (std::is_same_v<Out, float>)
        g = got[i];
      else
        g = to_float(got[i]);
      const double e = ref[i];
      const double acc = host::mfma_fp32_error_bound(p.k, 8, abs_sum[i]) + splits * 0x1p-24 * abs_sum[i];
      const double bound = acc + (std::fabs(e) + acc) * out_unit;
      if (!(std::fabs(g - e) <= bound) && bad++ < 5)
        std::printf("%s %s: C[%zu][%zu] = %.8g, reference %.8g (bound %.3g)\n", label, p.str().c_str(), i / p.n,
                    i % p.n, g, e, bound);
    }
    return bad;
  }
};

}  // namespace wavekit::test
