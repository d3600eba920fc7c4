// What wavekit::gemm_fp8_blockscale runs for a problem, asked without running anything: the plan
// (configuration and K splits) and the workspace it needs. Plain C++ with no HIP, so host code
// compiled by any C++20 compiler (g++ >= 12 included) can plan and size workspaces; the call
// itself is in ops/gemm_fp8_blockscale.hpp.
//
//   namespace gb = wavekit::ops::gemm_fp8_blockscale;
//   gb::problem p{m, n, k, wavekit::layout::mn_contiguous};
//   wavekit::result<std::size_t> ws = gb::workspace_bytes(p, wavekit::arch::target::gfx942);
//   auto plan = gb::select_plan(p, bytes, wavekit::arch::target::gfx942);
//   if (plan && plan.value().workspace_limited) ...  // fewer K splits than preferred: too little workspace
//
// Plans are per target (each plans with its own device facts); HIP code can leave the target out
// and get the current device's (ops/gemm_fp8_blockscale.hpp). Queries on a problem the call
// would refuse return that status (same code, same message).
//
// The plan descriptor below is all the planning this op owns (planning/planner.hpp asks it). A
// plan is the tuned tables' where they name the problem (tuning/gemm_fp8_blockscale.txt ships the
// model's plans of amd-fp8-mm's 18 shapes, written by tools/tuner without a GPU; measured ones
// belong there, docs/tuning.md), else the performance model's (model.hpp) among every shipped
// config but mfma32 (medium's tile, chosen explicitly only) with K splits in powers of two, each
// at least 4 scale groups of 128. The tables key a problem as
//   op gemm_fp8_blockscale; dtypes "<fp8>,<fp8>,bf16" with the target's fp8 format (e4m3fnuz on
//   gfx942, e4m3fn on gfx950); layout the problem's order
// and name a plan by its config_id_name ("large") and K splits.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "wavekit/arch/target.hpp"
#include "wavekit/block/splitk_rule.hpp"
#include "wavekit/core/result.hpp"
#include "wavekit/ops/gemm_fp8_blockscale/configs.hpp"
#include "wavekit/ops/gemm_fp8_blockscale/model.hpp"
#include "wavekit/ops/gemm_fp8_blockscale/problem.hpp"
#include "wavekit/planning/gemm_plan.hpp"
#include "wavekit/planning/gemm_plan_queries.hpp"
#include "wavekit/planning/planner.hpp"
#include "wavekit/planning/tables/key.hpp"
#include "wavekit/planning/tables/names.hpp"

namespace wavekit::ops::gemm_fp8_blockscale {

using plan_info = planning::gemm_plan_info<plan>;

inline std::string plan_name(plan pl) {
  return with_config(pl.config, [&](auto cfg) { return decltype(cfg)::name(pl.splits); });
}

// Multiply-adds a plan executes, the padding of partial tiles included.
inline double padded_flops(const problem& p, plan pl) {
  return planning::gemm_padded_flops(
      p.m, p.n, p.k, with_config(pl.config, [](auto cfg) { return planning::tile_facts_of<decltype(cfg)>(); }));
}

// Whether plan pl can run p: the launch's rule for its K splits, whole 128-K scale groups a split
// (block::check_splits).
inline status check_plan(const problem& p, plan pl) {
  if (status s = block::check_splits(plan_name(pl), p.str(), pl.splits, p.k_groups(), "K/128"); !s.ok()) return s;
  return block::check_batched_splits(plan_name(pl), p.str(), pl.splits, p.batch.count);
}

// A and B in the fp8 format target t's matrix cores read, C bf16: the tables' dtypes.
inline std::string tuning_dtypes(arch::target t) {
  const std::string fp8 = planning::fp8_dtype_name(t);
  return fp8 + "," + fp8 + "," + planning::dtype_name<bf16>();
}

struct plan_descriptor : planning::split_gemm_descriptor<plan_descriptor, problem, plan, all_configs> {
  static constexpr const planning::instance_family& family = codegen_family;

  static std::string dtypes(const problem&, arch::target t) { return tuning_dtypes(t); }
  static planning::query query(const problem& p, std::size_t workspace, arch::target t, std::string_view dtypes) {
    return {family.op, t, dtypes, workspace, {p.m, p.n, p.k, int(p.order)}};
  }
  static std::string table_layout(const problem& p) { return planning::table_layout_of(p.order, p.batch); }
  template <class F>
  static void candidates(const problem& p, std::size_t workspace, arch::target t, F&& consider) {
    for (config_id id : all_configs) {
      if (id == config_id::mfma32) continue;  // same tile as medium; chosen explicitly only
      planning::for_each_split(
          p.k_groups(), workspace, p.batch.count, [&](int splits) { return workspace_bytes(p, splits); },
          [&](int splits) {
            consider(plan{id, splits}, model_time(p, {id, splits}, t), p.batch.count * padded_flops(p, {id, splits}));
          });
    }
  }
  static status check(const problem& p, plan pl, arch::target) { return check_plan(p, pl); }
  static std::string name(plan pl) { return plan_name(pl); }
  static status check_shape(const problem& p) { return validate_shape(p); }
  static planning::op_time time(const problem& p, plan pl, arch::target t) { return model_time(p, pl, t); }
};

// The plan queries (planning/gemm_plan_queries.hpp): plan_queries::tuning_key, model_plan,
// validate_query, ... for tools and tests; the three a caller plans a launch with under this op's
// names, with its one set of element types (tuning_dtypes(t)): they take no dtypes. The model's
// seconds are those of target t's flagship part (MI300X, MI355X); workspace_bytes is what the plan
// chosen with unlimited workspace uses, and with less gemm_fp8_blockscale runs a plan with fewer
// splits (select_plan says which).
using plan_queries = planning::gemm_plan_queries<plan_descriptor>;
inline plan choose_plan(const problem& p, std::size_t workspace_bytes, arch::target t) {
  return plan_queries::choose_plan(p, workspace_bytes, t);
}
inline result<std::size_t> workspace_bytes(const problem& p, arch::target t) {
  return plan_queries::workspace_bytes(p, t);
}
inline result<plan_info> select_plan(const problem& p, std::size_t workspace, arch::target t) {
  return plan_queries::select_plan(p, workspace, t);
}

}  // namespace wavekit::ops::gemm_fp8_blockscale
