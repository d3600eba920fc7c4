// Whether gemm_half runs a problem on a target, without HIP: success, or the status the launch
// (wavekit::gemm_half) returns for it with valid pointers, same code, same text.
//
//   wavekit::status s = wavekit::ops::gemm_half::supports(p, wavekit::arch::target::gfx942);
//
// The rules are the plan query's (validate_query: the shape, then the target), which the launch
// runs. The element types (bf16 / fp16 in, bf16 / fp16 / fp32 out) are checked when the arguments
// form and run on both targets, so they are no question here.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include "wavekit/ops/gemm_half/plan.hpp"
#include "wavekit/ops/gemm_half/problem.hpp"

namespace wavekit::ops::gemm_half {

inline status supports(const problem& p, arch::target t) { return plan_queries::validate_query(p, t); }

}  // namespace wavekit::ops::gemm_half
