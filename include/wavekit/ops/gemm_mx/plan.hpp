// What wavekit::gemm_mx runs for a problem, asked without running anything: the plan (config and K
// splits) and the workspace it needs. Plain C++ (no HIP):
//
//   namespace gx = wavekit::ops::gemm_mx;
//   const gx::problem p{m, n, k, gx::mx_format::mxfp4, gx::a_storage::mx, gx::b_layout::plain};
//   auto plan = gx::select_plan(p, workspace_bytes, wavekit::arch::target::gfx950);
//
// Plans are for gfx950 (the only target with scaled MFMAs; gfx942 gets a status) and come from the
// performance model (model.hpp: perf/launch_time.hpp over each kernel's gfx950 codegen profile):
// every shipped config and the MXFP8 GEMV, K
// splits in powers of two up to 16 with at least 4 K steps each, limited by the workspace; for
// decode sizes (M <= 64) only configs whose M tile holds every row in one wave row, so B and its
// scales are read once.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include "wavekit/arch/target.hpp"
#include "wavekit/block/gemm_plan_model.hpp"
#include "wavekit/core/math.hpp"
#include "wavekit/core/result.hpp"
#include "wavekit/ops/gemm_mx/configs.hpp"
#include "wavekit/ops/gemm_mx/model.hpp"
#include "wavekit/ops/gemm_mx/problem.hpp"
#include "wavekit/ops/gemm_mx/tuning.hpp"
#include "wavekit/perf/plan_choice.hpp"
#include "wavekit/tuning/plan_cache.hpp"
#include "wavekit/tuning/tuned_or_model.hpp"

namespace wavekit::ops::gemm_mx {

using plan_info = block::gemm_plan_info<plan>;

inline block::gemm_tile_facts facts(config_id id) {
  return with_config(id, [](auto cfg) { return block::tile_facts_of<decltype(cfg)>(); });
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

// The model's seconds of a plan on MI355X (the GEMV's too).
inline double model_seconds(const problem& p, plan pl) { return model_time(p, pl).us * 1e-6; }

// Up to this M (the peer decode kernels' range) a plan keeps all rows in one M tile.
inline constexpr int decode_rows = 64;

// K splits in powers of two up to 16, each with at least 4 K steps and within the workspace.
template <class F>
void for_each_split(const problem& p, int steps, std::size_t workspace, F&& f) {
  for (int splits = 1; splits <= 16; splits *= 2) {
    if (splits > 1 && (steps / splits < 4 || workspace_bytes(p, splits) > workspace)) break;
    f(splits);
  }
}

// The model's best plan (header comment) with splits limited to what `workspace` holds.
inline plan model_plan(const problem& p, std::size_t workspace) {
  std::vector<perf::scored_plan<plan>> candidates;
  auto consider = [&](plan candidate, double work) {
    candidates.push_back(perf::score(candidate, model_time(p, candidate), work));
  };
  for (config_id id : all_configs) {
    if (p.a != a_storage::mx && !quantizes_a(id)) continue;
    // Decode sizes read the weights once: one M tile covers every row (split-K, not M tiles,
    // supplies the workgroups), and one wave row, since each wave reads its columns' scales.
    if (p.m <= decode_rows && (facts(id).block_m < p.m || facts(id).wave_m != facts(id).block_m)) continue;
    for_each_split(p, k_steps(p, id), workspace,
                   [&](int splits) { consider({id, splits}, block::gemm_padded_flops(p.m, p.n, p.k, facts(id))); });
  }
  // MXFP8 with up to 16 rows: the GEMV with the fewest rows that hold them, where the model finds
  // its vector ALU quicker than the MFMAs' padded rows.
  if (p.format == mx_format::mxfp8 && p.m <= gemv_rows_max) {
    int rows = 1;
    while (rows < p.m) rows *= 2;
    for_each_split(p, ceil_div(p.k, gemv_config<1>::block_k), workspace, [&](int splits) {
      consider({config_id::decode, splits, rows}, 2.0 * rows * std::ceil(p.n / 256.0) * 256 * p.k);
    });
  }
  return perf::choose_within_model_error(candidates);
}

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
  return block::check_splits(plan_name(pl), p.str(), pl.splits, steps);
}

// The tuned tables' plan for p with element types `dtypes` (tuning_dtypes; the plan queries, which
// do not know C's, ask for bf16) on the MI355X when it can run p (check_plan) and its K splits fit
// the workspace, else the model's (tuning/tuned_or_model.hpp).
// Each query's answer is kept for the process (tuning/plan_cache.hpp).
inline tuning::query plan_query(const problem& p, std::size_t workspace, const std::string& dtypes) {
  return {tuning_op, arch::target::gfx950, dtypes, workspace, {p.m, p.n, p.k, int(p.format), int(p.a), int(p.b)}};
}

inline plan choose_plan(const problem& p, std::size_t workspace, const std::string& dtypes = std::string()) {
  constexpr arch::target t = arch::target::gfx950;
  static tuning::plan_cache<plan> cache;
  const std::string key_dtypes = dtypes.empty() ? tuning_dtypes<bf16>(p) : dtypes;
  return cache.get(plan_query(p, workspace, key_dtypes), [&] {
    return tuning::tuned_or_model<plan>(
        tuning_key(p, t, arch::facts_for(t).compute_units, key_dtypes), tuned_plan, tuning_value,
        [&] { return model_plan(p, workspace); }, [&](plan pl) { return check_plan(p, pl); },
        [&](plan pl) { return workspace_bytes(p, pl.splits) <= workspace; });
  });
}

// The target rule of this op: gfx950's scaled MFMAs apply the MX scales; gfx942 has none.
inline status check_target(const problem& p, arch::target t) {
  const auto what = lazy([&] { return "gemm_mx " + p.str(); });
  if (status s = block::check_plan_target(what, t); !s.ok()) return s;
  if (t != arch::target::gfx950)
    return {status_code::unsupported_target,
            what + ": MX formats run on gfx950's scaled MFMAs; " + arch::to_string(t) + " has none"};
  return status::success();
}

inline status validate_query(const problem& p, arch::target t) {
  if (status s = validate_shape(p); !s.ok()) return s;
  return check_target(p, t);
}

// dtypes: as choose_plan's (the call's tuning_dtypes<Out>(p) when known).
inline result<std::size_t> workspace_bytes(const problem& p, arch::target t,
                                           const std::string& dtypes = std::string()) {
  if (status s = validate_query(p, t); !s.ok()) return s;
  return workspace_bytes(p, choose_plan(p, ~std::size_t{0}, dtypes).splits);
}

inline result<plan_info> select_plan(const problem& p, std::size_t workspace, arch::target t,
                                     const std::string& dtypes = std::string()) {
  if (status s = validate_query(p, t); !s.ok()) return s;
  // The answer with its name, kept per query as choose_plan's: a warm call formats nothing.
  static tuning::plan_cache<plan_info> described;
  return described.get(plan_query(p, workspace, dtypes.empty() ? tuning_dtypes<bf16>(p) : dtypes), [&] {
    return block::describe_plan(
        workspace, [&](std::size_t bytes) { return choose_plan(p, bytes, dtypes); },
        [](plan pl) { return plan_name(pl); }, [&](int splits) { return workspace_bytes(p, splits); });
  });
}

}  // namespace wavekit::ops::gemm_mx
