// Whether rmsnorm_quant runs a problem on a target, without HIP: success, or the status the
// launch (wavekit::rmsnorm_quant) returns for it with valid pointers, same code, same text.
//
//   namespace rq = wavekit::ops::rmsnorm_quant;
//   wavekit::status s = rq::supports<wavekit::fp8_e4m3fnuz>(p, wavekit::arch::target::gfx942, eps, scale);
//
// eps and the per-tensor scale are arguments of the call but rules of the problem
// (validate_shape takes them), so they are asked too; their defaults are args' defaults. The rules
// are the launch's own functions: validate_shape, then the fp8 format the target's matrix cores
// read. T (bf16 / fp16) runs on both targets.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include "wavekit/arch/target_checks.hpp"
#include "wavekit/ops/rmsnorm_quant/problem.hpp"

namespace wavekit::ops::rmsnorm_quant {

// Fp8: the element type of q.
template <class Fp8>
status supports(const problem& p, arch::target t, float eps = args<bf16, Fp8>{}.eps,
                float scale = args<bf16, Fp8>{}.scale) {
  if (status s = validate_shape(p, eps, scale); !s.ok()) return s;
  return arch::check_fp8_format<Fp8>(t, "rmsnorm_quant");
}

}  // namespace wavekit::ops::rmsnorm_quant
