// The kernel of gemm_fp8_direct (see problem.hpp) and its launcher.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <hip/hip_runtime.h>

#include "wavekit/arch/codegen_targets.hpp"
#include "wavekit/arch/device.hpp"
#include "wavekit/arch/mfma_atoms.hpp"
#include "wavekit/ops/gemm_fp8_direct/problem.hpp"

namespace wavekit::ops::gemm_fp8_direct {

template <class Fp8>
__global__ __launch_bounds__(64) void gemm_fp8_direct_kernel(typename op<Fp8>::args p) {
  using kernel = op<Fp8>;
  using mfma = arch::mfma_atom<Fp8, Fp8, kernel::tile_m, kernel::tile_n, kernel::tile_k>;
  arch::declare_codegen_targets<0, 8>();
  if constexpr (!arch::runs_on_current_target<mfma>) {
    __builtin_trap();
  } else {
    const int lane = static_cast<int>(threadIdx.x);
    const int row0 = static_cast<int>(blockIdx.y) * kernel::tile_m;
    const int col0 = static_cast<int>(blockIdx.x) * kernel::tile_n;
    const int k_offset = mfma::operand_k(lane, 0);  // the lane's 8 K values are contiguous from here
    // Operand of this lane: 8 consecutive fp8 of its A row / B row, advancing 16 per K step.
    const long* a_row = reinterpret_cast<const long*>(p.a + (row0 + mfma::operand_row(lane)) * p.k + k_offset);
    const long* b_row = reinterpret_cast<const long*>(p.b + (col0 + mfma::operand_row(lane)) * p.k + k_offset);

    typename mfma::accumulator acc = {};
    for (int step = 0; step < p.k / kernel::tile_k; ++step) acc = mfma::run(a_row[2 * step], b_row[2 * step], acc);

    // Accumulator layout: the atom's (docs/hardware.md 1.2).
    float* c_tile = p.c + row0 * p.n + col0 + mfma::acc_col(lane);
#pragma unroll
    for (int r = 0; r < mfma::acc_regs; ++r) c_tile[mfma::acc_row(lane, r) * p.n] = acc[r];
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
  const dim3 grid(static_cast<unsigned>(p.n / kernel::tile_n), static_cast<unsigned>(p.m / kernel::tile_m));
  hipLaunchKernelGGL(gemm_fp8_direct_kernel<Fp8>, grid, dim3(kernel::threads), 0, stream, p);
  if (hipError_t e = hipGetLastError(); e != hipSuccess)
    return {status_code::launch_failed, kernel::name() + ": " + hipGetErrorString(e)};
  return status::success();
}

}  // namespace wavekit::ops::gemm_fp8_direct
