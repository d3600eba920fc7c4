// gemm_mx's entry in the op registry (ops/registry.hpp): what the tools (the support matrix, the
// performance report, the tuner) and the registry's checks know of the op by name. Plain C++.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <string_view>
#include <vector>

#include "wavekit/ops/gemm_mx/plan.hpp"
#include "wavekit/ops/gemm_mx/supports.hpp"
#include "wavekit/ops/support_row.hpp"

namespace wavekit::ops::gemm_mx {

struct entry {
  static constexpr std::string_view name = "gemm_mx";
  // Its section of the performance report ("": the report has none).
  static constexpr std::string_view report_title = "MXFP4 GEMM, A quantized in the kernel (amd-mxfp4-mm shapes)";
  // Its codegen instance families (planning/instances.hpp): the config list, the decode GEMV and the
  // kernel that quantizes A.
  static constexpr std::string_view families[] = {"gemm_mx", "gemm_mx_gemv", "gemm_mx_quantizing_a"};
  // Its plans and tuned tables (planning/planner.hpp).
  using descriptor = plan_descriptor;

  static void support_rows(std::vector<support_row>& rows) {
    struct form {
      mx_format format;
      a_storage a;
      b_layout b;
      const char *elements, *layout;
    };
    for (const form& f : {
             form{mx_format::mxfp8, a_storage::mx, b_layout::plain, "MXFP8 -> bf16 / fp16", "k_contiguous"},
             form{mx_format::mxfp4, a_storage::mx, b_layout::plain, "MXFP4 -> bf16 / fp16", "k_contiguous"},
             form{mx_format::mxfp4, a_storage::mx, b_layout::preshuffled, "MXFP4 -> bf16 / fp16",
                  "k_contiguous, B pre-shuffled"},
             form{mx_format::mxfp4, a_storage::bf16, b_layout::plain, "A bf16 / fp16 quantized to MXFP4, B MXFP4",
                  "k_contiguous"},
             form{mx_format::mxfp4, a_storage::bf16, b_layout::preshuffled, "A bf16 / fp16 quantized to MXFP4, B MXFP4",
                  "k_contiguous, B pre-shuffled"},
         })
      rows.push_back({"gemm_mx", f.elements, f.layout, "e8m0 per 32 K",
                      [f](arch::target t) { return supports({256, 4096, 4096, f.format, f.a, f.b}, t); }});
  }
};

}  // namespace wavekit::ops::gemm_mx
