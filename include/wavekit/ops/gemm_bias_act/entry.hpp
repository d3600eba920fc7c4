// gemm_bias_act's entry in the op registry (ops/registry.hpp): what the tools (the support matrix,
// the performance report, the tuner) and the registry's checks know of the op by name. Plain C++.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <string_view>
#include <vector>

#include "wavekit/ops/gemm_bias_act/supports.hpp"
#include "wavekit/ops/support_row.hpp"

namespace wavekit::ops::gemm_bias_act {

struct entry {
  static constexpr std::string_view name = "gemm_bias_act";
  // No section of the performance report: its time is gemm_half's plus an epilogue.
  static constexpr std::string_view report_title = "";
  // Its codegen instance families (planning/instances.hpp: filed under gemm_half's op, whose hot
  // loop it is).
  static constexpr std::string_view families[] = {"gemm_bias_act"};
  // No tables of its own: it runs on gemm_half's plan.
  using descriptor = void;

  static void support_rows(std::vector<support_row>& rows) {
    for (layout order : {layout::k_contiguous, layout::mn_contiguous}) {
      rows.push_back(
          {"gemm_bias_act", "bf16 / fp16 -> bf16 / fp16 / fp32, + bias, activation", to_string(order), "none",
           [order](arch::target t) { return supports<bf16>({{512, 4096, 4096, order}, activation::gelu_tanh}, t); }});
      add_fp8<fp8_e4m3fnuz>(rows, order), add_fp8<fp8_e4m3fn>(rows, order);
    }
  }

 private:
  template <class Fp8>
  static void add_fp8(std::vector<support_row>& rows, layout order) {
    rows.push_back({"gemm_bias_act", "bf16 / fp16 -> " + fp8_name<Fp8>() + ", + bias, activation", to_string(order),
                    "C per tensor fp32", [order](arch::target t) {
                      return supports<Fp8>({{512, 4096, 4096, order}, activation::gelu_tanh}, t);
                    }});
  }
};

}  // namespace wavekit::ops::gemm_bias_act
