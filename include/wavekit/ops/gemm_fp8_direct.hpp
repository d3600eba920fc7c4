// gemm_fp8_direct: C (M, N) fp32 = A (M, K) * B (N, K)^T, fp8 A and B stored K-contiguous, no
// scales, one wave per 32x32 tile of C straight from global memory (ops/gemm_fp8_direct/problem.hpp
// says what it is for). The one-call API is the launcher:
//
//   wavekit::ops::gemm_fp8_direct::op<fp8>::args p{a, b, c, m, n, k};
//   wavekit::status s = wavekit::ops::gemm_fp8_direct::launch<fp8>(p, stream);
// Without HIP, ops::gemm_fp8_direct::supports<Fp8>(problem, target) answers whether the launch runs a problem on a
// target, or gives its status (ops/gemm_fp8_direct/supports.hpp; the README's support matrix is made from it).
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include "wavekit/ops/gemm_fp8_direct/kernel.hpp"
#include "wavekit/ops/gemm_fp8_direct/problem.hpp"
#include "wavekit/ops/gemm_fp8_direct/supports.hpp"
