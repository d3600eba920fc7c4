// The kernel of gemm_fp8_direct (see problem.hpp) and its launcher.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <hip/hip_runtime.h>

#include "wavekit/arch/codegen_targets.hpp"
#include "wavekit/arch/device.hpp"
#include "wavekit/arch/mfma_atoms.hpp"
#include "wavekit/ops/gemm_fp8_direct/problem.hpp"

namespace wavekit::ops::gemm_fp8_direct {

// The kernel's argument: args with the packed strides resolved, in 32 bits (validate keeps every
// stride below 2^31), which keeps the kernel's scalar registers near the unstrided kernel's.
template <class Fp8>
struct kernel_args {
  const Fp8* a;
  const Fp8* b;
  float* c;
  int k, lda, ldb, ldc;
  int batch_a, batch_b, batch_c;
};

template <class Fp8>
__global__ __launch_bounds__(64) void gemm_fp8_direct_kernel(kernel_args<Fp8> p) {
  using kernel = op<Fp8>;
  using mfma = arch::mfma_atom<Fp8, Fp8, kernel::tile_m, kernel::tile_n, kernel::tile_k>;
  arch::declare_codegen_targets<0, 8>();
  if constexpr (!arch::runs_on_current_target<mfma>) {
    __builtin_trap();
  } else {
    const int lane = static_cast<int>(threadIdx.x);
    const int row0 = static_cast<int>(blockIdx.y) * kernel::tile_m;
    const int col0 = static_cast<int>(blockIdx.x) * kernel::tile_n;
    // The block's GEMM of the batch (grid z), its tensors a batch stride on; the launcher resolved
    // packed (0) strides.
    const long g = static_cast<long>(blockIdx.z);
    const long lda = p.lda, ldb = p.ldb, ldc = p.ldc;
    const int k_offset = mfma::operand_k(lane, 0);  // the lane's 8 K values are contiguous from here
    // Operand of this lane: 8 consecutive fp8 of its A row / B row, advancing 16 per K step.
    const long* a_row =
        reinterpret_cast<const long*>(p.a + g * p.batch_a + (row0 + mfma::operand_row(lane)) * lda + k_offset);
    const long* b_row =
        reinterpret_cast<const long*>(p.b + g * p.batch_b + (col0 + mfma::operand_row(lane)) * ldb + k_offset);

    typename mfma::accumulator acc = {};
    for (int step = 0; step < p.k / kernel::tile_k; ++step) acc = mfma::run(a_row[2 * step], b_row[2 * step], acc);

    // Accumulator layout: the atom's (docs/hardware.md 1.2).
    float* c_tile = p.c + g * p.batch_c + row0 * ldc + col0 + mfma::acc_col(lane);
#pragma unroll
    for (int r = 0; r < mfma::acc_regs; ++r) c_tile[mfma::acc_row(lane, r) * ldc] = acc[r];
  }
}

// Validates, checks that the device reads Fp8 (the kernel of another target's format would trap),
// then launches on `stream`. Returns the validation or launch status.
template <class Fp8>
status launch(const typename op<Fp8>::args& p, hipStream_t stream) {
  using kernel = op<Fp8>;
  if (status s = kernel::validate(p); !s.ok()) return s;
  if (status s = arch::check_device_fp8_format<Fp8>(arch::current_device_arch(), kernel::name().c_str()); !s.ok())
    return s;
  if (p.m == 0) return status::success();  // an empty problem launches nothing
  const gemm_views v = gemm_views::of(p.m, p.n, p.k, layout::k_contiguous, p.strides);
  const kernel_args<Fp8> resolved{p.a,
                                  p.b,
                                  p.c,
                                  p.k,
                                  static_cast<int>(v.lda),
                                  static_cast<int>(v.ldb),
                                  static_cast<int>(v.ldc),
                                  static_cast<int>(p.batch.a),
                                  static_cast<int>(p.batch.b),
                                  static_cast<int>(p.batch.c)};
  const dim3 grid(static_cast<unsigned>(p.n / kernel::tile_n), static_cast<unsigned>(p.m / kernel::tile_m),
                  static_cast<unsigned>(p.batch.count));
  hipLaunchKernelGGL(gemm_fp8_direct_kernel<Fp8>, grid, dim3(kernel::threads), 0, stream, resolved);
  if (hipError_t e = hipGetLastError(); e != hipSuccess)
    return {status_code::launch_failed, kernel::name() + ": " + hipGetErrorString(e)};
  return status::success();
}

}  // namespace wavekit::ops::gemm_fp8_direct
