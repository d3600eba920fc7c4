// rmsnorm_quant's entry in the op registry (ops/registry.hpp): what the tools (the support matrix,
// the performance report, the tuner) and the registry's checks know of the op by name. Plain C++.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <string_view>
#include <vector>

#include "wavekit/ops/rmsnorm_quant/supports.hpp"
#include "wavekit/ops/support_row.hpp"

namespace wavekit::ops::rmsnorm_quant {

struct entry {
  static constexpr std::string_view name = "rmsnorm_quant";
  // Its section of the performance report ("": the report has none).
  static constexpr std::string_view report_title = "residual + RMSNorm + fp8 (hf-rocm-kernels shapes)";
  // Its codegen instance families (planning/instances.hpp).
  static constexpr std::string_view families[] = {"rmsnorm_quant"};
  // No tuned tables: the model sizes its grid (plan.hpp).
  using descriptor = void;

  static void support_rows(std::vector<support_row>& rows) {
    fp8_quantizer_rows(rows, "rmsnorm_quant", [](auto fp8, scale_granularity s, layout order, arch::target t) {
      return supports<decltype(fp8)>({64, 7168, s, order, residual_mode::add}, t);
    });
  }
};

}  // namespace wavekit::ops::rmsnorm_quant
