// GEMM + bias + activation's kernel and launcher: gemm_half's parts with a fused epilogue (the
// bias per column, the activation, C's conversion), split-K through the fused reduction.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <hip/hip_runtime.h>

#include "wavekit/block/epilogue_fused.hpp"
#include "wavekit/ops/gemm_bias_act/problem.hpp"
#include "wavekit/ops/gemm_half/kernel.hpp"

namespace wavekit::ops::gemm_bias_act {

template <class T, class Out, activation Act>
using epilogue = block::epilogue_fused<Out, Act, block::column_bias<T>>;
template <class T, class Out, activation Act>
using params = block::gemm_params<T, T, block::scale_none_args, Out, typename epilogue<T, Out, Act>::args>;

template <class Cfg, class T, class Out, activation Act, layout Order>
__global__ __launch_bounds__(Cfg::threads)
    WAVEKIT_MIN_WAVES_PER_SIMD(Cfg::min_waves_per_simd) void gemm_bias_act_kernel(params<T, Out, Act> p) {
  gemm_half::run_kernel<Cfg, T, Out, Order, epilogue<T, Out, Act>>(p);
}

// Validates, then launches gemm_half's config Cfg with `splits` K splits.
template <class Cfg, class T, class Out>
status launch(const problem& p, const args<T, Out>& a, int splits, hipStream_t stream) {
  using K = typename Cfg::kernel_config;
  if (status s = validate(p, a); !s.ok()) return s;
  const gemm_half::problem& g = p.gemm;
  const auto name = lazy([&] { return "gemm_bias_act with " + Cfg::name(splits); });
  const int steps = ceil_div(g.k, Cfg::block_k);
  const std::size_t need = gemm_half::workspace_bytes(g, splits);
  if (status s = block::check_splitk_launch(name, lazy([&] { return p.str(); }), splits, steps, need, a.workspace,
                                            a.workspace_bytes);
      !s.ok())
    return s;
  if (g.m == 0) return status::success();
  const block::splitk_cut cut = block::splitk_cut::of_k(g.k, Cfg::block_k, splits);
  if (status s = block::check_batched_splits(name, p.str(), cut.used_splits, g.batch.count); !s.ok()) return s;
  return with_activation(p.act, [&](auto act) {
    using E = epilogue<T, Out, decltype(act)::value>;
    typename E::args out{{a.c, need ? static_cast<float*>(a.workspace) : nullptr}, {{a.bias}}};
    if constexpr (is_fp8_e4m3_v<Out>) out.out_scale = a.out_scale;
    const auto kp = block::plain_gemm_params<params<T, Out, decltype(act)::value>>(a.a, a.b, out, g, cut);
    const dim3 grid =
        block::tile_scheduler_2d<Cfg::block_m, Cfg::block_n>::grid(g.m, g.n, cut.used_splits, g.batch.count);
    if (g.order == layout::k_contiguous)
      hipLaunchKernelGGL((gemm_bias_act_kernel<K, T, Out, decltype(act)::value, layout::k_contiguous>), grid,
                         dim3(K::threads), 0, stream, kp);
    else
      hipLaunchKernelGGL((gemm_bias_act_kernel<K, T, Out, decltype(act)::value, layout::mn_contiguous>), grid,
                         dim3(K::threads), 0, stream, kp);
    return block::finish_launch_then_reduce(name, need > 0, stream, [&](hipStream_t s) {
      return block::launch_splitk_reduce_fused<E>(static_cast<const float*>(a.workspace), kp.out,
                                                  block::reduce_view_of(g), cut.used_splits, s);
    });
  });
}

}  // namespace wavekit::ops::gemm_bias_act
