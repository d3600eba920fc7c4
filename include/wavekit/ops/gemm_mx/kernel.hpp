// The MX GEMM's kernel for one config, as a composition of wavekit's parts, and its launcher
// (validation, the main kernel over a (N tiles, M tiles, splits) grid, the split-K reduction).
//
// Parts: byte-tile loaders of 8-bit or packed 4-bit rows into swizzled LDS rows, a warp MMA over
// gfx950's scaled f8f6f4 atom reading K in the atom's own order, the scales-in-the-instruction
// policy (each MFMA takes its lanes' e8m0 scales), the unscaled mainloop with a ragged first K step
// (K need only be a multiple of 32), the 2D tile scheduler with split-K, and the store epilogue.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <hip/hip_runtime.h>

#include <type_traits>

#include "wavekit/arch/codegen_targets.hpp"
#include "wavekit/arch/device.hpp"
#include "wavekit/arch/lds.hpp"
#include "wavekit/arch/mfma_atoms.hpp"
#include "wavekit/block/gemm_block.hpp"
#include "wavekit/block/gemm_kernel.hpp"
#include "wavekit/block/gemv_mx_block.hpp"
#include "wavekit/block/scale_in_instruction.hpp"
#include "wavekit/block/split_gemm_launch.hpp"
#include "wavekit/ops/gemm_mx/configs.hpp"
#include "wavekit/ops/gemm_mx/plan.hpp"
#include "wavekit/ops/gemm_mx/problem.hpp"
#include "wavekit/tile/tile_loader_k_contiguous.hpp"
#include "wavekit/tile/tile_loader_quantize_fp4.hpp"
#include "wavekit/warp/warp_mma.hpp"

namespace wavekit::ops::gemm_mx {

// BShuffled: B and its scales in aiter's pre-shuffled layouts (problem's b_layout), read in place.
template <class Cfg, class Elem, class Out, bool BShuffled = false>
struct parts {
  using shape = typename Cfg::template of<format_of<Elem>>;
  static constexpr int bits = element_bits(format_of<Elem>);
  template <int Rows, class Global = tile::rows_in_order>
  using loader = tile::tile_loader_k_contiguous<Rows, shape::row_bytes, shape::threads, bits, Global>;
  using a_loader = loader<shape::block_m>;
  using b_loader =
      loader<shape::block_n, std::conditional_t<BShuffled, tile::rows_shuffled_16x16, tile::rows_in_order>>;
  using atom = arch::mfma_scaled_atom<Elem, Elem, shape::mfma_m, shape::mfma_m>;
  using mma =
      warp::warp_mma<atom, shape::tiles_m, shape::tiles_n, shape::row_bytes, warp::from_lds<typename a_loader::layout>,
                     warp::from_lds<typename b_loader::layout>, warp::k_order::atom>;
  using policy = block::scale_in_instruction<mma, shape::block_k, void, BShuffled>;
  using mainloop = block::gemm_mainloop<shape, mma, a_loader, b_loader, policy, /*KTail=*/true>;
  using scheduler = block::tile_scheduler_2d<shape::block_m, shape::block_n>;
  using body = block::gemm_block<shape, layout::k_contiguous, scheduler, mainloop, block::epilogue_store<Out>>;
  static_assert(mainloop::lds_bytes <= shape::lds_bytes,
                "gemm_mx::parts: the config's LDS budget holds the mainloop's");
};

template <class Elem, class Out>
using params = block::gemm_params<mx_storage_t<Elem>, mx_storage_t<Elem>, block::mx_scale_args, Out>;

// MXFP4 with a 16-bit A (T) quantized as each A tile is loaded: the same parts but A's loader
// (tile_loader_quantize_fp4: fp4 rows and their scales into LDS) and the policy reading A's
// scales from beside the tile. Only configs whose A step fits the loader (quantizes_a_config).
template <class Cfg, class T, class Out, bool BShuffled = false>
struct parts_quantizing_a {
  using mx = parts<Cfg, fp4_e2m1, Out, BShuffled>;
  using shape = typename mx::shape;
  static_assert(quantizes_a_config<Cfg>, "gemm_mx: this config's A tile is too large to quantize as it loads");
  using a_loader = tile::tile_loader_quantize_fp4<shape::block_m, shape::row_bytes, shape::threads, T>;
  using b_loader = typename mx::b_loader;
  using atom = typename mx::atom;
  using mma = typename mx::mma;
  static_assert(std::is_same_v<typename a_loader::layout, typename mx::a_loader::layout>,
                "gemm_mx: the quantized A tile sits in LDS as an fp4 A would");
  using policy = block::scale_in_instruction<mma, shape::block_k, a_loader, BShuffled>;
  using mainloop = block::gemm_mainloop<shape, mma, a_loader, b_loader, policy, /*KTail=*/true>;
  using body =
      block::gemm_block<shape, layout::k_contiguous, typename mx::scheduler, mainloop, block::epilogue_store<Out>>;
  // The kernel's LDS and occupancy are the mainloop's (A's scales beside its tile), not the
  // config's (block::gemm_kernel_facts).
  static_assert(mainloop::lds_bytes <= shape::device.lds_bytes_per_workgroup, "gemm_mx: the tiles exceed gfx950's LDS");
};

template <class T, class Out>
using params_quantizing_a = block::gemm_params<T, fp4x2_e2m1, block::mx_scale_args, Out>;

template <class Cfg, class Elem, class Out, bool BShuffled = false>
__global__ __launch_bounds__(Cfg::threads) WAVEKIT_MIN_WAVES_PER_SIMD(
    block::gemm_kernel_facts<
        parts<Cfg, Elem, Out, BShuffled>>::min_waves_per_simd) void gemm_mx_kernel(params<Elem, Out> p) {
  // gfx942's pass of a GPU build traps (no scaled MFMAs): the launcher refuses that target first.
  block::run_gemm_kernel<parts<Cfg, Elem, Out, BShuffled>, BShuffled ? 0 : loop_budget<Cfg, format_of<Elem>>>(p);
}

// The GEMV path of MXFP8 decode: Rows rows of A a block, a C column a lane (no MFMAs, no LDS for
// B). Scales are OCP MX (e4m3fn), which gfx950's conversions read; gfx942 runs none of this op.
template <int Rows, class Out>
__global__ __launch_bounds__(gemv_config<Rows>::threads)
    WAVEKIT_MIN_WAVES_PER_SIMD(2) void gemm_mx_gemv_kernel(params<fp8_e4m3fn, Out> p) {
  using body = block::gemv_mx_block<Rows, Out>;
  static_assert(body::lds_bytes == gemv_config<Rows>::lds_bytes, "gemm_mx: the GEMV config's LDS is its block's");
  arch::declare_codegen_targets<body::lds_bytes, 2, 0, gemv_config<Rows>::loop_max>();
  if constexpr (!arch::runs_on_current_target<arch::mfma_scaled_atom<fp8_e4m3fn, fp8_e4m3fn, 16, 16>>) {
    __builtin_trap();  // gfx942's pass of a GPU build: the launcher refuses that target first
  } else {
    WAVEKIT_LDS_ARRAY(arch::u32x4, lds, body::lds_bytes / 16);
    block::tile_context context;
    context.batches = p.batch.count;
    body::run(p, body::scheduler::at((p.k + p.skip) / body::step_k, p.groups_per_split, context),
              reinterpret_cast<unsigned char*>(lds));
  }
}

template <class Cfg, class T, class Out, bool BShuffled = false>
__global__ __launch_bounds__(Cfg::threads)
    WAVEKIT_MIN_WAVES_PER_SIMD(block::gemm_kernel_facts<parts_quantizing_a<Cfg, T, Out>>::
                                   min_waves_per_simd) void gemm_mx_quantizing_a_kernel(params_quantizing_a<T, Out> p) {
  block::run_gemm_kernel<parts_quantizing_a<Cfg, T, Out, BShuffled>, quantizing_loop_budget<Cfg>>(p);
}

// What every launch does around its kernel: validate, check the target, then the split-K launch
// (block/split_gemm_launch.hpp: start(grid, cut, partials) launches the kernel).
template <class Cfg, class Args, class Start>
status launch_checked(const problem& p, const Args& a, int splits, arch::target device, hipStream_t stream,
                      Start&& start) {
  if (status s = validate(p, a); !s.ok()) return s;
  if (status s = check_target(p, device); !s.ok()) return s;
  return block::launch_split_gemm<Cfg::block_m, Cfg::block_n>(
      {lazy([&] { return Cfg::name(splits); }), lazy([&] { return p.str(); }), splits, block_k_of<Cfg>(p.format),
       a.workspace, a.workspace_bytes},
      p, a.c, stream, start);
}

// Validates, then launches with the given configuration and number of K splits on `device`'s
// target (the kernel is Cfg's kernel_config: Cfg's own SplitK plays no part here).
template <class Cfg, class Elem, class Out>
status launch(const problem& p, const args<Elem, Out>& a, int splits, arch::target device, hipStream_t stream) {
  using K = typename Cfg::kernel_config;
  return launch_checked<Cfg>(
      p, a, splits, device, stream, [&](dim3 grid, const block::splitk_cut& cut, float* partials) {
        const auto kp =
            block::make_gemm_params<params<Elem, Out>>(a.a, a.b, {a.a_scale, a.b_scale}, {a.c, partials}, p, cut);
        if (p.b == b_layout::preshuffled) {
          if constexpr (std::is_same_v<Elem, fp4_e2m1>)
            hipLaunchKernelGGL((gemm_mx_kernel<K, Elem, Out, true>), grid, dim3(K::threads), 0, stream, kp);
        } else {
          hipLaunchKernelGGL((gemm_mx_kernel<K, Elem, Out>), grid, dim3(K::threads), 0, stream, kp);
        }
      });
}

// The same for MXFP4 with a 16-bit A quantized in the kernel.
template <class Cfg, class T, class Out>
status launch(const problem& p, const args_quantizing_a<T, Out>& a, int splits, arch::target device,
              hipStream_t stream) {
  using K = typename Cfg::kernel_config;
  if (!quantizes_a_config<K>)
    return {status_code::bad_config,
            "gemm_mx " + p.str() + ": " + Cfg::name(splits) + "'s A tile is too large to quantize as it loads"};
  return launch_checked<Cfg>(
      p, a, splits, device, stream, [&](dim3 grid, const block::splitk_cut& cut, float* partials) {
        const auto kp = block::make_gemm_params<params_quantizing_a<T, Out>>(a.a, a.b, {nullptr, a.b_scale},
                                                                             {a.c, partials}, p, cut);
        if constexpr (quantizes_a_config<K>) {
          if (p.b == b_layout::preshuffled)
            hipLaunchKernelGGL((gemm_mx_quantizing_a_kernel<K, T, Out, true>), grid, dim3(K::threads), 0, stream, kp);
          else
            hipLaunchKernelGGL((gemm_mx_quantizing_a_kernel<K, T, Out>), grid, dim3(K::threads), 0, stream, kp);
        }
      });
}

// The GEMV path (Rows rows a block, M <= Rows) with MXFP8 arguments.
template <int Rows, class Out>
status launch_gemv(const problem& p, const args<fp8_e4m3fn, Out>& a, int splits, arch::target device,
                   hipStream_t stream) {
  using K = gemv_config<Rows>;
  if (p.m > Rows)
    return {status_code::bad_config,
            "gemm_mx " + p.str() + ": " + K::name(splits) + " holds at most " + std::to_string(Rows) + " rows of A"};
  return launch_checked<K>(p, a, splits, device, stream, [&](dim3 grid, const block::splitk_cut& cut, float* partials) {
    const auto kp =
        block::make_gemm_params<params<fp8_e4m3fn, Out>>(a.a, a.b, {a.a_scale, a.b_scale}, {a.c, partials}, p, cut);
    hipLaunchKernelGGL((gemm_mx_gemv_kernel<Rows, Out>), grid, dim3(K::threads), 0, stream, kp);
  });
}

// A plan's launch: its config's kernel, or the GEMV.
template <class Args>
status launch_plan(const problem& p, const Args& a, plan pl, arch::target device, hipStream_t stream) {
  if (pl.gemv_rows) {
    if constexpr (std::is_same_v<Args, args<fp8_e4m3fn, bf16>> || std::is_same_v<Args, args<fp8_e4m3fn, fp16>>)
      return with_gemv_config(
          pl.gemv_rows, [&](auto cfg) { return launch_gemv<decltype(cfg)::block_m>(p, a, pl.splits, device, stream); });
    return {status_code::bad_config, "gemm_mx " + p.str() + ": the GEMV path takes MXFP8 arguments"};
  }
  return with_config(pl.config, [&](auto cfg) { return launch<decltype(cfg)>(p, a, pl.splits, device, stream); });
}

// The same on the current device's target (either kind of arguments).
template <class Cfg, class Args>
status launch(const problem& p, const Args& a, int splits, hipStream_t stream) {
  return launch<Cfg>(p, a, splits, arch::current_device_arch().kind, stream);
}

}  // namespace wavekit::ops::gemm_mx
