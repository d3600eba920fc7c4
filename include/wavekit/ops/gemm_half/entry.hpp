// gemm_half's entry in the op registry (ops/registry.hpp): what the tools (the support matrix, the
// performance report, the tuner) and the registry's checks know of the op by name. Plain C++.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <string_view>
#include <vector>

#include "wavekit/ops/gemm_half/plan.hpp"
#include "wavekit/ops/gemm_half/supports.hpp"
#include "wavekit/ops/support_row.hpp"

namespace wavekit::ops::gemm_half {

struct entry {
  static constexpr std::string_view name = "gemm_half";
  // Its section of the performance report ("": the report has none).
  static constexpr std::string_view report_title = "bf16 GEMM (DeepSeek-V3 projections)";
  // Its codegen instance families (planning/instances.hpp).
  static constexpr std::string_view families[] = {"gemm_half"};
  // Its plans and tuned tables (planning/planner.hpp).
  using descriptor = plan_descriptor;

  static void support_rows(std::vector<support_row>& rows) {
    for (layout order : {layout::k_contiguous, layout::mn_contiguous})
      rows.push_back({"gemm_half", "bf16 / fp16 -> bf16 / fp16 / fp32", to_string(order), "none",
                      [order](arch::target t) { return supports({512, 4096, 4096, order}, t); }});
  }
};

}  // namespace wavekit::ops::gemm_half
