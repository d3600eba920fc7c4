// Plain C++ reference GEMM and the error bounds kernels are checked against.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <thread>
#include <vector>

namespace wavekit::host {

// C (m, n) = sum_k a(i, k) * b(j, k), accumulated in double. `a` and `b` are callables returning
// the (dequantized) operand values, so any storage order or scaling can be expressed; rows of C
// are split over `threads` workers (0: one per hardware thread).
template <class A, class B>
std::vector<double> reference_gemm_nt(int m, int n, int k, A&& a, B&& b, unsigned threads = 0) {
  std::vector<double> c(std::size_t(m) * n);
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  threads = std::min<unsigned>(threads, static_cast<unsigned>(m));
  auto rows = [&](int begin, int end) {
    std::vector<double> a_row(k);
    for (int i = begin; i < end; ++i) {
      for (int kk = 0; kk < k; ++kk) a_row[kk] = a(i, kk);
      for (int j = 0; j < n; ++j) {
        double acc = 0.0;
        for (int kk = 0; kk < k; ++kk) acc += a_row[kk] * b(j, kk);
        c[std::size_t(i) * n + j] = acc;
      }
    }
  };
  std::vector<std::thread> pool;
  const int per = (m + static_cast<int>(threads) - 1) / static_cast<int>(threads);
  for (int begin = 0; begin < m; begin += per) pool.emplace_back(rows, begin, std::min(m, begin + per));
  for (auto& t : pool) t.join();
  return c;
}

// Largest |fp32 MFMA result - exact dot product| for a length-k dot product accumulated by a matrix
// core that sums `group` exact products at a time (16 for fp8 on CDNA3, docs/hardware.md 1.3) and
// adds each group to the fp32 accumulator: every addend of a group is truncated to 24 bits
// relative to the group's largest exponent, and each accumulation truncates and rounds once.
// `sum_abs` is sum_k |a_k * b_k|; the bound is (group + 2) ulps per group of that magnitude.
inline double mfma_fp32_error_bound(int k, int group, double sum_abs) {
  const int groups = (k + group - 1) / group;
  return groups * (group + 2) * std::ldexp(1.0, -23) * sum_abs;
}

}  // namespace wavekit::host
