// What wavekit::gemm_half runs for a problem, asked without running anything: the plan (config
// and K splits) and the workspace it needs. Plain C++ (no HIP), per target, like every op's plan:
//
//   wavekit::ops::gemm_half::problem p{m, n, k, wavekit::layout::k_contiguous};
//   auto ws = wavekit::ops::gemm_half::workspace_bytes(p, wavekit::arch::target::gfx942);   // result<size_t>
//   auto plan = wavekit::ops::gemm_half::select_plan(p, ws.value(), wavekit::arch::target::gfx942);
//
// The plan descriptor below is all the planning this op owns (planning/planner.hpp asks it): the
// candidates are every shipped config with K splits in powers of two up to 16, at least 4 K steps
// each, limited by the workspace, timed by the performance model (model.hpp); the tuned tables key
// a problem as
//   op gemm_half; dtypes "<T>,<T>,<Out>" ("bf16,bf16,bf16", "fp16,fp16,fp32"); layout the order
// and name a plan by its config_id_name ("large") and K splits. Queries on a problem the call
// would refuse return that status.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "wavekit/arch/target.hpp"
#include "wavekit/block/splitk_rule.hpp"
#include "wavekit/core/math.hpp"
#include "wavekit/core/result.hpp"
#include "wavekit/ops/gemm_half/configs.hpp"
#include "wavekit/ops/gemm_half/model.hpp"
#include "wavekit/ops/gemm_half/problem.hpp"
#include "wavekit/planning/gemm_plan.hpp"
#include "wavekit/planning/gemm_plan_queries.hpp"
#include "wavekit/planning/planner.hpp"
#include "wavekit/planning/tables/key.hpp"
#include "wavekit/planning/tables/names.hpp"

namespace wavekit::ops::gemm_half {

using plan_info = planning::gemm_plan_info<plan>;

inline planning::gemm_tile_facts facts(config_id id) {
  return with_config(id, [](auto cfg) { return planning::tile_facts_of<decltype(cfg)>(); });
}
inline int k_steps(const problem& p, config_id id) {
  return with_config(id, [&](auto cfg) { return ceil_div(p.k, decltype(cfg)::block_k); });
}
inline std::string plan_name(plan pl) {
  return with_config(pl.config, [&](auto cfg) { return decltype(cfg)::name(pl.splits); });
}

// The tuned tables' spelling of the element types: T for A and B (bf16 or fp16), Out for C (bf16,
// fp16 or float).
template <class T, class Out>
std::string tuning_dtypes() {
  return std::string(planning::dtype_name<T>()) + "," + planning::dtype_name<T>() + "," + planning::dtype_name<Out>();
}
template <class T, class Out>
std::string tuning_dtypes_of(const args<T, Out>&) {
  return tuning_dtypes<T, Out>();
}

// Whether plan pl can run p: the launch's rules for its K splits (block::check_splits, and the grid's
// splits x batch).
inline status check_plan(const problem& p, plan pl) {
  if (status s = block::check_splits(plan_name(pl), p.str(), pl.splits, k_steps(p, pl.config)); !s.ok()) return s;
  return block::check_batched_splits(plan_name(pl), p.str(), pl.splits, p.batch.count);
}

struct plan_descriptor : planning::split_gemm_descriptor<plan_descriptor, problem, plan, all_configs> {
  static constexpr const planning::instance_family& family = codegen_family;

  static std::string dtypes(const problem&, arch::target) { return tuning_dtypes<bf16, bf16>(); }
  static planning::query query(const problem& p, std::size_t workspace, arch::target t, std::string_view dtypes) {
    return {family.op, t, dtypes, workspace, {p.m, p.n, p.k, int(p.order)}};
  }
  static std::string table_layout(const problem& p) { return planning::table_layout_of(p.order, p.batch); }
  template <class F>
  static void candidates(const problem& p, std::size_t workspace, arch::target t, F&& consider) {
    for (config_id id : all_configs)
      planning::for_each_split(
          k_steps(p, id), workspace, p.batch.count, [&](int splits) { return workspace_bytes(p, splits); },
          [&](int splits) {
            consider(plan{id, splits}, model_time(p, {id, splits}, t),
                     p.batch.count * planning::gemm_padded_flops(p.m, p.n, p.k, facts(id)));
          });
  }
  static status check(const problem& p, plan pl, arch::target) { return check_plan(p, pl); }
  static std::string name(plan pl) { return plan_name(pl); }
  static status check_shape(const problem& p) { return validate_shape(p); }
  static planning::op_time time(const problem& p, plan pl, arch::target t) { return model_time(p, pl, t); }
};

// The plan queries (planning/gemm_plan_queries.hpp): plan_queries::tuning_key, model_plan,
// validate_query, ... for tools and tests; the three a caller plans a launch with under this op's
// names. dtypes: the call's element types (tuning_dtypes<T, Out>()); empty: bf16 in and out, what a
// query that does not know them asks for.
using plan_queries = planning::gemm_plan_queries<plan_descriptor>;
inline plan choose_plan(const problem& p, std::size_t workspace, arch::target t, std::string_view dtypes = {}) {
  return plan_queries::choose_plan(p, workspace, t, dtypes);
}
inline result<std::size_t> workspace_bytes(const problem& p, arch::target t, std::string_view dtypes = {}) {
  return plan_queries::workspace_bytes(p, t, dtypes);
}
inline result<plan_info> select_plan(const problem& p, std::size_t workspace, arch::target t,
                                     std::string_view dtypes = {}) {
  return plan_queries::select_plan(p, workspace, t, dtypes);
}

}  // namespace wavekit::ops::gemm_half
