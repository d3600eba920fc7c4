// mla_decode's entry in the op registry (ops/registry.hpp): what the tools (the support matrix,
// the performance report, the tuner) and the registry's checks know of the op by name. Plain C++.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <string>
#include <string_view>
#include <vector>

#include "wavekit/ops/mla_decode/supports.hpp"
#include "wavekit/ops/support_row.hpp"

namespace wavekit::ops::mla_decode {

struct entry {
  static constexpr std::string_view name = "mla_decode";
  // Its section of the performance report ("": the report has none).
  static constexpr std::string_view report_title = "MLA decode over a latent KV cache (aiter and amd-mixed-mla shapes)";
  // Its codegen instance families (planning/instances.hpp): the decode kernel, the reduce of the
  // KV splits and the balanced split's schedule.
  static constexpr std::string_view families[] = {"mla_decode", "mla_decode_reduce", "mla_decode_balanced"};
  // No tuned tables: the model chooses each call's KV split from its lengths (plan.hpp).
  using descriptor = void;

  static void support_rows(std::vector<support_row>& rows) {
    for (kv_layout kv : {kv_layout::ragged, kv_layout::paged}) {
      const problem p = kv == kv_layout::ragged ? problem{4, 128, kv, 1, 8192, 0, 0.0417f}
                                                : problem{4, 128, kv, 64, 8192, 32, 0.0417f};
      const std::string cache = std::string(to_string(kv)) + " cache";
      rows.push_back(
          {"mla_decode", "bf16 q and cache", cache, "none", [=](arch::target t) { return supports<bf16>(p, t); }});
      rows.push_back({"mla_decode", "fp8 e4m3fnuz q and cache", cache, "per tensor fp32",
                      [=](arch::target t) { return supports<fp8_e4m3fnuz>(p, t); }});
      rows.push_back({"mla_decode", "fp8 e4m3fn q and cache", cache, "per tensor fp32",
                      [=](arch::target t) { return supports<fp8_e4m3fn>(p, t); }});
      rows.push_back({"mla_decode", "bf16 q, MXFP4 cache", cache, "e8m0 per 32 (scale table)",
                      [=](arch::target t) { return supports<fp4x2_e2m1>(p, t); }});
    }
  }
};

}  // namespace wavekit::ops::mla_decode
