// The block-scaled fp8 GEMM kernel for one tile configuration, and its launcher: validation, the
// main kernel over a (N tiles, M tiles, splits) grid, and the split-K reduction.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <hip/hip_runtime.h>

#include <cstring>
#include <string>

#include <type_traits>

#include "wavekit/arch/codegen_targets.hpp"
#include "wavekit/arch/lds.hpp"
#include "wavekit/arch/mfma_atoms.hpp"
#include "wavekit/block/gemm_block.hpp"
#include "wavekit/block/gemm_kernel.hpp"
#include "wavekit/block/scale_group_promotion.hpp"
#include "wavekit/block/split_gemm_launch.hpp"
#include "wavekit/core/math.hpp"
#include "wavekit/ops/gemm_fp8_blockscale/problem.hpp"
#include "wavekit/tile/tile_loader_k_contiguous.hpp"
#include "wavekit/tile/tile_loader_mn_contiguous.hpp"
#include "wavekit/warp/warp_mma.hpp"

namespace wavekit::ops::gemm_fp8_blockscale {

// The parts of the block-scaled GEMM for one config, fp8 format and storage order: byte-tile
// loaders of the target's K step (transposing for the M/N-contiguous order), a warp MMA over the
// target's fp8 atom (gfx950: the f8f6f4 forms at neutral e8m0 scales, 128-byte K steps for 16-wide
// tiles), the group-promotion scale policy with 128-K groups, the 2D tile scheduler with split-K,
// and the bf16 / fp32-partials epilogue.
template <class Cfg, class Fp8, layout Order>
struct parts {
  using shape = typename Cfg::template on<arch::kernel_view_target>;
  static constexpr int bk = shape::block_k;
  template <int Rows>
  using loader =
      std::conditional_t<Order == layout::k_contiguous, tile::tile_loader_k_contiguous<Rows, bk, shape::threads>,
                         tile::tile_loader_mn_contiguous<Rows, bk, shape::threads>>;
  using a_loader = loader<shape::block_m>;
  using b_loader = loader<shape::block_n>;
  using atom = arch::fp8_gemm_atom<Fp8, shape::mfma_m>;
  using mma = warp::warp_mma<atom, shape::tiles_m, shape::tiles_n, bk, warp::from_lds<typename a_loader::layout>,
                             warp::from_lds<typename b_loader::layout>>;
  using policy = block::scale_group_promotion<shape, mma, Order, scale_group_k>;
  using mainloop = block::gemm_mainloop<shape, mma, a_loader, b_loader, policy>;
  using scheduler = block::tile_scheduler_2d<shape::block_m, shape::block_n>;
  using body = block::gemm_block<shape, Order, scheduler, mainloop, block::epilogue_store<bf16>>;
  static_assert(mainloop::lds_bytes <= shape::lds_bytes, "parts: the config's LDS budget holds the mainloop's");
};

// The kernel's argument: A, B, their group scales, C (bf16) or split-K partials.
template <class Fp8>
using params = block::gemm_params<Fp8, Fp8, block::group_scale_args, bf16>;

// The seed kernel's main loop on gfx942 (198 instructions per 64 MFMA 16x16x32, both of its
// storage orders served by it after a transpose pass; docs/hardware.md 7.2) is
// the bar for the tiles of its size: the codegen check fails if such a kernel's loop is not
// shorter. Other tiles and targets make no promise.
template <class Cfg>
consteval int hot_loop_budget() {
  return arch::current_target == arch::target::gfx942 && Cfg::block_m * Cfg::block_n >= 256 * 128 ? 197 : 0;
}

template <class Cfg, class Fp8, layout Order>
__global__ __launch_bounds__(Cfg::threads) WAVEKIT_MIN_WAVES_PER_SIMD(
    block::gemm_kernel_facts<parts<Cfg, Fp8, Order>>::min_waves_per_simd) void gemm_fp8_blockscale_kernel(params<Fp8>
                                                                                                              p) {
  block::run_gemm_kernel<parts<Cfg, Fp8, Order>, hot_loop_budget<Cfg>()>(p);
}

// Validates, then launches with the given configuration and number of K splits (the kernel is
// Cfg's kernel_config: Cfg's own SplitK plays no part here).
template <class Cfg, class Fp8>
status launch(const problem& p, const args<Fp8>& a, int splits, hipStream_t stream) {
  using K = typename Cfg::kernel_config;
  if (status s = validate(p, a); !s.ok()) return s;
  // K is split in whole 128-K scale groups (K is a multiple of them: no skip).
  return block::launch_split_gemm<Cfg::block_m, Cfg::block_n>(
      {lazy([&] { return Cfg::name(splits); }), lazy([&] { return p.str(); }), splits, scale_group_k, a.workspace,
       a.workspace_bytes, "K/128"},
      p, a.c, stream, [&](dim3 grid, const block::splitk_cut& cut, float* partials) {
        const auto kp = block::make_gemm_params<params<Fp8>>(a.a, a.b, {a.a_scale, a.b_scale}, {a.c, partials}, p, cut);
        if (p.order == layout::k_contiguous)
          hipLaunchKernelGGL((gemm_fp8_blockscale_kernel<K, Fp8, layout::k_contiguous>), grid, dim3(K::threads), 0,
                             stream, kp);
        else
          hipLaunchKernelGGL((gemm_fp8_blockscale_kernel<K, Fp8, layout::mn_contiguous>), grid, dim3(K::threads), 0,
                             stream, kp);
      });
}

// The configuration's own number of K splits (Cfg::split_k).
template <class Cfg, class Fp8>
status launch(const problem& p, const args<Fp8>& a, hipStream_t stream) {
  return launch<Cfg>(p, a, Cfg::split_k, stream);
}

}  // namespace wavekit::ops::gemm_fp8_blockscale
