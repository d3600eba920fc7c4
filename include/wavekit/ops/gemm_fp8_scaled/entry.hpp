// gemm_fp8_scaled's entry in the op registry (ops/registry.hpp): what the tools (the support
// matrix, the performance report, the tuner) and the registry's checks know of the op by name.
// Plain C++.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <string>
#include <string_view>
#include <vector>

#include "wavekit/ops/gemm_fp8_scaled/plan.hpp"
#include "wavekit/ops/gemm_fp8_scaled/supports.hpp"
#include "wavekit/ops/support_row.hpp"

namespace wavekit::ops::gemm_fp8_scaled {

struct entry {
  static constexpr std::string_view name = "gemm_fp8_scaled";
  // Its section of the performance report ("": the report has none).
  static constexpr std::string_view report_title = "fp8 GEMM, per-tensor scales, skinny M (hf-rocm-kernels shapes)";
  // Its codegen instance families (planning/instances.hpp).
  static constexpr std::string_view families[] = {"gemm_fp8_scaled"};
  // Its plans and tuned tables (planning/planner.hpp).
  using descriptor = plan_descriptor;

  static void support_rows(std::vector<support_row>& rows) { add<fp8_e4m3fnuz>(rows), add<fp8_e4m3fn>(rows); }

 private:
  template <class Fp8>
  static void add(std::vector<support_row>& rows) {
    using gran = scale_granularity;  // the op's own: per tensor or per row of A / column of C
    for (layout order : {layout::k_contiguous, layout::mn_contiguous})
      for (gran g : {gran::tensor, gran::row})
        rows.push_back({"gemm_fp8_scaled", fp8_name<Fp8>() + " -> bf16 / fp16", to_string(order),
                        std::string("per ") + (g == gran::tensor ? "tensor" : "row of A / column of C") + " fp32",
                        [order, g](arch::target t) { return supports<Fp8>({512, 4096, 4096, order, g, g}, t); }});
  }
};

}  // namespace wavekit::ops::gemm_fp8_scaled
