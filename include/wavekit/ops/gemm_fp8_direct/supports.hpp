// Whether gemm_fp8_direct runs a problem on a target, without HIP: success, or the status its
// launch returns for it with valid pointers, same code, same text.
//
//   namespace gd = wavekit::ops::gemm_fp8_direct;
//   wavekit::status s = gd::supports<wavekit::fp8_e4m3fnuz>({m, n, k}, wavekit::arch::target::gfx942);
//
// The rules are the launch's own functions: the shape (op<Fp8>::validate_shape) and the fp8
// format the target's matrix cores read (its MFMA exists only for that format there).
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include "wavekit/arch/target_checks.hpp"
#include "wavekit/ops/gemm_fp8_direct/problem.hpp"

namespace wavekit::ops::gemm_fp8_direct {

// Fp8: the element type of A and B.
template <class Fp8>
status supports(const problem& p, arch::target t) {
  if (status s = op<Fp8>::validate_shape(p); !s.ok()) return s;
  return arch::check_fp8_format<Fp8>(t, op<Fp8>::name());
}

}  // namespace wavekit::ops::gemm_fp8_direct
