// gemm_fp8_blockscale's entry in the op registry (ops/registry.hpp): what the tools (the support
// matrix, the performance report, the tuner) and the registry's checks know of the op by name.
// Plain C++.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <string_view>
#include <vector>

#include "wavekit/ops/gemm_fp8_blockscale/plan.hpp"
#include "wavekit/ops/gemm_fp8_blockscale/supports.hpp"
#include "wavekit/ops/support_row.hpp"

namespace wavekit::ops::gemm_fp8_blockscale {

struct entry {
  static constexpr std::string_view name = "gemm_fp8_blockscale";
  // Its section of the performance report ("": the report has none).
  static constexpr std::string_view report_title = "fp8 GEMM, 1x128 / 128x128 block scales (amd-fp8-mm shapes)";
  // Its codegen instance families (planning/instances.hpp): the config list and the hand-written ones.
  static constexpr std::string_view families[] = {"gemm_fp8_blockscale",
                                                  "gemm_fp8_blockscale_custom_bk128_64x128",
                                                  "gemm_fp8_blockscale_custom_bk128_mfma32_32x64",
                                                  "gemm_fp8_blockscale_custom_one_stage_64x128",
                                                  "gemm_fp8_blockscale_custom_one_stage_bk128_32x64",
                                                  "gemm_fp8_blockscale_custom_wide_64x256"};
  // Its plans and tuned tables (planning/planner.hpp).
  using descriptor = plan_descriptor;

  static void support_rows(std::vector<support_row>& rows) { add<fp8_e4m3fnuz>(rows), add<fp8_e4m3fn>(rows); }

 private:
  template <class Fp8>
  static void add(std::vector<support_row>& rows) {
    for (layout order : {layout::k_contiguous, layout::mn_contiguous})
      rows.push_back({"gemm_fp8_blockscale", fp8_name<Fp8>() + " -> bf16", to_string(order), "1x128 A, 128x128 B fp32",
                      [order](arch::target t) { return supports<Fp8>({64, 1536, 7168, order}, t); }});
  }
};

}  // namespace wavekit::ops::gemm_fp8_blockscale
