// The half-precision GEMM's kernel for one config, as a composition of wavekit's parts, and its
// launcher (validation, the main kernel over a (N tiles, M tiles, splits) grid, the split-K
// reduction).
//
// Parts: byte-tile loaders of 2-byte elements (transposing for the M/N-contiguous order) into
// swizzled LDS rows of Cfg::row_bytes, a warp MMA over the target's 16-bit atom (gfx942's K = 16 / 8
// forms, gfx950's K = 32 / 16 forms), the mainloop with no scales and a ragged first K step (K
// need only be a multiple of 8), the 2D tile scheduler with split-K, and the store epilogue.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <hip/hip_runtime.h>

#include <type_traits>

#include "wavekit/arch/codegen_targets.hpp"
#include "wavekit/arch/lds.hpp"
#include "wavekit/arch/matrix_formats.hpp"
#include "wavekit/arch/mfma_atoms.hpp"
#include "wavekit/block/gemm_block.hpp"
#include "wavekit/block/gemm_kernel.hpp"
#include "wavekit/block/scale_none.hpp"
#include "wavekit/block/split_gemm_launch.hpp"
#include "wavekit/ops/gemm_half/configs.hpp"
#include "wavekit/ops/gemm_half/problem.hpp"
#include "wavekit/tile/tile_loader_k_contiguous.hpp"
#include "wavekit/tile/tile_loader_mn_contiguous.hpp"
#include "wavekit/warp/warp_mma.hpp"

namespace wavekit::ops::gemm_half {

// Epilogue: the plain store, or a fusion (block/epilogue_fused.hpp: ops/gemm_bias_act/).
template <class Cfg, class T, class Out, layout Order, class Epilogue = block::epilogue_store<Out>>
struct parts {
  using shape = typename Cfg::template on<arch::kernel_view_target>;
  template <int Rows>
  using loader = std::conditional_t<Order == layout::k_contiguous,
                                    tile::tile_loader_k_contiguous<Rows, shape::row_bytes, shape::threads, 16>,
                                    tile::tile_loader_mn_contiguous<Rows, shape::row_bytes, shape::threads, 16>>;
  using a_loader = loader<shape::block_m>;
  using b_loader = loader<shape::block_n>;
  using atom = arch::half_gemm_atom<T, shape::mfma_m>;
  using mma = warp::warp_mma<atom, shape::tiles_m, shape::tiles_n, shape::row_bytes,
                             warp::from_lds<typename a_loader::layout>, warp::from_lds<typename b_loader::layout>>;
  using policy = block::scale_none<mma, shape::block_k>;
  using mainloop = block::gemm_mainloop<shape, mma, a_loader, b_loader, policy, /*KTail=*/true>;
  using scheduler = block::tile_scheduler_2d<shape::block_m, shape::block_n>;
  using body = block::gemm_block<shape, Order, scheduler, mainloop, Epilogue>;
  static_assert(mainloop::lds_bytes <= shape::lds_bytes,
                "gemm_half::parts: the config's LDS budget holds the mainloop's");
};

template <class T, class Out>
using params = block::gemm_params<T, T, block::scale_none_args, Out>;

// The body of a kernel over these parts with Epilogue (gemm_half's, ops/gemm_bias_act's): the
// kernel body every GEMM shares, which traps where the target cannot write C (an fp8 C in the other
// target's format) as where it has no atom.
template <class Cfg, class T, class Out, layout Order, class Epilogue, class Params>
WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void run_kernel(const Params& p) {
  constexpr bool writes_c =
      !is_fp8_e4m3_v<Out> || arch::reads_fp8<Out>(arch::current_target) || arch::current_target == arch::target::host;
  block::run_gemm_kernel<parts<Cfg, T, Out, Order, Epilogue>, 0, writes_c>(p);
}

template <class Cfg, class T, class Out, layout Order>
__global__ __launch_bounds__(Cfg::threads) WAVEKIT_MIN_WAVES_PER_SIMD(
    block::gemm_kernel_facts<parts<Cfg, T, Out, Order>>::min_waves_per_simd) void gemm_half_kernel(params<T, Out> p) {
  run_kernel<Cfg, T, Out, Order, block::epilogue_store<Out>>(p);
}

// Validates, then launches with the given configuration and number of K splits (the kernel is
// Cfg's kernel_config: Cfg's own SplitK plays no part here).
template <class Cfg, class T, class Out>
status launch(const problem& p, const args<T, Out>& a, int splits, hipStream_t stream) {
  using K = typename Cfg::kernel_config;
  if (status s = validate(p, a); !s.ok()) return s;
  return block::launch_split_gemm<Cfg::block_m, Cfg::block_n>(
      {lazy([&] { return Cfg::name(splits); }), lazy([&] { return p.str(); }), splits, Cfg::block_k, a.workspace,
       a.workspace_bytes},
      p, a.c, stream, [&](dim3 grid, const block::splitk_cut& cut, float* partials) {
        const auto kp = block::plain_gemm_params<params<T, Out>>(a.a, a.b, {a.c, partials}, p, cut);
        if (p.order == layout::k_contiguous)
          hipLaunchKernelGGL((gemm_half_kernel<K, T, Out, layout::k_contiguous>), grid, dim3(K::threads), 0, stream,
                             kp);
        else
          hipLaunchKernelGGL((gemm_half_kernel<K, T, Out, layout::mn_contiguous>), grid, dim3(K::threads), 0, stream,
                             kp);
      });
}

// The configuration's own number of K splits (Cfg::split_k).
template <class Cfg, class T, class Out>
status launch(const problem& p, const args<T, Out>& a, hipStream_t stream) {
  return launch<Cfg>(p, a, Cfg::split_k, stream);
}

}  // namespace wavekit::ops::gemm_half
