// swiglu_quant's entry in the op registry (ops/registry.hpp): what the tools (the support matrix,
// the performance report, the tuner) and the registry's checks know of the op by name. Plain C++.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <string_view>
#include <vector>

#include "wavekit/ops/support_row.hpp"
#include "wavekit/ops/swiglu_quant/supports.hpp"

namespace wavekit::ops::swiglu_quant {

struct entry {
  static constexpr std::string_view name = "swiglu_quant";
  // Its section of the performance report ("": the report has none).
  static constexpr std::string_view report_title = "SwiGLU + fp8 (hf-rocm-kernels shapes)";
  // Its codegen instance families (planning/instances.hpp).
  static constexpr std::string_view families[] = {"swiglu_quant"};
  // No tuned tables: the model sizes its grid (plan.hpp).
  using descriptor = void;

  static void support_rows(std::vector<support_row>& rows) {
    fp8_quantizer_rows(rows, "swiglu_quant", [](auto fp8, scale_granularity s, layout order, arch::target t) {
      return supports<decltype(fp8)>({64, 2048, s, order}, t);
    });
  }
};

}  // namespace wavekit::ops::swiglu_quant
