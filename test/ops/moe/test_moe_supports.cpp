// The MoE layer's supports(): yes for legal problems of every weights' form (bf16 / fp16 in both
// orders, fp8 block-scaled in both orders in the target's format, MXFP4 plain and pre-shuffled and
// MXFP8 on gfx950; MX weights stored padded with their buffers' sizes declared, and the size
// queries those take), the batched layout's and routing's; for every rule, no with the status the
// launch returns. The launch's argument
// checks are HIP code, so the shape rules are compared with the workspace query's status (the same
// shape and sort rules, plain C++), routing's with its validate_routing, and the target rules with
// the launch's target checks.
#include <catch2/catch.hpp>

#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "support/supports_check.hpp"
#include "wavekit/arch/target_checks.hpp"
#include "wavekit/host/shuffle_mx.hpp"
#include "wavekit/ops/moe/plan.hpp"
#include "wavekit/ops/moe/supports.hpp"

using namespace wavekit;
namespace moe = ops::moe;

namespace {

using half_weights = moe::args<bf16>;
template <class Fp8>
using fp8_weights = moe::blockscale_args<bf16, Fp8>;

// The workspace query's status for the weights' form (its shape and sort rules are the launch's).
status shape_status(const moe::problem& p, moe::weight_format w) {
  const result<std::size_t> bytes = moe::workspace_bytes(p, 2, w);
  return bytes ? status::success() : bytes.error();
}

moe::problem layer(int tokens, int hidden, int expert_dim, layout order) {
  return {tokens, hidden, expert_dim, 257, 9, 0, 257, order};
}

}  // namespace

TEST_CASE("moe supports legal problems of every form", "[ops][supports]") {
  for (layout o : {layout::k_contiguous, layout::mn_contiguous})
    for (int tokens : {0, 1, 128, 4096}) {
      const moe::problem p = layer(tokens, 7168, 256, o);
      for (arch::target t : test::kernel_targets) CHECK(moe::supports<moe::args<fp16>>(p, t).ok());
      CHECK(moe::supports<fp8_weights<arch::fp8_of<arch::target::gfx942>>>(p, arch::target::gfx942).ok());
      CHECK(moe::supports<fp8_weights<arch::fp8_of<arch::target::gfx950>>>(p, arch::target::gfx950).ok());
    }
  const moe::problem mx = layer(16, 7168, 256, layout::k_contiguous);
  CHECK(moe::supports<moe::mxfp4_args<bf16>>(mx, arch::target::gfx950).ok());
  CHECK(moe::supports<moe::mxfp4_args<bf16>>(mx, arch::target::gfx950, moe::b_layout::preshuffled).ok());
  CHECK(moe::supports<moe::mxfp8_args<fp16>>(mx, arch::target::gfx950).ok());
}

TEST_CASE("moe supports says no with the launch's status", "[ops][supports]") {
  const auto k = layout::k_contiguous;
  const moe::problem shape_rules[] = {
      layer(-1, 256, 256, k),                      // tokens
      layer(4, 100, 256, k),                       // hidden
      layer(4, 256, 0, k),                         // expert_dim
      layer(4, 256, 256, static_cast<layout>(6)),  // order
      layer(1 << 22, 7168, 256, k),                // 32-bit offsets
      {4, 256, 256, 8, 33, 0, 8, k},               // top_k (the sort)
      {4, 256, 256, 8, 2, 4, 8, k},                // local experts past experts (the sort)
  };
  for (arch::target t : test::kernel_targets)
    for (const moe::problem& p : shape_rules) {
      test::check_same_refusal(moe::supports<half_weights>(p, t), shape_status(p, moe::weight_format::half));
      const status fp8 = t == arch::target::gfx942
                             ? moe::supports<fp8_weights<arch::fp8_of<arch::target::gfx942>>>(p, t)
                             : moe::supports<fp8_weights<arch::fp8_of<arch::target::gfx950>>>(p, t);
      test::check_same_refusal(fp8, shape_status(p, moe::weight_format::fp8_blockscale));
      test::check_same_refusal(moe::supports<moe::mxfp4_args<bf16>>(p, t), shape_status(p, moe::weight_format::mxfp4));
    }
  // Form rules: whole 128x128 scale blocks (fp8); K-contiguous and 64-multiples (MX).
  const moe::problem not_128 = layer(4, 7168 + 64, 256, k);
  test::check_same_refusal(moe::supports<fp8_weights<fp8_e4m3fnuz>>(not_128, arch::target::gfx942),
                           shape_status(not_128, moe::weight_format::fp8_blockscale));
  const moe::problem mn = layer(4, 256, 256, layout::mn_contiguous);
  test::check_same_refusal(moe::supports<moe::mxfp8_args<bf16>>(mn, arch::target::gfx950),
                           shape_status(mn, moe::weight_format::mxfp8));
  const moe::problem not_64 = layer(4, 256, 48, k);
  test::check_same_refusal(moe::supports<moe::mxfp4_args<bf16>>(not_64, arch::target::gfx950),
                           shape_status(not_64, moe::weight_format::mxfp4));

  // Target rules: the fp8 format the target reads; MX weights on gfx950 only; pre-shuffled is MXFP4.
  const moe::problem p = layer(16, 7168, 256, k);
  test::check_same_refusal(moe::supports<fp8_weights<fp8_e4m3fn>>(p, arch::target::gfx942),
                           arch::check_fp8_format<fp8_e4m3fn>(arch::target::gfx942, "moe"));
  test::check_same_refusal(moe::supports<fp8_weights<fp8_e4m3fnuz>>(p, arch::target::gfx950),
                           arch::check_fp8_format<fp8_e4m3fnuz>(arch::target::gfx950, "moe"));
  test::check_same_refusal(moe::supports<moe::mxfp4_args<bf16>>(p, arch::target::gfx942),
                           moe::check_mx_target(p, arch::target::gfx942));
  test::check_same_refusal(moe::supports<moe::mxfp8_args<bf16>>(p, arch::target::gfx950, moe::b_layout::preshuffled),
                           moe::check_mx_layout<fp8_e4m3fn>("moe " + p.str() + ": ", moe::b_layout::preshuffled));
  CHECK_THAT(moe::supports<moe::mxfp4_args<bf16>>(p, arch::target::gfx942).message(),
             Catch::Contains("MX weights run on gfx950's scaled MFMAs; gfx942 has none"));
  CHECK_THAT(moe::supports<half_weights>(p, arch::target::gfx942, moe::b_layout::preshuffled).message(),
             Catch::Contains("only MX weights have a pre-shuffled layout"));
}

TEST_CASE("moe MX storage: the size queries are the layouts' sizes, supports() takes the call's storage",
          "[ops][supports]") {
  // Scales: [rows][k / 32], or e8m0_shuffle's padded tensor; weights: shuffle_weight adds no bytes.
  for (const auto& [rows, k] : {std::pair{512, 7168}, std::pair{64, 320}, std::pair{7168, 512}, std::pair{320, 192}}) {
    INFO(rows << " x " << k);
    const std::vector<e8m0> scales(std::size_t(rows) * (k / 32));
    CHECK(moe::mx_scale_bytes(rows, k, moe::b_layout::plain) == scales.size());
    CHECK(moe::mx_scale_bytes(rows, k, moe::b_layout::preshuffled) == host::e8m0_shuffle(scales, rows, k / 32).size());
    const std::vector<fp4x2_e2m1> weights(std::size_t(rows) * k / 2);
    CHECK(moe::mx_weight_bytes<fp4_e2m1>(rows, k) ==
          host::shuffle_weight_16x16<fp4x2_e2m1>(weights, rows, k / 2).size());
    CHECK(moe::mx_weight_bytes<fp8_e4m3fn>(rows, k) == std::size_t(rows) * k);
  }
  // amd-moe-mxfp4's tensors as they come (an expert dim of 320 padded to 512): each table entry's
  // declared bytes from the queries; up's entry 512 rows into the fused [gate; up].
  const moe::problem p{64, 7168, 320, 257, 9, 0, 257, layout::k_contiguous};
  moe::mxfp4_args<bf16> a;
  a.weight_layout = moe::b_layout::preshuffled, a.hidden_pad = 7168, a.expert_dim_pad = 512;
  a.gate_bytes = moe::mx_weight_bytes<fp4_e2m1>(2 * 512, 7168), a.up_bytes = moe::mx_weight_bytes<fp4_e2m1>(512, 7168);
  a.down_bytes = moe::mx_weight_bytes<fp4_e2m1>(7168, 512);
  a.gate_scale_bytes = moe::mx_scale_bytes(2 * 512, 7168, moe::b_layout::preshuffled);
  a.up_scale_bytes = a.gate_scale_bytes - std::size_t(512) * (7168 / 32);
  a.down_scale_bytes = moe::mx_scale_bytes(7168, 512, moe::b_layout::preshuffled);
  CHECK(moe::supports(p, a, arch::target::gfx950).ok());
  // The storage rules come before the target's (the launch's order), and each names its argument.
  const std::string what = "moe " + p.str() + ": ";
  test::check_same_refusal(moe::supports(p, a, arch::target::gfx942), moe::check_mx_target(p, arch::target::gfx942));
  moe::mxfp4_args<bf16> short_scales = a;
  short_scales.down_scale_bytes -= 1;
  for (arch::target t : test::kernel_targets)
    test::check_same_refusal(moe::supports(p, short_scales, t), moe::check_mx_storage(what, p, short_scales));
  CHECK_THAT(moe::supports(p, short_scales, arch::target::gfx950).message(),
             Catch::StartsWith(what + "argument down_scale_bytes must be at least 114688 ("));
  moe::mxfp4_args<bf16> low_pad = a;
  low_pad.expert_dim_pad = 256;
  CHECK(moe::supports(p, low_pad, arch::target::gfx950).message() ==
        what + "argument expert_dim_pad (256) must be 0 (unpadded) or a multiple of 64 not below expert_dim (320)");
  // And the rules without the storage: the shape's, the layout's, the rounding's.
  moe::mxfp8_args<bf16> shuffled8;
  shuffled8.weight_layout = moe::b_layout::preshuffled;
  test::check_same_refusal(moe::supports(p, shuffled8, arch::target::gfx950),
                           moe::check_mx_layout<fp8_e4m3fn>(what, moe::b_layout::preshuffled));
  moe::mxfp4_args<bf16> rounding = a;
  rounding.rounding = static_cast<mx_rounding>(9);
  test::check_same_refusal(moe::supports(p, rounding, arch::target::gfx950),
                           moe::check_mx_rounding(what, rounding.rounding));
}

namespace {

// The batched layout's workspace query: its shape rules are moe_batched's.
status batched_shape_status(const moe::batched_problem& p, moe::weight_format w) {
  const result<std::size_t> bytes = moe::batched_workspace_bytes(p, 2, w);
  return bytes ? status::success() : bytes.error();
}

// What moe_route checks before launching, with valid pointers.
template <class Rule>
status route_status(const moe::routing_problem& p, const Rule& rule) {
  auto* any = static_cast<int*>(test::dummy_pointer());
  return moe::validate_routing(
      p, rule, moe::routing_args<float>{reinterpret_cast<const float*>(any), any, reinterpret_cast<float*>(any)});
}

}  // namespace

TEST_CASE("moe supports the batched layout: yes for legal problems, else the launch's status", "[ops][supports]") {
  using fp8_942 = arch::fp8_of<arch::target::gfx942>;
  using fp8_950 = arch::fp8_of<arch::target::gfx950>;
  for (layout o : {layout::k_contiguous, layout::mn_contiguous})
    for (int max_tokens : {16, 64, 256}) {
      const moe::batched_problem p{8, max_tokens, 7168, 256, o};
      for (arch::target t : test::kernel_targets) CHECK(moe::supports<moe::batched_args<bf16>>(p, t).ok());
      CHECK(moe::supports<moe::batched_blockscale_args<bf16, fp8_942>>(p, arch::target::gfx942).ok());
      CHECK(moe::supports<moe::batched_blockscale_args<fp16, fp8_950>>(p, arch::target::gfx950).ok());
    }
  const auto k = layout::k_contiguous;
  const moe::batched_problem shape_rules[] = {
      {0, 16, 256, 256, k},                       // local_experts
      {2, 24, 256, 256, k},                       // max_tokens
      {2, 16, 100, 256, k},                       // hidden
      {2, 16, 256, 0, k},                         // expert_dim
      {2, 16, 256, 256, static_cast<layout>(6)},  // order
      {64, 4096, 7168, 256, k},                   // 32-bit offsets
  };
  for (arch::target t : test::kernel_targets)
    for (const moe::batched_problem& p : shape_rules) {
      test::check_same_refusal(moe::supports<moe::batched_args<bf16>>(p, t),
                               batched_shape_status(p, moe::weight_format::half));
      const status fp8 = t == arch::target::gfx942 ? moe::supports<moe::batched_blockscale_args<bf16, fp8_942>>(p, t)
                                                   : moe::supports<moe::batched_blockscale_args<bf16, fp8_950>>(p, t);
      test::check_same_refusal(fp8, batched_shape_status(p, moe::weight_format::fp8_blockscale));
    }
  const moe::batched_problem not_128{2, 16, 7168 + 64, 256, k};
  CHECK(moe::supports<moe::batched_args<bf16>>(not_128, arch::target::gfx942).ok());
  test::check_same_refusal(moe::supports<moe::batched_blockscale_args<bf16, fp8_942>>(not_128, arch::target::gfx942),
                           batched_shape_status(not_128, moe::weight_format::fp8_blockscale));
  const moe::batched_problem p{8, 64, 7168, 256, k};
  test::check_same_refusal(moe::supports<moe::batched_blockscale_args<bf16, fp8_e4m3fn>>(p, arch::target::gfx942),
                           arch::check_fp8_format<fp8_e4m3fn>(arch::target::gfx942, "moe (batched)"));
  test::check_same_refusal(moe::supports<moe::batched_blockscale_args<bf16, fp8_e4m3fnuz>>(p, arch::target::gfx950),
                           arch::check_fp8_format<fp8_e4m3fnuz>(arch::target::gfx950, "moe (batched)"));
  CHECK_THAT(moe::supports<moe::batched_args<bf16>>(p, arch::target::host).message(),
             Catch::Contains("moe (batched) 8 experts x 64 tokens") && Catch::Contains("not host"));
}

TEST_CASE("moe supports routing: yes for legal rules, else the launch's status", "[ops][supports]") {
  const moe::grouped_sigmoid_topk deepseek{8, 4, true, 2.5f, nullptr};
  for (arch::target t : test::kernel_targets) {
    CHECK(moe::supports({1, 256, 8}, deepseek, t).ok());
    CHECK(moe::supports({0, 256, 8}, deepseek, t).ok());
    CHECK(moe::supports({4096, 8, 2}, moe::softmax_topk{}, t).ok());
    CHECK(moe::supports({7, moe::max_experts, moe::max_top_k}, moe::softmax_topk{true}, t).ok());
  }
  const moe::routing_problem softmax_rules[] = {
      {-1, 8, 2},                    // tokens
      {4, 0, 1},                     // experts
      {4, moe::max_experts + 1, 2},  // experts
      {4, 8, 0},                     // top_k
      {4, 8, 9},                     // top_k past the experts
      {4, 64, moe::max_top_k + 1},   // top_k past the largest
      {1 << 22, 512, 8},             // 32-bit offsets
  };
  for (const moe::routing_problem& p : softmax_rules)
    test::check_same_refusal(moe::supports(p, moe::softmax_topk{}, arch::target::gfx950),
                             route_status(p, moe::softmax_topk{}));
  const moe::grouped_sigmoid_topk grouped_rules[] = {
      {3, 1, true, 1.0f, nullptr},    // n_group must divide the experts
      {128, 1, true, 1.0f, nullptr},  // n_group past 64
      {4, 5, true, 1.0f, nullptr},    // topk_group past n_group
      {64, 1, true, 1.0f, nullptr},   // top_k past the kept group's 4 experts
      {8, 4, true, 0.0f, nullptr},    // routed_scaling_factor
      {8, 4, true, std::numeric_limits<float>::quiet_NaN(), nullptr},
  };
  for (const moe::grouped_sigmoid_topk& r : grouped_rules)
    test::check_same_refusal(moe::supports({4, 256, 8}, r, arch::target::gfx942), route_status({4, 256, 8}, r));
  test::check_same_refusal(moe::supports({4, 16, 8}, moe::grouped_sigmoid_topk{16, 4}, arch::target::gfx942),
                           route_status({4, 16, 8}, moe::grouped_sigmoid_topk{16, 4}));  // groups of 1
  CHECK_THAT(moe::supports({4, 256, 8}, deepseek, arch::target::host).message(),
             Catch::Contains("moe routing 4 tokens, 256 experts, top 8") && Catch::Contains("not host"));
}
