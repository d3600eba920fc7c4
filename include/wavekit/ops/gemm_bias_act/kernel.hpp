// GEMM + bias + activation's kernel and launcher: gemm_half's parts with a fused epilogue (the
// bias per column, the activation, C's conversion), split-K through the fused reduction.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <hip/hip_runtime.h>

#include "wavekit/block/epilogue_fused.hpp"
#include "wavekit/block/split_gemm_launch.hpp"
#include "wavekit/ops/gemm_bias_act/problem.hpp"
#include "wavekit/ops/gemm_half/kernel.hpp"

namespace wavekit::ops::gemm_bias_act {

template <class T, class Out, activation Act>
using epilogue = block::epilogue_fused<Out, Act, block::column_bias<T>>;
template <class T, class Out, activation Act>
using params = block::gemm_params<T, T, block::scale_none_args, Out, typename epilogue<T, Out, Act>::args>;

template <class Cfg, class T, class Out, activation Act, layout Order>
__global__ __launch_bounds__(Cfg::threads)
    WAVEKIT_MIN_WAVES_PER_SIMD(block::gemm_kernel_facts<gemm_half::parts<Cfg, T, Out, Order, epilogue<T, Out, Act>>>::
                                   min_waves_per_simd) void gemm_bias_act_kernel(params<T, Out, Act> p) {
  gemm_half::run_kernel<Cfg, T, Out, Order, epilogue<T, Out, Act>>(p);
}

// Validates, then launches gemm_half's config Cfg with `splits` K splits.
template <class Cfg, class T, class Out>
status launch(const problem& p, const args<T, Out>& a, int splits, hipStream_t stream) {
  using K = typename Cfg::kernel_config;
  if (status s = validate(p, a); !s.ok()) return s;
  const gemm_half::problem& g = p.gemm;
  return with_activation(p.act, [&](auto act) {
    constexpr activation A = decltype(act)::value;
    using E = epilogue<T, Out, A>;
    typename E::args out{{a.c, nullptr}, {{a.bias}}};
    if constexpr (is_fp8_e4m3_v<Out>) out.out_scale = a.out_scale;
    return block::launch_split_gemm<Cfg::block_m, Cfg::block_n>(
        {lazy([&] { return "gemm_bias_act with " + Cfg::name(splits); }), lazy([&] { return p.str(); }), splits,
         Cfg::block_k, a.workspace, a.workspace_bytes},
        g, stream,
        [&](dim3 grid, const block::splitk_cut& cut, float* partials) {
          out.partials = partials;
          const auto kp = block::plain_gemm_params<params<T, Out, A>>(a.a, a.b, out, g, cut);
          out = kp.out;  // with C's row stride, as the reduction writes C too
          if (g.order == layout::k_contiguous)
            hipLaunchKernelGGL((gemm_bias_act_kernel<K, T, Out, A, layout::k_contiguous>), grid, dim3(K::threads), 0,
                               stream, kp);
          else
            hipLaunchKernelGGL((gemm_bias_act_kernel<K, T, Out, A, layout::mn_contiguous>), grid, dim3(K::threads), 0,
                               stream, kp);
        },
        // The epilogue runs once, in the reduction, on the fixed-order sum of the splits.
        [&](const float* partials, int used_splits, hipStream_t s) {
          return block::launch_splitk_reduce_fused<E>(partials, out, block::reduce_view_of(g), used_splits, s);
        });
  });
}

}  // namespace wavekit::ops::gemm_bias_act
