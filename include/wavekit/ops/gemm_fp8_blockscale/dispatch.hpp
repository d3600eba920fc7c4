// Choosing a plan (configuration + number of K splits) for a block-scaled fp8 GEMM.
//
// Plans are per target: the tuned tables' (tuning/, docs/tuning.md) where they name the problem,
// else the performance model's. No AMD GPU was available to measure: the shipped table holds the
// model's plans of the amd-fp8-mm benchmark shapes, and measured ones (tools/tuner on an MI300X or
// MI355X) belong there.
//
// The model is the performance model (model.hpp: perf/launch_time.hpp over the codegen profile of
// each config on the target). Splits are powers of two with at least 4 scale groups each.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "wavekit/arch/device_facts.hpp"
#include "wavekit/block/gemm_plan_model.hpp"
#include "wavekit/ops/gemm_fp8_blockscale/configs.hpp"
#include "wavekit/ops/gemm_fp8_blockscale/model.hpp"
#include "wavekit/ops/gemm_fp8_blockscale/problem.hpp"
#include "wavekit/ops/gemm_fp8_blockscale/tuning.hpp"
#include "wavekit/perf/plan_choice.hpp"
#include "wavekit/tuning/plan_cache.hpp"
#include "wavekit/tuning/tuned_or_model.hpp"

namespace wavekit::ops::gemm_fp8_blockscale {

namespace detail {

inline block::gemm_tile_facts facts(config_id id) {
  return with_config(id, [](auto cfg) { return block::tile_facts_of<decltype(cfg)>(); });
}

}  // namespace detail

// The model's seconds of a plan on target t's flagship part (MI300X, MI355X).
inline double model_seconds(const problem& p, plan pl, arch::target t) { return model_time(p, pl, t).us * 1e-6; }

// Multiply-adds a plan executes, the padding of partial tiles included.
inline double padded_flops(const problem& p, plan pl) {
  return block::gemm_padded_flops(p.m, p.n, p.k, detail::facts(pl.config));
}

// The model's plan; splits limited to what `workspace_bytes` holds: among the plans within the
// model's error of the fastest, the most robust (perf/plan_choice.hpp: the most waves in flight,
// then the deepest prefetch, then the least padded work, then the fastest).
inline plan model_plan(const problem& p, std::size_t workspace_bytes, arch::target t) {
  std::vector<perf::scored_plan<plan>> candidates;
  for (config_id id : all_configs) {
    if (id == config_id::mfma32) continue;  // same tile as medium; chosen explicitly only
    for (int splits = 1; splits <= 16; splits *= 2) {
      if (splits > 1 &&
          (p.k_groups() / splits < 4 || std::size_t(splits) * p.m * p.n * sizeof(float) > workspace_bytes))
        break;
      candidates.push_back(
          perf::score(plan{id, splits}, model_time(p, {id, splits}, t), padded_flops(p, {id, splits})));
    }
  }
  return perf::choose_within_model_error(candidates);
}

inline std::string plan_name(plan pl) {
  return with_config(pl.config, [&](auto cfg) { return decltype(cfg)::name(pl.splits); });
}

// Whether plan pl can run p: the launch's rule for its K splits, whole 128-K scale groups a split
// (block::check_splits).
inline status check_plan(const problem& p, plan pl) {
  return block::check_splits(plan_name(pl), p.str(), pl.splits, p.k_groups(), "K/128");
}

// The tuned tables' plan for p on target t (tuning/gemm_fp8_blockscale.txt ships the 18 benchmark
// shapes of amd-fp8-mm; WAVEKIT_TUNING_FILES adds others: docs/tuning.md) when it can run p
// (check_plan) and its K splits fit the workspace, else the model's (tuning/tuned_or_model.hpp).
// Each query's answer is kept for the process (tuning/plan_cache.hpp).
inline tuning::query plan_query(const problem& p, std::size_t workspace_bytes, arch::target t) {
  return {tuning_op, t, tuning_dtypes(t), workspace_bytes, {p.m, p.n, p.k, int(p.order)}};
}

inline plan choose_plan(const problem& p, std::size_t workspace_bytes, arch::target t) {
  static tuning::plan_cache<plan> cache;
  return cache.get(plan_query(p, workspace_bytes, t), [&] {
    return tuning::tuned_or_model<plan>(
        tuning_key(p, t, arch::facts_for(t).compute_units), tuned_plan, tuning_value,
        [&] { return model_plan(p, workspace_bytes, t); }, [&](plan pl) { return check_plan(p, pl); },
        [&](plan pl) { return block::splitk_workspace_bytes(p.m, p.n, pl.splits) <= workspace_bytes; });
  });
}

}  // namespace wavekit::ops::gemm_fp8_blockscale
