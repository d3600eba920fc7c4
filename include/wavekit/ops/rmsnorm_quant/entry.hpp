// rmsnorm_quant's entry in the op registry (ops/registry.hpp): what the tools (the support matrix,
// the performance report, the tuner) and the registry's checks know of the op by name. Plain C++.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <string>
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

  static void support_rows(std::vector<support_row>& rows) { add<fp8_e4m3fnuz>(rows), add<fp8_e4m3fn>(rows); }

 private:
  template <class Fp8>
  static void add(std::vector<support_row>& rows) {
    for (scale_granularity s : {scale_granularity::tensor, scale_granularity::group_1x128})
      for (layout order : {layout::k_contiguous, layout::mn_contiguous}) {
        const std::string scales = s == scale_granularity::tensor ? "per tensor fp32" : "1x128 fp32";
        rows.push_back({"rmsnorm_quant", "bf16 / fp16 -> " + fp8_name<Fp8>(), to_string(order), scales,
                        [=](arch::target t) { return supports<Fp8>({64, 7168, s, order, residual_mode::add}, t); }});
      }
  }
};

}  // namespace wavekit::ops::rmsnorm_quant
