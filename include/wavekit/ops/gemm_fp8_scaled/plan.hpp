// What wavekit::gemm_fp8_scaled runs for a problem, asked without running anything: the plan
// (config and K splits) and the workspace it needs. Plain C++ (no HIP), per target:
//
//   namespace gs = wavekit::ops::gemm_fp8_scaled;
//   gs::problem p{m, n, k, wavekit::layout::k_contiguous, gs::scale_granularity::row,
//                 gs::scale_granularity::row};
//   auto plan = gs::select_plan(p, workspace_bytes, wavekit::arch::target::gfx950);
//
// Plans come from the performance model (model.hpp: planning/model/launch_time.hpp over the codegen profile of
// each config on the target; gfx950 runs the f8f6f4 forms), K splits in powers of two up to 16 with at least 4 K
// steps each, limited by the workspace. The configs offered depend on M:
//   M > 16    the dense GEMM's (large ... decode);
//   M <= 16   the skinny family (skinny, decode), and on gfx942 for M <= 8 only `pairs`, the
//             sparse MFMA's row pairs, which multiply no padding rows (docs/gemm-fp8-skinny.md);
// and for M <= 16, where B's bytes are the time, only plans whose reads from memory (each byte of
// A, B and the scales once, the split-K partials written and read back) stay within
// skinny_read_budget of reading A, B and C once: each weight byte comes from memory once. A's
// re-reads, once per column of tiles, are L2 hits, which the model times as L2 traffic: counting
// them against the budget (as it once did) left only the 512-column tile at M 9 to 16, 3 times
// slower in the model than M = 17 at N = 2304 (too few workgroups to stream B).
//
// The plan descriptor below is all the planning this op owns beyond those rules
// (planning/planner.hpp asks it). The tuned tables key a problem as
//   op gemm_fp8_scaled; dtypes "<fp8>,<fp8>,<Out>" with the target's fp8 format (e4m3fnuz on
//   gfx942, e4m3fn on gfx950) and C bf16 or fp16; layout the problem's order (the scale
//   granularities are not in the key: they change no plan's work)
// and name a plan by its config_id_name ("skinny") and K splits.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <cmath>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "wavekit/arch/target.hpp"
#include "wavekit/block/splitk_rule.hpp"
#include "wavekit/core/math.hpp"
#include "wavekit/core/result.hpp"
#include "wavekit/ops/gemm_fp8_scaled/configs.hpp"
#include "wavekit/ops/gemm_fp8_scaled/model.hpp"
#include "wavekit/ops/gemm_fp8_scaled/problem.hpp"
#include "wavekit/planning/gemm_plan.hpp"
#include "wavekit/planning/gemm_plan_queries.hpp"
#include "wavekit/planning/planner.hpp"
#include "wavekit/planning/tables/key.hpp"
#include "wavekit/planning/tables/names.hpp"

namespace wavekit::ops::gemm_fp8_scaled {

using plan_info = planning::gemm_plan_info<plan>;

inline planning::gemm_tile_facts facts(config_id id) {
  return with_config(id, [](auto cfg) { return planning::tile_facts_of<decltype(cfg)>(); });
}
inline int k_steps(const problem& p, config_id id, arch::target t) {
  return with_config(id, [&](auto cfg) {
    using C = decltype(cfg);
    return ceil_div(p.k, t == arch::target::gfx950 ? C::template block_k_on<arch::target::gfx950>
                                                   : C::template block_k_on<arch::target::gfx942>);
  });
}
inline std::string plan_name(plan pl) {
  return with_config(pl.config, [&](auto cfg) { return decltype(cfg)::name(pl.splits); });
}

// M up to which the skinny family plans (above: the dense GEMM path).
inline constexpr int skinny_max_m = 16;
// Memory reads of a skinny plan, at most this multiple of A + B + C once (4% planned, so that the
// emulator's exact count of distinct bytes stays within the 5% the tests hold it to).
inline constexpr double skinny_read_budget = 1.04;

// Whether a plan for p on target t may take config id (header comment).
inline bool offered(const problem& p, config_id id, arch::target t) {
  const bool skinny_family = id == config_id::skinny || id == config_id::pairs;
  if (p.m > skinny_max_m) return !skinny_family;
  const bool row_pairs = t == arch::target::gfx942 && p.m <= 8 && p.order == layout::k_contiguous;
  if (row_pairs) return id == config_id::pairs;
  return id == config_id::skinny || id == config_id::decode;
}

// The bytes a plan reads from memory, the model's (each launch's distinct bytes: A, B and the
// scales once, the split-K partials once by the reduce), and those of A, B and C once (C bf16 /
// fp16).
inline double memory_read_bytes(const problem& p, config_id id, int splits, arch::target t) {
  double bytes = 0;
  for (const planning::launch_work& w : model_launches(p, {id, splits}, t)) bytes += w.dram_read_bytes;
  return bytes;
}
inline double ideal_bytes(const problem& p) {
  const double m = p.m, n = p.n, k = p.k;
  return m * k + n * k + 2 * m * n;
}

// Whether plan pl can run p on target t: a config offered for p's M (header comment) and the
// launch's rule for its K splits (block::check_splits).
inline status check_plan(const problem& p, plan pl, arch::target t) {
  if (!offered(p, pl.config, t)) {
    std::string names;
    for (config_id id : all_configs)
      if (offered(p, id, t)) names += (names.empty() ? "" : ", ") + std::string(config_id_name(id));
    return {status_code::bad_config, plan_name(pl) + " on " + p.str() + ": the plan offers M = " + std::to_string(p.m) +
                                         " on " + arch::to_string(t) + " only " + names};
  }
  if (status s = block::check_splits(plan_name(pl), p.str(), pl.splits, k_steps(p, pl.config, t)); !s.ok()) return s;
  return block::check_batched_splits(plan_name(pl), p.str(), pl.splits, p.batch.count);
}

// A and B in the fp8 format target t's matrix cores read; Out: C (bf16 or fp16): the tables'
// dtypes.
template <class Out>
std::string tuning_dtypes(arch::target t) {
  const std::string fp8 = planning::fp8_dtype_name(t);
  return fp8 + "," + fp8 + "," + planning::dtype_name<Out>();
}
template <class Fp8, class Out>
std::string tuning_dtypes_of(const args<Fp8, Out>&, arch::target t) {
  return tuning_dtypes<Out>(t);
}

struct plan_descriptor : planning::split_gemm_descriptor<plan_descriptor, problem, plan, all_configs> {
  static constexpr const planning::instance_family& family = codegen_family;

  // The plan queries, which do not know C's type, ask for bf16.
  static std::string dtypes(const problem&, arch::target t) { return tuning_dtypes<bf16>(t); }
  static planning::query query(const problem& p, std::size_t workspace, arch::target t, std::string_view dtypes) {
    return {family.op, t, dtypes, workspace, {p.m, p.n, p.k, int(p.order), int(p.a_scales), int(p.b_scales)}};
  }
  static std::string table_layout(const problem& p) { return planning::table_layout_of(p.order, p.batch); }
  // The configs offered for p's M with their K splits (header comment): up to M = 16 those within
  // the read budget, where any is (a problem so small that the scales' reads alone exceed 4% of it
  // has none: the model's choice among all).
  template <class F>
  static void candidates(const problem& p, std::size_t workspace, arch::target t, F&& consider) {
    const bool budget = p.m <= skinny_max_m && [&] {
      for (config_id id : all_configs)
        if (offered(p, id, t) && memory_read_bytes(p, id, 1, t) <= skinny_read_budget * ideal_bytes(p)) return true;
      return false;
    }();
    for (config_id id : all_configs) {
      if (!offered(p, id, t)) continue;
      for (int splits = 1; splits <= 16; splits *= 2) {
        if (splits > 1 && (k_steps(p, id, t) / splits < 4 || workspace_bytes(p, splits) > workspace ||
                           !batched_grid_fits(splits, p.batch.count)))  // check_plan's rule
          break;
        // Reads grow with the splits.
        if (budget && memory_read_bytes(p, id, splits, t) > skinny_read_budget * ideal_bytes(p)) break;
        consider(plan{id, splits}, model_time(p, {id, splits}, t),
                 p.batch.count * planning::gemm_padded_flops(p.m, p.n, p.k, facts(id)));
      }
    }
  }
  static status check(const problem& p, plan pl, arch::target t) { return check_plan(p, pl, t); }
  static std::string name(plan pl) { return plan_name(pl); }
  static status check_shape(const problem& p) { return validate_shape(p); }
  static planning::op_time time(const problem& p, plan pl, arch::target t) { return model_time(p, pl, t); }
};

// The plan queries (planning/gemm_plan_queries.hpp): plan_queries::tuning_key, model_plan,
// validate_query, ... for tools and tests; the three a caller plans a launch with under this op's
// names. The model's plan is the header comment's. dtypes: the call's element types
// (tuning_dtypes<Out>(t)); empty: bf16 out.
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

}  // namespace wavekit::ops::gemm_fp8_scaled
