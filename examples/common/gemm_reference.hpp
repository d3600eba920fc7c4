// The host reference the GEMM examples check against (examples/<name>/main.cpp includes it): C's
// exact value and the magnitude sum_k |a(i, k) b(j, k)| that its error bound scales with
// (host/reference_gemm.hpp's reference_gemm_nt and mfma_fp32_error_bound).
#pragma once

#include <cmath>
#include <vector>

#include "wavekit/host/reference_gemm.hpp"

namespace example {

struct gemm_reference {
  std::vector<double> exact;      // [m][n]: sum_k a(i, k) b(j, k), in double
  std::vector<double> magnitude;  // [m][n]: sum_k |a(i, k) b(j, k)|
};

// a(i, k) and b(j, k): the operands' (dequantized) values as doubles.
template <class A, class B>
gemm_reference reference_and_magnitude(int m, int n, int k, A a, B b) {
  return {wavekit::host::reference_gemm_nt(m, n, k, a, b),
          wavekit::host::reference_gemm_nt(
              m, n, k, [&](int i, int kk) { return std::fabs(a(i, kk)); },
              [&](int j, int kk) { return std::fabs(b(j, kk)); })};
}

}  // namespace example
