// Plain C++ reference of GEMM + bias + activation (ops/gemm_bias_act/problem.hpp): the GEMM in
// double, then as the epilogue does it, in fp32 and in its order: v = fp32(A x B^T) + bias[col],
// y = activate<Act>(v) with the host C library's e^x, erf and tanh (core/activation.hpp). C's
// conversion is left to the check (a bound on y, then C's rounding of it).
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <cstddef>
#include <vector>

#include "wavekit/core/activation.hpp"
#include "wavekit/host/reference_gemm.hpp"

namespace wavekit::host {

// y[i][j]; a(i, k), b(j, k), bias(j): the operands' values.
template <class A, class B, class Bias>
std::vector<float> reference_gemm_bias_act(int m, int n, int k, activation act, A&& a, B&& b, Bias&& bias) {
  const std::vector<double> c = reference_gemm_nt(m, n, k, a, b);
  std::vector<float> y(c.size());
  with_activation(act, [&](auto fn) {
    for (std::size_t i = 0; i < c.size(); ++i)
      y[i] = activate<decltype(fn)::value>(static_cast<float>(c[i]) + bias(static_cast<int>(i % n)));
  });
  return y;
}

}  // namespace wavekit::host
