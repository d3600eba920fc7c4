// What wavekit::gemm_half runs for a problem, asked without running anything: the plan (config
// and K splits) and the workspace it needs. Plain C++ (no HIP), per target, like every op's plan:
//
//   wavekit::ops::gemm_half::problem p{m, n, k, wavekit::layout::k_contiguous};
//   auto ws = wavekit::ops::gemm_half::workspace_bytes(p, wavekit::arch::target::gfx942);   // result<size_t>
//   auto plan = wavekit::ops::gemm_half::select_plan(p, ws.value(), wavekit::arch::target::gfx942);
//
// Plans come from the performance model (model.hpp: perf/launch_time.hpp over the codegen profile of
// each config on the target): every shipped config, K splits in powers of two up to 16 with at least 4 K steps each,
// limited by the workspace. Queries on a problem the call would refuse return that status.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <cstddef>
#include <string>
#include <vector>

#include "wavekit/arch/target.hpp"
#include "wavekit/block/gemm_plan_model.hpp"
#include "wavekit/core/math.hpp"
#include "wavekit/core/result.hpp"
#include "wavekit/ops/gemm_half/configs.hpp"
#include "wavekit/ops/gemm_half/model.hpp"
#include "wavekit/ops/gemm_half/problem.hpp"
#include "wavekit/ops/gemm_half/tuning.hpp"
#include "wavekit/perf/plan_choice.hpp"
#include "wavekit/tuning/plan_cache.hpp"
#include "wavekit/tuning/tuned_or_model.hpp"

namespace wavekit::ops::gemm_half {

using plan_info = block::gemm_plan_info<plan>;

inline block::gemm_tile_facts facts(config_id id) {
  return with_config(id, [](auto cfg) { return block::tile_facts_of<decltype(cfg)>(); });
}
inline int k_steps(const problem& p, config_id id) {
  return with_config(id, [&](auto cfg) { return ceil_div(p.k, decltype(cfg)::block_k); });
}
inline std::string plan_name(plan pl) {
  return with_config(pl.config, [&](auto cfg) { return decltype(cfg)::name(pl.splits); });
}

// The model's seconds of a plan on target t's flagship part.
inline double model_seconds(const problem& p, plan pl, arch::target t) { return model_time(p, pl, t).us * 1e-6; }

// The model's plan with splits limited to what `workspace` holds: among the plans within the
// model's error of the fastest, the most robust (perf/plan_choice.hpp).
inline plan model_plan(const problem& p, std::size_t workspace, arch::target t) {
  std::vector<perf::scored_plan<plan>> candidates;
  for (config_id id : all_configs)
    for (int splits = 1; splits <= 16; splits *= 2) {
      if (splits > 1 && (k_steps(p, id) / splits < 4 || workspace_bytes(p, splits) > workspace)) break;
      candidates.push_back(perf::score(plan{id, splits}, model_time(p, {id, splits}, t),
                                       block::gemm_padded_flops(p.m, p.n, p.k, facts(id))));
    }
  return perf::choose_within_model_error(candidates);
}

// Whether plan pl can run p: the launch's rule for its K splits (block::check_splits).
inline status check_plan(const problem& p, plan pl) {
  return block::check_splits(plan_name(pl), p.str(), pl.splits, k_steps(p, pl.config));
}

// The tuned tables' plan for p with element types `dtypes` (tuning_dtypes; empty: bf16 in and out,
// what a query that does not know them asks for) on target t when it can run p (check_plan) and its
// K splits fit the workspace, else the model's (tuning/tuned_or_model.hpp).
// Each query's answer is kept for the process (tuning/plan_cache.hpp).
inline tuning::query plan_query(const problem& p, std::size_t workspace, arch::target t, const std::string& dtypes) {
  return {tuning_op, t, dtypes, workspace, {p.m, p.n, p.k, int(p.order)}};
}

inline plan choose_plan(const problem& p, std::size_t workspace, arch::target t,
                        const std::string& dtypes = std::string()) {
  static tuning::plan_cache<plan> cache;
  const std::string key_dtypes = dtypes.empty() ? tuning_dtypes<bf16, bf16>() : dtypes;
  return cache.get(plan_query(p, workspace, t, key_dtypes), [&] {
    return tuning::tuned_or_model<plan>(
        tuning_key(p, t, arch::facts_for(t).compute_units, key_dtypes), tuned_plan, tuning_value,
        [&] { return model_plan(p, workspace, t); }, [&](plan pl) { return check_plan(p, pl); },
        [&](plan pl) { return workspace_bytes(p, pl.splits) <= workspace; });
  });
}

inline status validate_query(const problem& p, arch::target t) {
  if (status s = validate_shape(p); !s.ok()) return s;
  return block::check_plan_target(lazy([&] { return "gemm_half " + p.str(); }), t);
}

// The workspace (fp32 split-K partials) the preferred plan for p on target t uses; 0 without split-K.
// dtypes: as choose_plan's (the call's tuning_dtypes<T, Out>() when known).
inline result<std::size_t> workspace_bytes(const problem& p, arch::target t,
                                           const std::string& dtypes = std::string()) {
  if (status s = validate_query(p, t); !s.ok()) return s;
  return workspace_bytes(p, choose_plan(p, ~std::size_t{0}, t, dtypes).splits);
}

// The plan gemm_half runs for p on target t given `workspace` bytes (0 when the pointer is null).
inline result<plan_info> select_plan(const problem& p, std::size_t workspace, arch::target t,
                                     const std::string& dtypes = std::string()) {
  if (status s = validate_query(p, t); !s.ok()) return s;
  // The answer with its name, kept per query as choose_plan's: a warm call formats nothing.
  static tuning::plan_cache<plan_info> described;
  return described.get(plan_query(p, workspace, t, dtypes.empty() ? tuning_dtypes<bf16, bf16>() : dtypes), [&] {
    return block::describe_plan(
        workspace, [&](std::size_t bytes) { return choose_plan(p, bytes, t, dtypes); },
        [](plan pl) { return plan_name(pl); }, [&](int splits) { return workspace_bytes(p, splits); });
  });
}

}  // namespace wavekit::ops::gemm_half
