// moe's entry in the op registry (ops/registry.hpp): what the tools (the support matrix, the
// performance report, the tuner) and the registry's checks know of the op by name. The entry
// covers the op's three public calls: the layer after routing (moe), its batched expert-parallel
// form (moe_batched) and the routing (moe_route). Plain C++.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <string_view>
#include <vector>

#include "wavekit/ops/moe/plan.hpp"
#include "wavekit/ops/moe/supports.hpp"
#include "wavekit/ops/support_row.hpp"

namespace wavekit::ops::moe {

struct entry {
  static constexpr std::string_view name = "moe";
  // Its section of the performance report ("": the report has none).
  static constexpr std::string_view report_title =
      "MoE layer after routing: sort, grouped GEMMs, combine (amd-moe-mxfp4 and DeepSeek-V3 shapes)";
  // Its codegen instance families (planning/instances.hpp): the 16-bit and fp8 config lists, the
  // MX layer, and the quantize, routing, sort and combine kernels around the GEMMs.
  static constexpr std::string_view families[] = {
      "moe", "moe_fp8", "moe_mx", "moe_quantize_1x128", "moe_routing_sort_combine", "quantize_1x32_mx"};
  // Its plans and tuned tables (planning/planner.hpp).
  using descriptor = plan_descriptor;

  static void support_rows(std::vector<support_row>& rows) {
    layer_rows(rows);
    batched_rows(rows);
    route_rows(rows);
  }

 private:
  static void layer_rows(std::vector<support_row>& rows) {
    using arch::target;
    auto layer = [](layout order) { return problem{64, 7168, 256, 257, 9, 0, 257, order}; };
    for (layout order : {layout::k_contiguous, layout::mn_contiguous})
      rows.push_back({"moe", "bf16 / fp16 weights", to_string(order), "none",
                      [=](target t) { return supports<args<bf16>>(layer(order), t); }});
    for (layout order : {layout::k_contiguous, layout::mn_contiguous}) {
      rows.push_back({"moe", "fp8 e4m3fnuz weights", to_string(order), "128x128 fp32 (activations 1x128)",
                      [=](target t) { return supports<blockscale_args<bf16, fp8_e4m3fnuz>>(layer(order), t); }});
      rows.push_back({"moe", "fp8 e4m3fn weights", to_string(order), "128x128 fp32 (activations 1x128)",
                      [=](target t) { return supports<blockscale_args<bf16, fp8_e4m3fn>>(layer(order), t); }});
    }
    for (layout order : {layout::k_contiguous, layout::mn_contiguous}) {
      rows.push_back({"moe", "MXFP4 weights", to_string(order), "e8m0 per 32 K",
                      [=](target t) { return supports<mxfp4_args<bf16>>(layer(order), t); }});
      rows.push_back({"moe", "MXFP8 weights", to_string(order), "e8m0 per 32 K",
                      [=](target t) { return supports<mxfp8_args<bf16>>(layer(order), t); }});
    }
    rows.push_back({"moe", "MXFP4 weights", "k_contiguous, pre-shuffled", "e8m0 per 32 K", [=](target t) {
                      return supports<mxfp4_args<bf16>>(layer(layout::k_contiguous), t, b_layout::preshuffled);
                    }});
    rows.push_back({"moe", "MXFP8 weights", "k_contiguous, pre-shuffled", "e8m0 per 32 K", [=](target t) {
                      return supports<mxfp8_args<bf16>>(layer(layout::k_contiguous), t, b_layout::preshuffled);
                    }});
    // Stored as aiter stores them (mx_args' pads and declared sizes): an expert dim of 320 in
    // tensors padded to 512.
    rows.push_back(
        {"moe", "MXFP4 weights", "k_contiguous, pre-shuffled, padded (aiter's)", "e8m0 per 32 K", [](target t) {
           const problem p{64, 7168, 320, 257, 9, 0, 257, layout::k_contiguous};
           mxfp4_args<bf16> a;
           a.weight_layout = b_layout::preshuffled, a.hidden_pad = 7168, a.expert_dim_pad = 512;
           a.gate_bytes = a.up_bytes = mx_weight_bytes<fp4_e2m1>(512, 7168);
           a.down_bytes = mx_weight_bytes<fp4_e2m1>(7168, 512);
           a.gate_scale_bytes = a.up_scale_bytes = mx_scale_bytes(512, 7168, b_layout::preshuffled);
           a.down_scale_bytes = mx_scale_bytes(7168, 512, b_layout::preshuffled);
           return supports(p, a, t);
         }});
  }

  // The batched expert-parallel layout (moe_batched): DeepSeek-V3's experts, 8 of them local.
  static void batched_rows(std::vector<support_row>& rows) {
    using arch::target;
    auto batched = [](layout order) { return batched_problem{8, 128, 7168, 2048, order}; };
    for (layout order : {layout::k_contiguous, layout::mn_contiguous}) {
      rows.push_back({"moe_batched", "bf16 / fp16 weights", to_string(order), "none",
                      [=](target t) { return supports<batched_args<bf16>>(batched(order), t); }});
      rows.push_back(
          {"moe_batched", "fp8 e4m3fnuz weights", to_string(order), "128x128 fp32 (activations 1x128)",
           [=](target t) { return supports<batched_blockscale_args<bf16, fp8_e4m3fnuz>>(batched(order), t); }});
      rows.push_back(
          {"moe_batched", "fp8 e4m3fn weights", to_string(order), "128x128 fp32 (activations 1x128)",
           [=](target t) { return supports<batched_blockscale_args<bf16, fp8_e4m3fn>>(batched(order), t); }});
    }
  }

  // Routing (moe_route): a softmax top-k, and DeepSeek-V3's grouped sigmoid; logits in rows padded
  // to a router GEMM's N tile (logits_stride) as well as packed.
  static void route_rows(std::vector<support_row>& rows) {
    rows.push_back({"moe_route", "fp32 / bf16 / fp16 logits, softmax top-k", "[tokens][experts], rows packed or padded",
                    "none", [](arch::target t) { return supports({64, 120, 8, 128}, softmax_topk{}, t); }});
    rows.push_back({"moe_route", "fp32 / bf16 / fp16 logits, grouped sigmoid top-k",
                    "[tokens][experts], rows packed or padded", "none",
                    [](arch::target t) { return supports({64, 256, 8}, grouped_sigmoid_topk{8, 4}, t); }});
  }
};

}  // namespace wavekit::ops::moe
