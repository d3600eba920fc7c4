// How a row-wise op's fp8 output is scaled (ops/rmsnorm_quant, ops/swiglu_quant):
//
//   per_tensor    one fp32 scale the caller gives:  q = saturate(y / scale)
//   group_1x128   one fp32 scale per row per 128 columns, from the values: scale = amax /
//                 max_finite(fp8) (1 for an all-zero group), q = saturate(y / scale); the A
//                 operand and a_scale of the block-scaled GEMM (ops/gemm_fp8_blockscale), bit for
//                 bit the host quantizer's rule (host/quantize_blockscale.hpp)
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

namespace wavekit {

enum class fp8_scaling { per_tensor, group_1x128 };

constexpr const char* to_string(fp8_scaling s) {
  return s == fp8_scaling::per_tensor    ? "per_tensor"
         : s == fp8_scaling::group_1x128 ? "group_1x128"
                                         : "invalid scaling";
}

}  // namespace wavekit
