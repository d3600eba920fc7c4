// Whether gemm_fp8_scaled runs a problem on a target, without HIP: success, or the status the
// launch (wavekit::gemm_fp8_scaled) returns for it with valid pointers, same code, same text.
//
//   namespace gs = wavekit::ops::gemm_fp8_scaled;
//   wavekit::status s = gs::supports<wavekit::fp8_e4m3fnuz>(p, wavekit::arch::target::gfx942);
//
// The rules are the launch's own functions: the shape and scale granularities (validate_shape),
// the plan's target (validate_query) and the fp8 format the target's matrix cores read. C's type
// (bf16 or fp16) is checked when the arguments form, so it is no question here.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include "wavekit/arch/target_checks.hpp"
#include "wavekit/ops/gemm_fp8_scaled/plan.hpp"
#include "wavekit/ops/gemm_fp8_scaled/problem.hpp"

namespace wavekit::ops::gemm_fp8_scaled {

// Fp8: the element type of A and B.
template <class Fp8>
status supports(const problem& p, arch::target t) {
  if (status s = plan_queries::validate_query(p, t); !s.ok()) return s;
  return arch::check_fp8_format<Fp8>(t, "gemm_fp8_scaled");
}

}  // namespace wavekit::ops::gemm_fp8_scaled
