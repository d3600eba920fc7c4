// C (M, N) fp32 = A (M, K) * B (N, K)^T, fp8 A and B stored K-contiguous, no scales.
//
// One wave computes one 32x32 tile of C with v_mfma_f32_32x32x16. The instruction's operand
// layout (spec 1.3) gives lane l row l % 32 and the 8 K values 8 * (l / 32) + [0, 8), so each
// lane's operand is one 8-byte load straight from global memory: no LDS, no shuffles. It is the
// smallest complete MFMA kernel, the first customer of the emulator and of the codegen report,
// and a readable statement of the MFMA layout; the block-scaled GEMM is the fast path.
#pragma once

#include <hip/hip_runtime.h>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>

#include "wavekit/arch/codegen_targets.hpp"
#include "wavekit/core/status.hpp"
#include "wavekit/warp/mfma_op.hpp"

namespace wavekit::ops {

template <class Fp8>
struct gemm_fp8_direct {
  using mfma = warp::mfma_op<Fp8, Fp8, 32, 32, 16>;
  static constexpr int tile_m = 32, tile_n = 32, tile_k = 16;
  static constexpr int threads = 64;  // one wave

  struct args {
    const Fp8* a;  // (m, k), row stride k
    const Fp8* b;  // (n, k), row stride k
    float* c;      // (m, n), row stride n
    int m, n, k;
  };

  static std::string name() { return std::string("gemm_fp8_direct<32x32, w1, ") + mfma::name() + ">"; }

  // Checked before any launch: every load and store stays inside the three tensors.
  static status validate(const args& p) {
    if (!p.a || !p.b || !p.c) return {status_code::null_pointer, name() + ": a, b and c must be non-null"};
    if (p.m <= 0 || p.n <= 0 || p.k <= 0) return {status_code::bad_shape, name() + ": m, n, k must be positive"};
    if (p.m % tile_m || p.n % tile_n || p.k % tile_k)
      return {status_code::bad_shape, name() + ": needs m % 32 == 0, n % 32 == 0, k % 16 == 0 (got " +
                                          std::to_string(p.m) + "x" + std::to_string(p.n) + "x" + std::to_string(p.k) +
                                          ")"};
    if (reinterpret_cast<std::uintptr_t>(p.a) % 8 || reinterpret_cast<std::uintptr_t>(p.b) % 8)
      return {status_code::bad_alignment, name() + ": a and b must be 8-byte aligned (one 8-byte load per lane)"};
    constexpr std::size_t limit = std::numeric_limits<std::int32_t>::max();
    if (std::size_t(p.m) * p.k > limit || std::size_t(p.n) * p.k > limit || std::size_t(p.m) * p.n > limit)
      return {status_code::too_large, name() + ": a tensor exceeds 2^31 - 1 elements (32-bit offsets)"};
    return status::success();
  }
};

template <class Fp8>
__global__ __launch_bounds__(64) void gemm_fp8_direct_kernel(typename gemm_fp8_direct<Fp8>::args p) {
  using kernel = gemm_fp8_direct<Fp8>;
  using mfma = typename kernel::mfma;
  arch::declare_codegen_targets<0, 8>();
  if constexpr (!warp::runs_on_current_target<mfma>) {
    __builtin_trap();
  } else {
    const int lane = static_cast<int>(threadIdx.x);
    const int row0 = static_cast<int>(blockIdx.y) * kernel::tile_m;
    const int col0 = static_cast<int>(blockIdx.x) * kernel::tile_n;
    const int k_offset = 8 * (lane / 32);
    // Operand of this lane: 8 consecutive fp8 of its A row / B row, advancing 16 per K step.
    const long* a_row = reinterpret_cast<const long*>(p.a + (row0 + lane % 32) * p.k + k_offset);
    const long* b_row = reinterpret_cast<const long*>(p.b + (col0 + lane % 32) * p.k + k_offset);

    typename mfma::accumulator acc = {};
    for (int step = 0; step < p.k / kernel::tile_k; ++step) acc = mfma::run(a_row[2 * step], b_row[2 * step], acc);

    // Accumulator layout (spec 1.4): register r of lane l holds C[8 (r / 4) + 4 (l / 32) + r % 4][l % 32].
    float* c_tile = p.c + row0 * p.n + col0 + lane % 32;
#pragma unroll
    for (int r = 0; r < 16; ++r) c_tile[(8 * (r / 4) + 4 * (lane / 32) + r % 4) * p.n] = acc[r];
  }
}

// Validates, then launches on `stream`. Returns the validation or launch status.
template <class Fp8>
status launch_gemm_fp8_direct(const typename gemm_fp8_direct<Fp8>::args& p, hipStream_t stream) {
  using kernel = gemm_fp8_direct<Fp8>;
  if (status s = kernel::validate(p); !s.ok()) return s;
  const dim3 grid(static_cast<unsigned>(p.n / kernel::tile_n), static_cast<unsigned>(p.m / kernel::tile_m));
  hipLaunchKernelGGL(gemm_fp8_direct_kernel<Fp8>, grid, dim3(kernel::threads), 0, stream, p);
  if (hipError_t e = hipGetLastError(); e != hipSuccess)
    return {status_code::launch_failed, kernel::name() + ": " + hipGetErrorString(e)};
  return status::success();
}

}  // namespace wavekit::ops
