// A GEMM composed with an epilogue of the test's choosing, as an op composes one: gemm_half's parts
// (bf16 A and B, K-contiguous) with Epilogue, launched over a (N tiles, M tiles, splits) grid, and
// (with split-K) the epilogue's reduction. For tests of the epilogue slot (test/block/).
#pragma once

#include <hip/hip_runtime.h>
#include <catch2/catch.hpp>

#include "wavekit/block/gemm_block.hpp"
#include "wavekit/block/splitk_reduce.hpp"
#include "wavekit/ops/gemm_half/kernel.hpp"

namespace wavekit::test {

template <class Cfg, class Epilogue, class Out>
__global__ __launch_bounds__(Cfg::threads) void fused_gemm_kernel(
    block::gemm_params<bf16, bf16, block::scale_none_args, Out, typename Epilogue::args> p) {
  ops::gemm_half::run_kernel<Cfg, bf16, Out, layout::k_contiguous, Epilogue>(p);
}

// C = A (m x k) B (n x k)^T through Epilogue (its arguments `out`, their partials the workspace's
// when splits > 1), then reduce(partials, out, m, n, used splits) with split-K; waits for both.
template <class Cfg, class Epilogue, class Out, class Reduce>
void run_fused_gemm(const bf16* a, const bf16* b, const typename Epilogue::args& out, int m, int n, int k, int splits,
                    Reduce&& reduce) {
  const block::splitk_cut cut = block::splitk_cut::of_k(k, Cfg::block_k, splits);
  const int used = cut.used_splits;
  const block::gemm_params<bf16, bf16, block::scale_none_args, Out, typename Epilogue::args> p{
      a, b, {}, out, m, n, k, cut.per_split, cut.skip};
  const dim3 grid = block::tile_scheduler_2d<Cfg::block_m, Cfg::block_n>::grid(m, n, used);
  hipLaunchKernelGGL((fused_gemm_kernel<Cfg, Epilogue, Out>), grid, dim3(Cfg::threads), 0, nullptr, p);
  REQUIRE(hipGetLastError() == hipSuccess);
  if (splits > 1) REQUIRE(reduce(out.partials, out, m, n, used) == hipSuccess);
  REQUIRE(hipDeviceSynchronize() == hipSuccess);
}

}  // namespace wavekit::test
