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
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <cstddef>
#include <string>

#include "wavekit/arch/target.hpp"
#include "wavekit/core/result.hpp"
#include "wavekit/ops/gemm_fp8_blockscale/dispatch.hpp"
#include "wavekit/ops/gemm_fp8_blockscale/problem.hpp"

namespace wavekit::ops::gemm_fp8_blockscale {

using plan_info = block::gemm_plan_info<plan>;

inline status validate_query(const problem& p, arch::target t) {
  if (status s = validate_shape(p); !s.ok()) return s;
  return block::check_plan_target(lazy([&] { return "gemm_fp8_blockscale " + p.str(); }), t);
}

// The workspace (fp32 split-K partials) the preferred plan for p on target t uses; 0 when it does
// not split K. With less, gemm_fp8_blockscale runs a plan with fewer splits (see select_plan).
inline result<std::size_t> workspace_bytes(const problem& p, arch::target t) {
  if (status s = validate_query(p, t); !s.ok()) return s;
  return workspace_bytes(p, choose_plan(p, ~std::size_t{0}, t).splits);
}

// The plan gemm_fp8_blockscale runs for p on target t given `workspace` bytes of workspace (0
// when the workspace pointer is null).
inline result<plan_info> select_plan(const problem& p, std::size_t workspace, arch::target t) {
  if (status s = validate_query(p, t); !s.ok()) return s;
  // The answer with its name, kept per query as choose_plan's: a warm call formats nothing.
  static tuning::plan_cache<plan_info> described;
  return described.get(plan_query(p, workspace, t), [&] {
    return block::describe_plan(
        workspace, [&](std::size_t bytes) { return choose_plan(p, bytes, t); }, [](plan pl) { return plan_name(pl); },
        [&](int splits) { return workspace_bytes(p, splits); });
  });
}

}  // namespace wavekit::ops::gemm_fp8_blockscale
