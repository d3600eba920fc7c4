// The block-scaled fp8 GEMM kernel for one tile configuration, and its launcher: validation, the
// main kernel over a (N tiles, M tiles, splits) grid, and the split-K reduction.
#pragma once

#include <hip/hip_runtime.h>

#include <cstring>
#include <string>

#include "wavekit/arch/codegen_targets.hpp"
#include "wavekit/arch/lds.hpp"
#include "wavekit/block/gemm_fp8_blockscale_block.hpp"
#include "wavekit/block/splitk_reduce.hpp"
#include "wavekit/core/math.hpp"
#include "wavekit/ops/gemm/gemm_fp8_blockscale_problem.hpp"

namespace wavekit::ops {

// The seed kernel's main loop on gfx942 (198 instructions per 64 MFMA 16x16x32, both of its
// storage orders served by it after a transpose pass; docs/hardware.md 7.2) is
// the bar for the tiles of its size: the codegen check fails if such a kernel's loop is not
// shorter. Other tiles and targets make no promise.
template <class Cfg>
consteval int hot_loop_budget() {
  return arch::current_target == arch::target::gfx942 && Cfg::block_m * Cfg::block_n >= 256 * 128 ? 197 : 0;
}

template <class Cfg, class Fp8, layout Order>
__global__ __launch_bounds__(Cfg::threads) void gemm_fp8_blockscale_kernel(block::blockscale_params<Fp8> p) {
  using body = block::gemm_fp8_blockscale_block<Cfg, Fp8, Order>;
  arch::declare_codegen_targets<Cfg::lds_bytes, Cfg::min_waves_per_simd, hot_loop_budget<Cfg>()>();
  if constexpr (!warp::runs_on_current_target<typename body::wave_tile::mfma>) {
    __builtin_trap();
  } else {
    WAVEKIT_LDS_ARRAY(arch::u32x4, lds, Cfg::lds_bytes / 16);
    body::run(p, reinterpret_cast<unsigned char*>(lds));
  }
}

// Validates, then launches with the given configuration and number of K splits (the kernel is
// Cfg's kernel_config: Cfg's own SplitK plays no part here).
template <class Cfg, class Fp8>
status launch_gemm_fp8_blockscale(const gemm_fp8_blockscale_problem& p, const gemm_fp8_blockscale_args<Fp8>& a,
                                  int splits, hipStream_t stream) {
  using K = typename Cfg::kernel_config;
  if (status s = validate_blockscale(p, a); !s.ok()) return s;
  const std::string name = Cfg::name(splits);
  if (splits < 1 || splits > p.k_blocks())
    return {status_code::bad_config,
            name + " on " + p.str() + ": splits must be in [1, K/128 = " + std::to_string(p.k_blocks()) + "]"};
  const std::size_t need = blockscale_workspace_bytes(p, splits);
  if (need > 0 && (!a.workspace || a.workspace_bytes < need))
    return {status_code::bad_config, name + " on " + p.str() + ": split-K needs a workspace of " +
                                         std::to_string(need) + " bytes (have " + std::to_string(a.workspace_bytes) +
                                         ")"};
  if (need > 0 && reinterpret_cast<std::uintptr_t>(a.workspace) % 16)
    return {status_code::bad_alignment, name + ": the workspace must be 16-byte aligned"};
  const int per_split = ceil_div(p.k_blocks(), splits);
  block::blockscale_params<Fp8> params{
      a.a, a.b, a.a_scale, a.b_scale, a.c, need ? static_cast<float*>(a.workspace) : nullptr, p.m, p.n, p.k, per_split};
  const int used_splits = ceil_div(p.k_blocks(), per_split);
  const dim3 grid(static_cast<unsigned>(ceil_div(p.n, Cfg::block_n)),
                  static_cast<unsigned>(ceil_div(p.m, Cfg::block_m)), static_cast<unsigned>(used_splits));
  if (p.order == layout::k_contiguous) {
    hipLaunchKernelGGL((gemm_fp8_blockscale_kernel<K, Fp8, layout::k_contiguous>), grid, dim3(K::threads), 0, stream,
                       params);
  } else {
    hipLaunchKernelGGL((gemm_fp8_blockscale_kernel<K, Fp8, layout::mn_contiguous>), grid, dim3(K::threads), 0, stream,
                       params);
  }
  if (hipError_t e = hipGetLastError(); e != hipSuccess)
    return {status_code::launch_failed, name + ": " + hipGetErrorString(e)};
  if (need > 0) {
    const long count = static_cast<long>(p.m) * p.n;
    hipLaunchKernelGGL(block::splitk_reduce_bf16<>, dim3(static_cast<unsigned>(ceil_div(count / 4, 256L))), dim3(256),
                       0, stream, static_cast<const float*>(a.workspace), a.c, count, used_splits);
    if (hipError_t e = hipGetLastError(); e != hipSuccess)
      return {status_code::launch_failed, name + " (split-K reduction): " + hipGetErrorString(e)};
  }
  return status::success();
}

// The configuration's own number of K splits (Cfg::split_k).
template <class Cfg, class Fp8>
status launch_gemm_fp8_blockscale(const gemm_fp8_blockscale_problem& p, const gemm_fp8_blockscale_args<Fp8>& a,
                                  hipStream_t stream) {
  return launch_gemm_fp8_blockscale<Cfg>(p, a, Cfg::split_k, stream);
}

}  // namespace wavekit::ops
