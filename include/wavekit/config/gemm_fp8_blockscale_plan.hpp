// What wavekit::gemm_fp8_blockscale runs for a problem, asked without running anything: the plan
// (configuration and K splits) and the workspace it needs. Plain C++ with no HIP, so host code
// compiled by any C++20 compiler (g++ >= 12 included) can plan and size workspaces; the call
// itself is in config/gemm_fp8_blockscale.hpp.
//
//   using wavekit::arch::target;
//   wavekit::gemm_fp8_blockscale_problem p{m, n, k, wavekit::layout::mn_contiguous};
//   wavekit::result<std::size_t> ws = wavekit::gemm_fp8_blockscale_workspace_bytes(p, target::gfx942);
//   auto plan = wavekit::gemm_fp8_blockscale_select_plan(p, bytes, target::gfx942);
//   if (plan && plan.value().workspace_limited) ...  // fewer K splits than preferred: too little workspace
//
// Plans are per target (each plans with its own device facts); HIP code can leave the target out
// and get the current device's (config/gemm_fp8_blockscale.hpp). Queries on a problem the call
// would refuse return that status (same code, same message).
#pragma once

#include <cstddef>
#include <string>

#include "wavekit/arch/target.hpp"
#include "wavekit/config/gemm_fp8_blockscale_dispatch.hpp"
#include "wavekit/core/result.hpp"
#include "wavekit/ops/gemm/gemm_fp8_blockscale_problem.hpp"

namespace wavekit {

using ops::gemm_fp8_blockscale_problem;

using gemm_fp8_blockscale_plan_info = block::gemm_plan_info<config::blockscale_plan>;

namespace detail {
inline status validate_blockscale_query(const gemm_fp8_blockscale_problem& p, arch::target t) {
  if (status s = ops::validate_blockscale_shape(p); !s.ok()) return s;
  if (t != arch::target::gfx942 && t != arch::target::gfx950)
    return {status_code::bad_config,
            "gemm_fp8_blockscale " + p.str() + ": plans are for gfx942 or gfx950, not " + arch::to_string(t)};
  return status::success();
}
}  // namespace detail

// The workspace (fp32 split-K partials) the preferred plan for p on target t uses; 0 when it does
// not split K. With less, gemm_fp8_blockscale runs a plan with fewer splits (see select_plan).
inline result<std::size_t> gemm_fp8_blockscale_workspace_bytes(const gemm_fp8_blockscale_problem& p, arch::target t) {
  if (status s = detail::validate_blockscale_query(p, t); !s.ok()) return s;
  return ops::blockscale_workspace_bytes(p, config::choose_blockscale_plan(p, ~std::size_t{0}, t).splits);
}

// The plan gemm_fp8_blockscale runs for p on target t given `workspace_bytes` of workspace (0
// when the workspace pointer is null).
inline result<gemm_fp8_blockscale_plan_info> gemm_fp8_blockscale_select_plan(const gemm_fp8_blockscale_problem& p,
                                                                             std::size_t workspace_bytes,
                                                                             arch::target t) {
  if (status s = detail::validate_blockscale_query(p, t); !s.ok()) return s;
  const config::blockscale_plan preferred = config::choose_blockscale_plan(p, ~std::size_t{0}, t);
  const config::blockscale_plan plan = config::choose_blockscale_plan(p, workspace_bytes, t);
  gemm_fp8_blockscale_plan_info info;
  info.plan = plan;
  info.name = config::blockscale_plan_name(plan);
  info.workspace_bytes = ops::blockscale_workspace_bytes(p, plan.splits);
  info.preferred_workspace_bytes = ops::blockscale_workspace_bytes(p, preferred.splits);
  info.workspace_limited = plan.config != preferred.config || plan.splits != preferred.splits;
  return info;
}

}  // namespace wavekit
