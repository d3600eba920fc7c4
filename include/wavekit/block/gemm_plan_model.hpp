// What the GEMM plan queries share (plain C++, no HIP): the tile facts of a config, the padded work
// that ranks plans the performance model cannot tell apart (perf/plan_choice.hpp), and the answer
// of a plan query. The
// times come from the performance model (perf/: each op's model.hpp), which replaced the first
// guess this header held.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <cmath>
#include <cstddef>
#include <string>
#include <type_traits>

#include "wavekit/arch/target.hpp"
#include "wavekit/core/status.hpp"

namespace wavekit::block {

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

// The rule a GEMM launch keeps for its number of K splits (check_splitk_launch), which a plan query
// checks of a tuned plan before taking it (tuning/tuned_or_model.hpp): every split gets at least
// one of the `steps` K steps. `name` names the config, `problem` the problem, `steps_name` the unit
// K is split in.
inline status check_splits(text_ref name, text_ref problem, int splits, int steps, const char* steps_name = "K steps") {
  if (splits < 1 || splits > steps)
    return {status_code::bad_config,
            name + " on " + problem + ": splits must be in [1, " + steps_name + " = " + std::to_string(steps) + "]"};
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

// Bytes of the fp32 split-K partials ([splits][M][N]) of an m x n output; 0 without split-K.
inline std::size_t splitk_workspace_bytes(int m, int n, int splits) {
  return splits > 1 ? std::size_t(splits) * std::size_t(m) * std::size_t(n) * sizeof(float) : 0;
}

}  // namespace wavekit::block
