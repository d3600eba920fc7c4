// A random half-precision GEMM problem on the device in either storage order, and its check
// against the host reference at a bound computed from K, the format, the splits and C's format.
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
#include "wavekit/ops/gemm_half/problem.hpp"

namespace wavekit::test {

// The problem's strides and batch (core/gemm_view.hpp) are honoured: each tensor is allocated over
// its whole view, the elements outside the views hold NaN (a kernel that reads one makes a NaN
// result) and C's stay as they were (check counts any that changed): support/gemm_view_storage.hpp.
template <class T, class Out>
struct gemm_half_case {
  ops::gemm_half::problem p;
  gemm_views v;
  std::size_t c_size;  // elements of C's allocation (the whole batch's views)
  T *a = nullptr, *b = nullptr;
  Out* c = nullptr;
  void* workspace = nullptr;
  std::size_t workspace_bytes = 0;
  std::vector<float> xa, xb;  // [batch][M][K], [batch][N][K]: the values as stored

  gemm_half_case(ops::gemm_half::problem problem, std::uint32_t seed, int max_splits = 8)
      : p(problem), v(problem.views()), c_size(std::size_t(v.c_batch_extent(problem.batch))) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> n(0.0f, 1.0f);
    const T nan = T::from_bits(std::is_same_v<T, bf16> ? 0x7fc0 : 0x7e00);
    const auto draw = [&] { return saturate_cast<T>(n(rng)); };
    viewed_operand<T> ha = viewed_operand_of(p, p.m, v.lda, v.a_extent, p.batch.a, nan, draw);
    viewed_operand<T> hb = viewed_operand_of(p, p.n, v.ldb, v.b_extent, p.batch.b, nan, draw);
    xa = std::move(ha.x), xb = std::move(hb.x);
    upload(a, ha.stored), upload(b, hb.stored);
    hipMalloc(&c, c_size * sizeof(Out));
    hipMemset(c, 0xff, c_size * sizeof(Out));  // NaN everywhere a result is missing
    workspace_bytes = std::size_t(max_splits) * c_size * sizeof(float);
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
  // (half an ulp: 2^-8 relative for bf16, 2^-11 for fp16, none for fp32). Elements of C outside
  // the views must keep their 0xff bytes.
  int check(int splits, const char* label) const {
    std::vector<Out> got(c_size);
    hipMemcpy(got.data(), c, got.size() * sizeof(Out), hipMemcpyDeviceToHost);
    const double out_unit = std::is_same_v<Out, float> ? 0.0 : std::is_same_v<Out, bf16> ? 0x1p-8 : 0x1p-11;
    int bad = 0;
    for (int gi = 0; gi < p.batch.count; ++gi) {
      const auto [ref, abs_sum] = reference_products_of(p, xa, xb, gi);
      for (int i = 0; i < p.m; ++i)
        for (int j = 0; j < p.n; ++j) {
          double g;
          if constexpr (std::is_same_v<Out, float>)
            g = got[c_place(p, v, gi, i, j)];
          else
            g = to_float(got[c_place(p, v, gi, i, j)]);
          const std::size_t r = std::size_t(i) * p.n + j;
          const double e = ref[r];
          const double acc = host::mfma_fp32_error_bound(p.k, 8, abs_sum[r]) + splits * 0x1p-24 * abs_sum[r];
          const double bound = acc + (std::fabs(e) + acc) * out_unit;
          if (!(std::fabs(g - e) <= bound) && bad++ < 5)
            std::printf("%s %s: GEMM %d C[%d][%d] = %.8g, reference %.8g (bound %.3g)\n", label, p.str().c_str(), gi, i,
                        j, g, e, bound);
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
