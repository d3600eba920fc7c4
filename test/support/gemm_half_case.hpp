// A random half-precision GEMM problem on the device in either storage order, and its check
// against the host reference at a bound computed from K, the format, the splits and C's format.
#pragma once

#include <hip/hip_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <type_traits>
#include <vector>

#include "wavekit/core/float_codec.hpp"
#include "wavekit/host/reference_gemm.hpp"
#include "wavekit/ops/gemm_half/problem.hpp"

namespace wavekit::test {

// The problem's strides and batch (core/gemm_view.hpp) are honoured: each tensor is allocated over
// its whole view, the elements outside the views hold NaN (a kernel that reads one makes a NaN
// result) and C's stay as they were (check counts any that changed).
template <class T, class Out>
struct gemm_half_case {
  ops::gemm_half::problem p;
  gemm_views v;
  std::size_t a_size, b_size, c_size;  // elements of each allocation (the whole batch's views)
  T *a = nullptr, *b = nullptr;
  Out* c = nullptr;
  void* workspace = nullptr;
  std::size_t workspace_bytes = 0;
  std::vector<float> xa, xb;  // [batch][M][K], [batch][N][K]: the values as stored

  gemm_half_case(ops::gemm_half::problem problem, std::uint32_t seed, int max_splits = 8)
      : p(problem), v(problem.views()) {
    const int batch = p.batch.count;
    a_size = std::size_t((batch - 1) * p.batch.a + v.a_extent);
    b_size = std::size_t((batch - 1) * p.batch.b + v.b_extent);
    c_size = std::size_t(v.c_batch_extent(p.batch));
    std::mt19937 rng(seed);
    std::normal_distribution<float> n(0.0f, 1.0f);
    const T nan = T::from_bits(std::is_same_v<T, bf16> ? 0x7fc0 : 0x7e00);
    std::vector<T> ha(a_size, nan), hb(b_size, nan);
    xa.resize(std::size_t(batch) * p.m * p.k), xb.resize(std::size_t(batch) * p.n * p.k);
    const bool kc = p.order == layout::k_contiguous;
    // Element (row, kk) of GEMM g's operand of `rows` rows: its place in the allocation.
    auto place = [&](std::int64_t base, std::int64_t ld, int row, int kk) {
      return std::size_t(base + (kc ? std::int64_t(row) * ld + kk : std::int64_t(kk) * ld + row));
    };
    for (int g = 0; g < batch; ++g) {
      for (int i = 0; i < p.m; ++i)
        for (int kk = 0; kk < p.k; ++kk) {
          T& x = ha[place(g * p.batch.a, v.lda, i, kk)];
          if (p.batch.a != 0 || g == 0) x = saturate_cast<T>(n(rng));  // a shared A is drawn once
          xa[(std::size_t(g) * p.m + i) * p.k + kk] = to_float(x);
        }
      for (int j = 0; j < p.n; ++j)
        for (int kk = 0; kk < p.k; ++kk) {
          T& x = hb[place(g * p.batch.b, v.ldb, j, kk)];
          if (p.batch.b != 0 || g == 0) x = saturate_cast<T>(n(rng));
          xb[(std::size_t(g) * p.n + j) * p.k + kk] = to_float(x);
        }
    }
    upload(a, ha), upload(b, hb);
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
    std::vector<bool> in_view(c_size, false);
    const double out_unit = std::is_same_v<Out, float> ? 0.0 : std::is_same_v<Out, bf16> ? 0x1p-8 : 0x1p-11;
    int bad = 0;
    for (int gi = 0; gi < p.batch.count; ++gi) {
      const float* ga = xa.data() + std::size_t(gi) * p.m * p.k;
      const float* gb = xb.data() + std::size_t(gi) * p.n * p.k;
      const auto ref = host::reference_gemm_nt(
          p.m, p.n, p.k, [&](int i, int k) { return double(ga[std::size_t(i) * p.k + k]); },
          [&](int j, int k) { return double(gb[std::size_t(j) * p.k + k]); });
      const auto abs_sum = host::reference_gemm_nt(
          p.m, p.n, p.k, [&](int i, int k) { return std::fabs(double(ga[std::size_t(i) * p.k + k])); },
          [&](int j, int k) { return std::fabs(double(gb[std::size_t(j) * p.k + k])); });
      for (int i = 0; i < p.m; ++i)
        for (int j = 0; j < p.n; ++j) {
          const std::size_t at = std::size_t(gi * p.batch.c + std::int64_t(i) * v.ldc + j);
          in_view[at] = true;
          double g;
          if constexpr (std::is_same_v<Out, float>)
            g = got[at];
          else
            g = to_float(got[at]);
          const std::size_t r = std::size_t(i) * p.n + j;
          const double e = ref[r];
          const double acc = host::mfma_fp32_error_bound(p.k, 8, abs_sum[r]) + splits * 0x1p-24 * abs_sum[r];
          const double bound = acc + (std::fabs(e) + acc) * out_unit;
          if (!(std::fabs(g - e) <= bound) && bad++ < 5)
            std::printf("%s %s: GEMM %d C[%d][%d] = %.8g, reference %.8g (bound %.3g)\n", label, p.str().c_str(), gi, i,
                        j, g, e, bound);
        }
    }
    for (std::size_t i = 0; i < c_size; ++i) {
      unsigned char bytes[sizeof(Out)];
      std::memcpy(bytes, &got[i], sizeof(Out));
      bool untouched = true;
      for (unsigned char x : bytes) untouched = untouched && x == 0xff;
      if (!in_view[i] && !untouched && bad++ < 5)
        std::printf("%s %s: C element %zu outside the views was written\n", label, p.str().c_str(), i);
    }
    return bad;
  }
};

}  // namespace wavekit::test
