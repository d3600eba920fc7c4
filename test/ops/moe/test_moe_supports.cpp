// The MoE layer's supports(): yes for legal problems of every weights' form (bf16 / fp16 in both
// orders, fp8 block-scaled in both orders in the target's format, MXFP4 plain and pre-shuffled and
// MXFP8 on gfx950); for every rule, no with the status the launch returns. The launch's argument
// checks are HIP code, so the shape rules are compared with the workspace query's status (the same
// shape and sort rules, plain C++) and the target rules with the launch's target checks.
#include <catch2/catch.hpp>

#include "support/supports_check.hpp"
#include "wavekit/arch/target_checks.hpp"
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
  CHECK(moe::supports<moe::mxfp4_args<bf16>>(mx, arch::target::gfx950, /*preshuffled=*/true).ok());
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
      {4, 256, 256, 8, 17, 0, 8, k},               // top_k (the sort)
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
  test::check_same_refusal(moe::supports<moe::mxfp8_args<bf16>>(p, arch::target::gfx950, true),
                           moe::check_mx_layout<fp8_e4m3fn>("moe " + p.str() + ": ", true));
  CHECK_THAT(moe::supports<moe::mxfp4_args<bf16>>(p, arch::target::gfx942).message(),
             Catch::Contains("MX weights run on gfx950's scaled MFMAs; gfx942 has none"));
  CHECK_THAT(moe::supports<half_weights>(p, arch::target::gfx942, true).message(),
             Catch::Contains("only MX weights have a pre-shuffled layout"));
}
