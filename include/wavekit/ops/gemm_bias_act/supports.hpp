// Whether gemm_bias_act runs a problem with C of type Out on a target, without HIP: success, or the
// status the one-call API returns for it with valid arguments (same code, same text): the problem's
// rules, then the target's (an fp8 C must be the format the target reads).
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include "wavekit/arch/target_checks.hpp"
#include "wavekit/ops/gemm_bias_act/problem.hpp"

namespace wavekit::ops::gemm_bias_act {

template <class Out>
status supports(const problem& p, arch::target t) {
  if (status s = validate_problem(p); !s.ok()) return s;
  if constexpr (is_fp8_e4m3_v<Out>)
    return arch::check_fp8_format<Out>(t, "gemm_bias_act");
  else
    return arch::check_kernel_target("gemm_bias_act", t);
}

}  // namespace wavekit::ops::gemm_bias_act
