// Choosing a plan (configuration + number of K splits) for a block-scaled fp8 GEMM.
//
// Plans are per target. On gfx942 the 18 benchmark shapes of the amd-fp8-mm problem come from a
// table; every other shape, and every shape on gfx950, from a performance model. The table holds
// what the model chose for the MI300X when it was written: no AMD GPU was available to measure,
// so both are estimates, and the table is where measured choices (bench/bench_gemm_fp8_blockscale
// on an MI300X) belong.
//
// The model is every GEMM's (block/gemm_plan_model.hpp), with the target's own device facts.
// Splits are powers of two with at least 4 scale groups each.
#pragma once

#include <algorithm>
#include <cmath>
#include <string>

#include "wavekit/arch/device_facts.hpp"
#include "wavekit/block/gemm_plan_model.hpp"
#include "wavekit/ops/gemm_fp8_blockscale/configs.hpp"
#include "wavekit/ops/gemm_fp8_blockscale/problem.hpp"

namespace wavekit::ops::gemm_fp8_blockscale {

struct plan {
  config_id config = config_id::large;
  int splits = 1;
};

struct table_entry {
  int m, n, k;
  struct plan plan;
};

namespace detail {

inline block::gemm_tile_facts facts(config_id id, arch::target t) {
  return with_config(id, [&](auto cfg) {
    using C = decltype(cfg);
    const int lds = t == arch::target::gfx950 ? C::template on<arch::target::gfx950>::lds_bytes : C::lds_bytes;
    return block::gemm_tile_facts{C::block_m, C::block_n, C::wave_m, C::wave_n, lds};
  });
}

}  // namespace detail

// Estimated seconds of a plan on target t's flagship part (MI300X, MI355X).
inline double model_seconds(const problem& p, plan pl, arch::target t) {
  // gfx950's kernels run the f8f6f4 MFMAs (arch::fp8_gemm_atom): both targets at their fp8 rate.
  return block::gemm_model_seconds(p.m, p.n, p.k, detail::facts(pl.config, t), pl.splits,
                                   block::planned_facts(t).fp8_dense_tflops, {1, 1, 2}, t);
}

// Multiply-adds a plan executes, the padding of partial tiles included.
inline double padded_flops(const problem& p, plan pl) {
  return block::gemm_padded_flops(p.m, p.n, p.k, detail::facts(pl.config, arch::target::gfx942));
}

// The model's best plan; splits limited to what `workspace_bytes` holds. Within 2% of the best
// time (a tie for the model, typically where memory bounds every plan) the plan with less padded
// work wins (the 16-row tile rather than a 128-row one for M = 1), then the one with fewer splits.
inline plan model_plan(const problem& p, std::size_t workspace_bytes, arch::target t) {
  plan best;
  double best_time = 1e30, best_work = 1e300;
  for (config_id id : all_configs) {
    if (id == config_id::mfma32) continue;  // same tile as medium; chosen explicitly only
    for (int splits = 1; splits <= 16; splits *= 2) {
      if (splits > 1 &&
          (p.k_groups() / splits < 4 || std::size_t(splits) * p.m * p.n * sizeof(float) > workspace_bytes))
        break;
      const double time = model_seconds(p, {id, splits}, t), work = padded_flops(p, {id, splits});
      if (block::gemm_model_prefers(time, work, best_time, best_work)) {
        best = {id, splits};
        best_time = std::min(best_time, time), best_work = work;
      }
    }
  }
  return best;
}

// The 18 benchmark shapes of amd-fp8-mm (docs/gemm-fp8-blockscale.md) in their mn_contiguous order,
// chosen by the model for the MI300X (gfx942); see above. The comment of each entry is the model's
// estimate.
// clang-format off
inline constexpr table_entry table[] = {
    {1024, 1536, 7168, {config_id::medium, 1}},  // 33.8 us
    {1024, 3072, 1536, {config_id::large, 1}},  // 13.8 us
    {1024, 576, 7168, {config_id::large, 4}},  // 19.1 us
    {1024, 7168, 256, {config_id::large, 1}},  // 6.9 us
    {1024, 7168, 2048, {config_id::large, 1}},  // 36.0 us
    {1024, 4608, 7168, {config_id::large, 1}},  // 76.6 us
    {1024, 7168, 2304, {config_id::large, 1}},  // 40.2 us
    {1024, 512, 7168, {config_id::medium, 4}},  // 17.4 us
    {1024, 4096, 512, {config_id::large, 1}},  // 6.3 us
    {6144, 1536, 7168, {config_id::large, 1}},  // 153.1 us
    {6144, 3072, 1536, {config_id::large, 1}},  // 71.2 us
    {6144, 576, 7168, {config_id::large, 1}},  // 64.3 us
    {6144, 7168, 256, {config_id::large, 1}},  // 41.5 us
    {6144, 7168, 2048, {config_id::large, 1}},  // 216.0 us
    {6144, 4608, 7168, {config_id::large, 1}},  // 459.4 us
    {6144, 7168, 2304, {config_id::large, 1}},  // 241.0 us
    {6144, 512, 7168, {config_id::large, 1}},  // 64.3 us
    {6144, 4096, 512, {config_id::large, 1}},  // 38.0 us
};
// clang-format on

inline plan choose_plan(const problem& p, std::size_t workspace_bytes, arch::target t) {
  if (t == arch::target::gfx942)
    for (const table_entry& e : table)
      if (e.m == p.m && e.n == p.n && e.k == p.k &&
          (e.plan.splits == 1 || std::size_t(e.plan.splits) * p.m * p.n * sizeof(float) <= workspace_bytes))
        return e.plan;
  return model_plan(p, workspace_bytes, t);
}

inline std::string plan_name(plan pl) {
  return with_config(pl.config, [&](auto cfg) { return decltype(cfg)::name(pl.splits); });
}

}  // namespace wavekit::ops::gemm_fp8_blockscale
