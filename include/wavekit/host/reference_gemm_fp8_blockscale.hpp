// Plain C++ reference of the block-scaled fp8 GEMM (ops/gemm_fp8_blockscale/problem.hpp):
// the operands are dequantized exactly as the kernel reads them (fp8 value times its scale, in
// double) and multiplied in double, rows of C spread over threads. Also the error bound a
// kernel result must meet.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <thread>
#include <vector>

#include "wavekit/core/numeric_types.hpp"
#include "wavekit/ops/gemm_fp8_blockscale/problem.hpp"

namespace wavekit::host {

struct blockscale_reference {
  std::vector<double> c;        // (M, N), exact up to double rounding
  std::vector<double> abs_sum;  // (M, N): sum_k |a(m,k) * b(n,k)| after scaling, for error bounds
};

template <class Fp8>
blockscale_reference reference_gemm_fp8_blockscale(const ops::gemm_fp8_blockscale::problem& p, const Fp8* a,
                                                   const Fp8* b, const float* a_scale, const float* b_scale,
                                                   unsigned threads = 0) {
  const int m = p.m, n = p.n, k = p.k, kb = p.k_groups(), nb = p.n_groups();
  const bool kc = p.order == layout::k_contiguous;
  // Dequantized operands, K-contiguous: da (M, K), db (N, K).
  std::vector<double> da(std::size_t(m) * k), db(std::size_t(n) * k);
  for (int i = 0; i < m; ++i)
    for (int kk = 0; kk < k; ++kk) {
      const Fp8 q = kc ? a[std::size_t(i) * k + kk] : a[std::size_t(kk) * m + i];
      const float s = kc ? a_scale[std::size_t(i) * kb + kk / 128] : a_scale[std::size_t(kk / 128) * m + i];
      da[std::size_t(i) * k + kk] = double(to_float(q)) * s;
    }
  for (int j = 0; j < n; ++j)
    for (int kk = 0; kk < k; ++kk) {
      const Fp8 q = kc ? b[std::size_t(j) * k + kk] : b[std::size_t(kk) * n + j];
      const float s =
          kc ? b_scale[std::size_t(j / 128) * kb + kk / 128] : b_scale[std::size_t(kk / 128) * nb + j / 128];
      db[std::size_t(j) * k + kk] = double(to_float(q)) * s;
    }
  blockscale_reference r{std::vector<double>(std::size_t(m) * n), std::vector<double>(std::size_t(m) * n)};
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  threads = std::min<unsigned>(threads, static_cast<unsigned>(m));
  auto rows = [&](int begin, int end) {
    for (int i = begin; i < end; ++i) {
      const double* ar = &da[std::size_t(i) * k];
      for (int j = 0; j < n; ++j) {
        const double* br = &db[std::size_t(j) * k];
        double acc = 0, abs = 0;
        for (int kk = 0; kk < k; ++kk) {
          const double t = ar[kk] * br[kk];
          acc += t, abs += std::fabs(t);
        }
        r.c[std::size_t(i) * n + j] = acc, r.abs_sum[std::size_t(i) * n + j] = abs;
      }
    }
  };
  std::vector<std::thread> pool;
  const int per = (m + static_cast<int>(threads) - 1) / static_cast<int>(threads);
  for (int begin = 0; begin < m; begin += per) pool.emplace_back(rows, begin, std::min(m, begin + per));
  for (auto& t : pool) t.join();
  return r;
}

// The largest |kernel - exact| allowed for one output, in units of 2^-23 * abs_sum (abs_sum =
// sum_k |scaled a * scaled b|, which bounds every partial sum):
//   16         CDNA3 truncation of the products of each 16-product group to 24 bits below the
//              group's largest product (at most 16 units of that group's own |sum|, so 16 in all);
//   3 K/16     each group's alignment with C floors twice and rounds once;
//   3 K/128    per 128-K block: the fp32 product of the two scales, and the fused multiply-add
//              into the running total;
//   splits + 1 split-K partial sums added in fp32;
// plus half an ulp of bf16 (2^-8 relative) for the final conversion.
inline double blockscale_error_bound(double abs_sum, double exact, int k, int splits) {
  const double units = 16.0 + 3.0 * (k / 16) + 3.0 * (k / 128) + splits + 1.0;
  return units * std::ldexp(abs_sum, -23) + std::ldexp(std::fabs(exact), -8);
}

}  // namespace wavekit::host
