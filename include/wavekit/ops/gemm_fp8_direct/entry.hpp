// gemm_fp8_direct's entry in the op registry (ops/registry.hpp): what the tools (the support
// matrix, the performance report, the tuner) and the registry's checks know of the op by name.
// Plain C++.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <string_view>
#include <vector>

#include "wavekit/ops/gemm_fp8_direct/supports.hpp"
#include "wavekit/ops/support_row.hpp"

namespace wavekit::ops::gemm_fp8_direct {

struct entry {
  static constexpr std::string_view name = "gemm_fp8_direct";
  // Its section of the performance report ("": the report has none).
  static constexpr std::string_view report_title =
      "fp8 GEMM, one wave a 32x32 tile straight from global memory (the readable kernel)";
  // Its codegen instance families (planning/instances.hpp).
  static constexpr std::string_view families[] = {"gemm_fp8_direct_fnuz", "gemm_fp8_direct_ocp"};
  // No tuned tables: one tile, nothing to plan.
  using descriptor = void;

  static void support_rows(std::vector<support_row>& rows) { add<fp8_e4m3fnuz>(rows), add<fp8_e4m3fn>(rows); }

 private:
  template <class Fp8>
  static void add(std::vector<support_row>& rows) {
    rows.push_back({"gemm_fp8_direct", fp8_name<Fp8>() + " -> fp32", "k_contiguous", "none",
                    [](arch::target t) { return supports<Fp8>({256, 256, 1024}, t); }});
  }
};

}  // namespace wavekit::ops::gemm_fp8_direct
