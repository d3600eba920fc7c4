// The scaled fp8 GEMM's kernel for one config, as a composition of wavekit's parts, and its
// launcher (validation, the main kernel over a (N tiles, M tiles, splits) grid, the split-K
// reduction).
//
// Parts: fp8 byte-tile loaders (transposing for the M/N-contiguous order) into swizzled LDS rows of
// the target's K step, a warp MMA over the target's fp8 atom (gfx942: the K = 32 / 16 forms, or
// for the skinny `pairs` config the sparse 16x16x64 as a dense 8-row atom; gfx950: the f8f6f4
// forms at neutral e8m0 scales), the unscaled mainloop with a ragged first K
// step (K need only be a multiple of 16), the 2D tile scheduler
// with split-K, and the store epilogue with the scale policy's per-tensor / per-row / per-column
// transform.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <hip/hip_runtime.h>

#include <type_traits>

#include "wavekit/arch/codegen_targets.hpp"
#include "wavekit/arch/device.hpp"
#include "wavekit/arch/lds.hpp"
#include "wavekit/arch/mfma_atoms.hpp"
#include "wavekit/arch/mfma_row_pairs.hpp"
#include "wavekit/block/gemm_block.hpp"
#include "wavekit/block/gemm_kernel.hpp"
#include "wavekit/block/scale_epilogue.hpp"
#include "wavekit/block/split_gemm_launch.hpp"
#include "wavekit/ops/gemm_fp8_scaled/configs.hpp"
#include "wavekit/ops/gemm_fp8_scaled/problem.hpp"
#include "wavekit/tile/tile_loader_k_contiguous.hpp"
#include "wavekit/tile/tile_loader_mn_contiguous.hpp"
#include "wavekit/warp/warp_mma.hpp"

namespace wavekit::ops::gemm_fp8_scaled {

template <class Cfg, class Fp8, class Out, layout Order, scale_granularity AScale, scale_granularity BScale>
struct parts {
  using shape = typename Cfg::template on<arch::kernel_view_target>;
  template <int Rows>
  using loader = std::conditional_t<Order == layout::k_contiguous,
                                    tile::tile_loader_k_contiguous<Rows, shape::row_bytes, shape::threads>,
                                    tile::tile_loader_mn_contiguous<Rows, shape::row_bytes, shape::threads>>;
  using a_loader = loader<shape::block_m>;
  using b_loader = loader<shape::block_n>;
  using atom =
      std::conditional_t<Cfg::row_pairs, arch::smfmac_row_pairs_atom<Fp8>, arch::fp8_gemm_atom<Fp8, shape::mfma_n>>;
  using mma = warp::warp_mma<atom, shape::tiles_m, shape::tiles_n, shape::row_bytes,
                             warp::from_lds<typename a_loader::layout>, warp::from_lds<typename b_loader::layout>>;
  using policy = block::scale_epilogue<mma, shape::block_k, AScale, BScale>;
  using mainloop = block::gemm_mainloop<shape, mma, a_loader, b_loader, policy, /*KTail=*/true>;
  using scheduler = block::tile_scheduler_2d<shape::block_m, shape::block_n>;
  using body = block::gemm_block<shape, Order, scheduler, mainloop, block::epilogue_store<Out>>;
  static_assert(mainloop::lds_bytes <= shape::lds_bytes,
                "gemm_fp8_scaled::parts: the config's LDS budget holds the mainloop's");
};

template <class Fp8, class Out>
using params = block::gemm_params<Fp8, Fp8, block::epilogue_scale_args, Out>;

template <class Cfg, class Fp8, class Out, layout Order, scale_granularity AScale, scale_granularity BScale>
__global__ __launch_bounds__(Cfg::threads)
    WAVEKIT_MIN_WAVES_PER_SIMD(block::gemm_kernel_facts<parts<Cfg, Fp8, Out, Order, AScale, BScale>>::
                                   min_waves_per_simd) void gemm_fp8_scaled_kernel(params<Fp8, Out> p) {
  // The skinny family's loop budget is for its decode form, A and B K-contiguous.
  block::run_gemm_kernel<parts<Cfg, Fp8, Out, Order, AScale, BScale>,
                         Order == layout::k_contiguous ? Cfg::loop_per_64_max : 0>(p);
}

// The K step the device's target runs with Cfg (the launcher's split arithmetic needs it).
template <class Cfg>
int block_k_on(arch::target t) {
  return t == arch::target::gfx950 ? Cfg::template block_k_on<arch::target::gfx950>
                                   : Cfg::template block_k_on<arch::target::gfx942>;
}

// Validates, then launches with the given configuration and number of K splits on `device`'s
// target (the kernel is Cfg's kernel_config: Cfg's own SplitK plays no part here).
template <class Cfg, class Fp8, class Out>
status launch(const problem& p, const args<Fp8, Out>& a, int splits, arch::target device, hipStream_t stream) {
  using K = typename Cfg::kernel_config;
  if (status s = validate(p, a); !s.ok()) return s;
  return block::launch_split_gemm<Cfg::block_m, Cfg::block_n>(
      {lazy([&] { return Cfg::name(splits); }), lazy([&] { return p.str(); }), splits, block_k_on<Cfg>(device),
       a.workspace, a.workspace_bytes},
      p, a.c, stream, [&](dim3 grid, const block::splitk_cut& cut, float* partials) {
        const auto kp =
            block::make_gemm_params<params<Fp8, Out>>(a.a, a.b, {a.a_scale, a.b_scale}, {a.c, partials}, p, cut);
        // One kernel per storage order and scale granularity pair.
        auto launch_with = [&]<layout O, scale_granularity A, scale_granularity B>() {
          hipLaunchKernelGGL((gemm_fp8_scaled_kernel<K, Fp8, Out, O, A, B>), grid, dim3(K::threads), 0, stream, kp);
        };
        auto with_scales = [&]<layout O>() {
          using enum scale_granularity;
          if (p.a_scales == tensor && p.b_scales == tensor) launch_with.template operator()<O, tensor, tensor>();
          if (p.a_scales == tensor && p.b_scales == row) launch_with.template operator()<O, tensor, row>();
          if (p.a_scales == row && p.b_scales == tensor) launch_with.template operator()<O, row, tensor>();
          if (p.a_scales == row && p.b_scales == row) launch_with.template operator()<O, row, row>();
        };
        if (p.order == layout::k_contiguous)
          with_scales.template operator()<layout::k_contiguous>();
        else
          with_scales.template operator()<layout::mn_contiguous>();
      });
}

// The same on the current device's target.
template <class Cfg, class Fp8, class Out>
status launch(const problem& p, const args<Fp8, Out>& a, int splits, hipStream_t stream) {
  return launch<Cfg>(p, a, splits, arch::current_device_arch().kind, stream);
}

}  // namespace wavekit::ops::gemm_fp8_scaled
