// How far one fp32 scale reaches: the one name every scaled op uses for its scale kinds (plain C++:
// problems, arguments and plans use it). Rows are the logical rows of an operand, whatever its
// storage order: a token of an activation (M x K), an output channel of a weight (N x K, so one
// column of C).
//
//   tensor       one scale for the whole tensor, the caller's
//   row          one scale per row (per token / per channel)
//   group_1x128  one scale per row per 128 consecutive K (DeepSeek-V3's activation blocks): from the
//                values, scale = amax / max_finite(fp8) (1 for an all-zero group), bit for bit the
//                host quantizer's rule (host/quantize_blockscale.hpp)
//
// Each op takes the kinds it implements and refuses the others by name: gemm_fp8_scaled tensor and
// row for A and B; rmsnorm_quant and swiglu_quant tensor and group_1x128 for their fp8 output; moe's
// fp8 activations arriving quantized, group_1x128 and row.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

namespace wavekit {

enum class scale_granularity { tensor, row, group_1x128 };

constexpr const char* to_string(scale_granularity g) {
  return g == scale_granularity::tensor        ? "tensor"
         : g == scale_granularity::row         ? "row"
         : g == scale_granularity::group_1x128 ? "group_1x128"
                                               : "invalid";
}

}  // namespace wavekit
