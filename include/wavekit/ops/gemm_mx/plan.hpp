// What wavekit::gemm_mx runs for a problem, asked without running anything: the plan (config and K
// splits) and the workspace it needs. Plain C++ (no HIP):
//
//   namespace gx = wavekit::ops::gemm_mx;
//   const gx::problem p{m, n, k, gx::mx_format::mxfp4, gx::a_storage::mx, gx::b_layout::plain};
//   auto plan = gx::select_plan(p, workspace_bytes, wavekit::arch::target::gfx950);
//
// Plans are for gfx950 (the only target with scaled MFMAs; gfx942 gets a status) and come from the
// performance model (model.hpp: planning/model/launch_time.hpp over each kernel's gfx950 codegen profile):
// every shipped config and the MXFP8 GEMV, K
// splits in powers of two up to 16 with at least 4 K steps each, limited by the workspace; for
// decode sizes (M <= 64) only configs whose M tile holds every row in one wave row, so B and its
// scales are read once.
//
// The plan descriptor below is all the planning this op owns beyond those rules
// (planning/planner.hpp asks it). The tuned tables key a problem as
//   op gemm_mx; dtypes "<A>,<B>,<Out>" as p stores them ("bf16,mxfp4,bf16": A quantized in the
//   kernel); layout k_contiguous, or k_contiguous_b_preshuffled for pre-shuffled B
// and name a plan by its config_id_name ("decode") or the GEMV's "gemv<rows>", and K splits.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <algorithm>
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
#include "wavekit/ops/gemm_mx/configs.hpp"
#include "wavekit/ops/gemm_mx/model.hpp"
#include "wavekit/ops/gemm_mx/problem.hpp"
#include "wavekit/planning/gemm_plan.hpp"
#include "wavekit/planning/gemm_plan_queries.hpp"
#include "wavekit/planning/planner.hpp"
#include "wavekit/planning/tables/key.hpp"
#include "wavekit/planning/tables/names.hpp"

namespace wavekit::ops::gemm_mx {

using plan_info = planning::gemm_plan_info<plan>;

inline planning::gemm_tile_facts facts(config_id id) {
  return with_config(id, [](auto cfg) { return planning::tile_facts_of<decltype(cfg)>(); });
}
// A plan's block tile: its config's, or the GEMV's (gemv_rows x 256).
inline int plan_block_m(plan pl) { return pl.gemv_rows ? pl.gemv_rows : facts(pl.config).block_m; }
inline int plan_block_n(plan pl) { return pl.gemv_rows ? gemv_config<1>::block_n : facts(pl.config).block_n; }
inline int k_steps(const problem& p, config_id id) {
  return with_config(id, [&](auto cfg) { return ceil_div(p.k, block_k_of<decltype(cfg)>(p.format)); });
}
inline std::string plan_name(plan pl) {
  if (pl.gemv_rows) return with_gemv_config(pl.gemv_rows, [&](auto cfg) { return decltype(cfg)::name(pl.splits); });
  return with_config(pl.config, [&](auto cfg) { return decltype(cfg)::name(pl.splits); });
}

// The configs a kernel that quantizes a 16-bit A as it loads it can take: the A tile's K step in
// at most 8 16-byte chunks a thread (32 registers held across a step's MFMAs), every thread busy.
template <class C>
inline constexpr bool quantizes_a_config = [] {
  constexpr int chunks = C::block_m * C::shape::row_bytes * 4 / 16;  // 16-bit values of a K step
  return chunks % C::threads == 0 && chunks / C::threads <= 8;
}();
inline bool quantizes_a(config_id id) {
  return with_config(id, [](auto cfg) { return quantizes_a_config<decltype(cfg)>; });
}

// Up to this M (the peer decode kernels' range) a plan keeps all rows in one M tile.
inline constexpr int decode_rows = 64;

// Whether plan pl can run p, the launch's rules (kernel.hpp): the GEMV takes MXFP8 operands and at
// most its rows of A, the form quantizing A only the configs that can; K splits in [1, K steps]
// (block::check_splits).
inline status check_plan(const problem& p, plan pl) {
  const auto what = lazy([&] { return "gemm_mx " + p.str() + ": " + plan_name(pl); });
  if (pl.gemv_rows) {
    if (p.format != mx_format::mxfp8 || p.a != a_storage::mx)
      return {status_code::bad_config, what + ": the GEMV path takes MXFP8 arguments"};
    if (p.m > pl.gemv_rows)
      return {status_code::bad_config, what + " holds at most " + std::to_string(pl.gemv_rows) + " rows of A"};
  } else if (p.a != a_storage::mx && !quantizes_a(pl.config)) {
    return {status_code::bad_config, what + "'s A tile is too large to quantize as it loads"};
  }
  const int steps =
      pl.gemv_rows
          ? with_gemv_config(pl.gemv_rows, [&](auto cfg) { return ceil_div(p.k, block_k_of<decltype(cfg)>(p.format)); })
          : k_steps(p, pl.config);
  if (status s = block::check_splits(plan_name(pl), p.str(), pl.splits, steps); !s.ok()) return s;
  return block::check_batched_splits(plan_name(pl), p.str(), pl.splits, p.batch.count);
}

// A and B as p stores them; Out: C (bf16 or fp16): the tables' dtypes.
template <class Out>
std::string tuning_dtypes(const problem& p) {
  const std::string a = p.a == a_storage::mx ? to_string(p.format) : to_string(p.a);
  return a + "," + to_string(p.format) + "," + planning::dtype_name<Out>();
}

inline std::string tuning_layout(const problem& p) {
  return planning::table_layout_of(p.b == b_layout::preshuffled ? "k_contiguous_b_preshuffled" : "k_contiguous",
                                   p.batch);
}

// The target rule of this op: gfx950's scaled MFMAs apply the MX scales; gfx942 has none.
inline status check_target(const problem& p, arch::target t) {
  const auto what = lazy([&] { return "gemm_mx " + p.str(); });
  if (status s = planning::check_plan_target(what, t); !s.ok()) return s;
  if (t != arch::target::gfx950)
    return {status_code::unsupported_target,
            what + ": MX formats run on gfx950's scaled MFMAs; " + arch::to_string(t) + " has none"};
  return status::success();
}

// K splits in powers of two up to 16, each with at least 4 K steps and within the workspace.
template <class F>
void for_each_split(const problem& p, int steps, std::size_t workspace, F&& f) {
  planning::for_each_split(steps, workspace, p.batch.count, [&](int splits) { return workspace_bytes(p, splits); }, f);
}

struct plan_descriptor : planning::split_gemm_descriptor<plan_descriptor, problem, plan, all_configs> {
  static constexpr const planning::instance_family& family = codegen_family;

  // The plan queries, which do not know C's type, ask for bf16.
  static std::string dtypes(const problem& p, arch::target) { return tuning_dtypes<bf16>(p); }
  static planning::query query(const problem& p, std::size_t workspace, arch::target t, std::string_view dtypes) {
    return {family.op, t, dtypes, workspace, {p.m, p.n, p.k, int(p.format), int(p.a), int(p.b)}};
  }
  static std::string table_layout(const problem& p) { return tuning_layout(p); }
  // Every config that can take p's A (header comment; decode sizes one M tile of one wave row),
  // and for MXFP8 with up to 16 rows the GEMV, with their K splits. The model times MI355X.
  template <class F>
  static void candidates(const problem& p, std::size_t workspace, arch::target, F&& consider) {
    auto consider_plan = [&](plan candidate, double work) { consider(candidate, model_time(p, candidate), work); };
    for (config_id id : all_configs) {
      if (p.a != a_storage::mx && !quantizes_a(id)) continue;
      // Decode sizes read the weights once: one M tile covers every row (split-K, not M tiles,
      // supplies the workgroups), and one wave row, since each wave reads its columns' scales.
      if (p.m <= decode_rows && (facts(id).block_m < p.m || facts(id).wave_m != facts(id).block_m)) continue;
      for_each_split(p, k_steps(p, id), workspace, [&](int splits) {
        consider_plan({id, splits}, p.batch.count * planning::gemm_padded_flops(p.m, p.n, p.k, facts(id)));
      });
    }
    // MXFP8 with up to 16 rows: the GEMV with the fewest rows that hold them, where the model finds
    // its vector ALU quicker than the MFMAs' padded rows.
    if (p.format == mx_format::mxfp8 && p.m <= gemv_rows_max) {
      int rows = 1;
      while (rows < p.m) rows *= 2;
      for_each_split(p, ceil_div(p.k, gemv_config<1>::block_k), workspace, [&](int splits) {
        consider_plan({config_id::decode, splits, rows},
                      p.batch.count * 2.0 * rows * std::ceil(p.n / 256.0) * 256 * p.k);
      });
    }
  }
  static status check(const problem& p, plan pl, arch::target) { return check_plan(p, pl); }
  static std::string name(plan pl) { return plan_name(pl); }
  static planning::value to_value(plan pl) {
    return {pl.gemv_rows ? "gemv" + std::to_string(pl.gemv_rows) : config_id_name(pl.config), pl.splits};
  }
  // The plan a table value names, or none when it names neither a config of this op nor a GEMV.
  static std::optional<plan> from_value(const planning::value& v) {
    for (int rows : gemv_row_counts)
      if (v.config == "gemv" + std::to_string(rows)) return plan{config_id::decode, v.splits, rows};
    return planning::split_plan_named<plan>(v, all_configs);
  }
  static status check_shape(const problem& p) { return validate_shape(p); }
  static planning::op_time time(const problem& p, plan pl, arch::target) { return model_time(p, pl); }
  static status check_target(const problem& p, arch::target t) { return gemm_mx::check_target(p, t); }
};

// The plan queries (planning/gemm_plan_queries.hpp): plan_queries::tuning_key, model_plan,
// validate_query, ... for tools and tests (the model is the MI355X's: pass gfx950); the three a
// caller plans a launch with under this op's names, choose_plan for gfx950 only, and the queries
// given a target refuse any other (check_target). The model's plan is the header comment's.
// dtypes: the call's element types (tuning_dtypes<Out>(p)); empty: bf16 out.
using plan_queries = planning::gemm_plan_queries<plan_descriptor>;
inline plan choose_plan(const problem& p, std::size_t workspace, std::string_view dtypes = {}) {
  return plan_queries::choose_plan(p, workspace, arch::target::gfx950, dtypes);
}
inline result<std::size_t> workspace_bytes(const problem& p, arch::target t, std::string_view dtypes = {}) {
  return plan_queries::workspace_bytes(p, t, dtypes);
}
inline result<plan_info> select_plan(const problem& p, std::size_t workspace, arch::target t,
                                     std::string_view dtypes = {}) {
  return plan_queries::select_plan(p, workspace, t, dtypes);
}

}  // namespace wavekit::ops::gemm_mx
