// wavekit's SwiGLU + fp8 quantization (ops/swiglu_quant/problem.hpp states the op): SiLU(gate) *
// up from x [tokens][2 * d] ([gate | up]), quantized per tensor or per 1x128 group (the
// block-scaled GEMM's A and a_scale, either storage order). MoE's stage-1 epilogue gates with the
// same definition (core/silu.hpp, block/gate_up_pair.hpp).
//
//   namespace sq = wavekit::ops::swiglu_quant;
//   sq::problem p{tokens, d, wavekit::scale_granularity::group_1x128, wavekit::layout::k_contiguous};
//   sq::args<wavekit::bf16, wavekit::arch::gfx942::fp8> a{x, q, q_scale};
//   wavekit::status s = wavekit::swiglu_quant(p, a, stream);
//
// Everything is validated before the launch, and the fp8 format must be the device's (fnuz on
// gfx942, OCP on gfx950).
// Without HIP, ops::swiglu_quant::supports<Fp8>(problem, target, scale) answers whether the launch runs a problem on a
// target, or gives its status (ops/swiglu_quant/supports.hpp; the README's support matrix is made from it).
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <hip/hip_runtime.h>

#include "wavekit/arch/device.hpp"
#include "wavekit/ops/swiglu_quant/kernel.hpp"
#include "wavekit/ops/swiglu_quant/supports.hpp"

namespace wavekit {

template <class T, class Fp8>
status swiglu_quant(const ops::swiglu_quant::problem& p, const ops::swiglu_quant::args<T, Fp8>& args,
                    hipStream_t stream) {
  if (status s = ops::swiglu_quant::validate(p, args); !s.ok()) return s;
  const arch::device_arch& device = arch::current_device_arch();
  if (status s = arch::check_device_fp8_format<Fp8>(device, "swiglu_quant"); !s.ok()) return s;
  return ops::swiglu_quant::launch(p, args, device.kind, stream);
}

}  // namespace wavekit
