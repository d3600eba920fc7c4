// wavekit's residual + RMSNorm + fp8 quantization (ops/rmsnorm_quant/problem.hpp states the op):
// one pass over each row, the normalized row quantized per tensor or per 1x128 group (the
// block-scaled GEMM's A and a_scale, either storage order).
//
//   namespace rq = wavekit::ops::rmsnorm_quant;
//   rq::problem p{tokens, hidden, wavekit::scale_granularity::tensor, wavekit::layout::k_contiguous,
//                 rq::residual_mode::add};
//   rq::args<wavekit::fp16, wavekit::arch::gfx942::fp8> a{x, residual, weight, q, nullptr, scale, 1e-6f};
//   wavekit::status s = wavekit::rmsnorm_quant(p, a, stream);
//
// Everything is validated before the launch, and the fp8 format must be the device's (fnuz on
// gfx942, OCP on gfx950).
// Without HIP, ops::rmsnorm_quant::supports<Fp8>(problem, target, eps, scale) answers whether the launch runs a problem
// on a target, or gives its status (ops/rmsnorm_quant/supports.hpp; the README's support matrix is made from it).
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <hip/hip_runtime.h>

#include "wavekit/arch/device.hpp"
#include "wavekit/ops/rmsnorm_quant/kernel.hpp"
#include "wavekit/ops/rmsnorm_quant/supports.hpp"

namespace wavekit {

template <class T, class Fp8>
status rmsnorm_quant(const ops::rmsnorm_quant::problem& p, const ops::rmsnorm_quant::args<T, Fp8>& args,
                     hipStream_t stream) {
  if (status s = ops::rmsnorm_quant::validate(p, args); !s.ok()) return s;
  const arch::device_arch& device = arch::current_device_arch();
  if (status s = arch::check_device_fp8_format<Fp8>(device, "rmsnorm_quant"); !s.ok()) return s;
  return ops::rmsnorm_quant::launch(p, args, device.kind, stream);
}

}  // namespace wavekit
