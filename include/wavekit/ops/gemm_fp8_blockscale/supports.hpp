// Whether gemm_fp8_blockscale runs a problem on a target, without HIP: success, or the status the
// launch (wavekit::gemm_fp8_blockscale) returns for it with valid pointers, same code, same text.
//
//   namespace gb = wavekit::ops::gemm_fp8_blockscale;
//   wavekit::status s = gb::supports<wavekit::fp8_e4m3fn>(p, wavekit::arch::target::gfx950);
//
// The rules are the launch's own functions: the shape (validate_shape), the plan's target
// (validate_query) and the fp8 format the target's matrix cores read.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include "wavekit/arch/target_checks.hpp"
#include "wavekit/ops/gemm_fp8_blockscale/plan.hpp"
#include "wavekit/ops/gemm_fp8_blockscale/problem.hpp"

namespace wavekit::ops::gemm_fp8_blockscale {

// Fp8: the element type of A and B.
template <class Fp8>
status supports(const problem& p, arch::target t) {
  if (status s = plan_queries::validate_query(p, t); !s.ok()) return s;
  return arch::check_fp8_format<Fp8>(t, "gemm_fp8_blockscale");
}

}  // namespace wavekit::ops::gemm_fp8_blockscale
