// Whether gemm_mx runs a problem on a target, without HIP: success, or the status the launch
// (wavekit::gemm_mx) returns for it with valid pointers of the problem's kind, same code, same
// text.
//
//   namespace gx = wavekit::ops::gemm_mx;
//   const gx::problem p{m, n, k, gx::mx_format::mxfp4, gx::a_storage::mx, gx::b_layout::plain};
//   wavekit::status s = gx::supports(p, wavekit::arch::target::gfx942);
//   // no: "gemm_mx ...: MX formats run on gfx950's scaled MFMAs; gfx942 has none"
//
// The problem carries everything the launch asks (format, A's storage, B's layout); the rules are
// the plan query's (validate_query: the shape, then gfx950 only), which the launch runs.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include "wavekit/ops/gemm_mx/plan.hpp"
#include "wavekit/ops/gemm_mx/problem.hpp"

namespace wavekit::ops::gemm_mx {

inline status supports(const problem& p, arch::target t) { return plan_queries::validate_query(p, t); }

}  // namespace wavekit::ops::gemm_mx
