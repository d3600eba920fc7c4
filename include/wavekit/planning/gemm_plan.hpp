// What the GEMM plan descriptors share (plain C++, no HIP): the tile facts of a config, the padded
// work that ranks plans the performance model cannot tell apart (model/plan_choice.hpp), the K
// splits a plan may take, and the answer of a plan query (planner.hpp asks the rest).
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <cmath>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

#include "wavekit/arch/target.hpp"
#include "wavekit/block/splitk_rule.hpp"
#include "wavekit/core/gemm_view.hpp"
#include "wavekit/core/layout.hpp"
#include "wavekit/core/status.hpp"
#include "wavekit/planning/planner.hpp"
#include "wavekit/planning/tables/key.hpp"
#include "wavekit/planning/tables/names.hpp"

namespace wavekit::planning {

// What the plan queries need of a tile config (its block and wave tiles).
struct gemm_tile_facts {
  int block_m, block_n, wave_m, wave_n;
};
template <class C>
constexpr gemm_tile_facts tile_facts_of() {
  return {C::block_m, C::block_n, C::wave_m, C::wave_n};
}

// Multiply-adds a tile executes over the problem, the padding of partial tiles included.
inline double gemm_padded_flops(int m, int n, int k, const gemm_tile_facts& f) {
  return 2.0 * std::ceil(double(m) / f.block_m) * f.block_m * std::ceil(double(n) / f.block_n) * f.block_n * k;
}

// What a GEMM's plan query answers: the plan a call runs (config and K splits), its name, and the
// workspace it uses next to what the plan chosen with unlimited workspace would.
template <class Plan>
struct gemm_plan_info {
  Plan plan;                                  // configuration and number of K splits
  std::string name;                           // e.g. "gemm_fp8_bs<256x128x64, w4x2, mfma32x32x16, sk2>"
  std::size_t workspace_bytes = 0;            // what this plan uses of the workspace
  std::size_t preferred_workspace_bytes = 0;  // what the plan chosen with unlimited workspace uses
  bool workspace_limited = false;             // this plan differs from that one for lack of workspace
};

// The target rule every plan query shares: plans are made for gfx942 or gfx950. `what` names the
// op and the problem ("gemm_half 64x64x256 k_contiguous").
inline status check_plan_target(text_ref what, arch::target t) {
  if (t != arch::target::gfx942 && t != arch::target::gfx950)
    return {status_code::unsupported_target, what + ": plans are for gfx942 or gfx950, not " + arch::to_string(t)};
  return status::success();
}

// The answer of a plan query given `workspace` bytes: choose(bytes) picks a plan with at most that
// much workspace, name(plan) names it, bytes_for(splits) is the workspace a number of splits uses.
template <class Choose, class Name, class Bytes>
auto describe_plan(std::size_t workspace, Choose choose, Name name, Bytes bytes_for) {
  const auto preferred = choose(~std::size_t{0}), chosen = choose(workspace);
  gemm_plan_info<std::remove_cv_t<decltype(chosen)>> info;
  info.plan = chosen;
  info.name = name(chosen);
  info.workspace_bytes = bytes_for(chosen.splits);
  info.preferred_workspace_bytes = bytes_for(preferred.splits);
  info.workspace_limited = chosen.config != preferred.config || chosen.splits != preferred.splits;
  return info;
}

// The K splits a GEMM plan may take: powers of two up to 16, each split with at least 4 of the
// `steps` K steps, whose partials (bytes_for(splits)) fit `workspace`, and whose grid holds the
// splits of every GEMM of a batch of `batches` (block::check_batched_splits); f(splits) for each.
template <class Bytes, class F>
void for_each_split(int steps, std::size_t workspace, int batches, Bytes&& bytes_for, F&& f) {
  for (int splits = 1; splits <= 16; splits *= 2) {
    if (splits > 1 && (steps / splits < 4 || bytes_for(splits) > workspace || !batched_grid_fits(splits, batches)))
      break;
    f(splits);
  }
}

// The tables' layout of a problem whose layout (storage order) is `name`, with a batch: the tables
// hold single GEMMs, so a batch is its own key, which no entry has (a batched problem takes the
// model's plan).
inline std::string table_layout_of(std::string_view name, const gemm_batch& batch) {
  return batch.count == 1 ? std::string(name) : std::string(name) + " batch " + std::to_string(batch.count);
}
inline std::string table_layout_of(layout order, const gemm_batch& batch) {
  return table_layout_of(to_string(order), batch);
}

// What a split-K GEMM's plan descriptor shares (planner.hpp's members; the op adds family, dtypes,
// query, candidates, check and name): plans of a config and K splits, written in the tables as
// the config's name and the splits (all: the op's config ids), keyed by M bucket, N and K with
// D::table_layout(p) as the layout, and fp32 partials [splits][M][N] as their workspace. D is the
// descriptor deriving from it.

template <class D, class Problem, class Plan, auto& All>
struct split_gemm_descriptor {
  using problem = Problem;
  using plan = Plan;
  static planning::key key(const problem& p, arch::target t, int cus, std::string dtypes) {
    return gemm_key(std::string(D::family.op), t, cus, std::move(dtypes), D::table_layout(p), p.m, p.n, p.k);
  }
  // A problem with strides and a batch (core/gemm_view.hpp): C's extent over the batch a split.
  static std::size_t workspace(const problem& p, int splits) {
    if constexpr (requires { p.views(); })
      return block::splitk_view_workspace_bytes(p, splits);
    else
      return block::splitk_workspace_bytes(p.m, p.n, splits);
  }
  static bool fits(const problem& p, plan pl, std::size_t workspace_bytes) {
    return D::workspace(p, pl.splits) <= workspace_bytes;
  }
  static value to_value(plan pl) { return split_plan_value(pl); }
  static std::optional<plan> from_value(const value& v) { return split_plan_named<plan>(v, All); }
};

// A split-K GEMM's plan query (the descriptor adds name(plan) and workspace(problem, splits) to
// planner.hpp's): the plan choose_plan<D> runs with `workspace` bytes, named, with what it uses of
// the workspace next to what the plan chosen with unlimited workspace would.
template <descriptor D>
gemm_plan_info<typename D::plan> select_gemm_plan(const typename D::problem& p, std::size_t workspace, arch::target t,
                                                  std::string_view dtypes = {}) {
  using info = gemm_plan_info<typename D::plan>;
  return described_plan<D, info>(p, workspace, t, dtypes, [&] {
    return describe_plan(
        workspace, [&](std::size_t bytes) { return choose_plan<D>(p, bytes, t, dtypes); },
        [](typename D::plan pl) { return D::name(pl); }, [&](int splits) { return D::workspace(p, splits); });
  });
}

}  // namespace wavekit::planning
