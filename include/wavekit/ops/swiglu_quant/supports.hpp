// Whether swiglu_quant runs a problem on a target, without HIP: success, or the status the launch
// (wavekit::swiglu_quant) returns for it with valid pointers, same code, same text.
//
//   namespace sq = wavekit::ops::swiglu_quant;
//   wavekit::status s = sq::supports<wavekit::fp8_e4m3fn>(p, wavekit::arch::target::gfx950, scale);
//
// The per-tensor scale is an argument of the call but a rule of the problem (validate_shape takes
// it), so it is asked too; its default is args' default. The rules are the launch's own
// functions: validate_shape, then the fp8 format the target's matrix cores read. T (bf16 / fp16)
// runs on both targets.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include "wavekit/arch/target_checks.hpp"
#include "wavekit/ops/swiglu_quant/problem.hpp"

namespace wavekit::ops::swiglu_quant {

// Fp8: the element type of q.
template <class Fp8>
status supports(const problem& p, arch::target t, float scale = args<bf16, Fp8>{}.scale) {
  if (status s = validate_shape(p, scale); !s.ok()) return s;
  return arch::check_fp8_format<Fp8>(t, "swiglu_quant");
}

}  // namespace wavekit::ops::swiglu_quant
