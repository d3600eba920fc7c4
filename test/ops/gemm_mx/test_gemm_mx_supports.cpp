// gemm_mx's supports(): yes for every legal form (MXFP8, MXFP4, a 16-bit A quantized inside, a
// pre-shuffled B) on gfx950 and no on gfx942; for every rule, no with the status the launch
// returns (its checks in its order: validate with the problem's kind of arguments, then the plan).
#include <catch2/catch.hpp>

#include "support/supports_check.hpp"
#include "wavekit/ops/gemm_mx/supports.hpp"

using namespace wavekit;
namespace gx = ops::gemm_mx;

namespace {

// What wavekit::gemm_mx returns before launching on a device of target t, with arguments of the
// problem's kind.
status launch_status(const gx::problem& p, arch::target t) {
  void* any = test::dummy_pointer();
  const auto* scale = static_cast<const e8m0*>(any);
  auto* c = static_cast<bf16*>(any);
  status s;
  if (p.a == gx::a_storage::mx && p.format == gx::mx_format::mxfp8) {
    const auto* in = static_cast<const fp8_e4m3fn*>(any);
    s = gx::validate(p, gx::args<fp8_e4m3fn, bf16>{in, in, scale, scale, c, nullptr, 0});
  } else if (p.a == gx::a_storage::mx) {
    const auto* in = static_cast<const fp4x2_e2m1*>(any);
    s = gx::validate(p, gx::args<fp4_e2m1, bf16>{in, in, scale, scale, c, nullptr, 0});
  } else {
    const auto* b = static_cast<const fp4x2_e2m1*>(any);
    s = p.a == gx::a_storage::bf16
            ? gx::validate(p, gx::args_quantizing_a<bf16, bf16>{static_cast<const bf16*>(any), b, scale, c, nullptr, 0})
            : gx::validate(p,
                           gx::args_quantizing_a<fp16, bf16>{static_cast<const fp16*>(any), b, scale, c, nullptr, 0});
  }
  if (!s.ok()) return s;
  const result<gx::plan_info> plan = gx::select_plan(p, 0, t);
  return plan ? status::success() : plan.error();
}

void check_refusal(const gx::problem& p, arch::target t) {
  test::check_same_refusal(gx::supports(p, t), launch_status(p, t));
}

const gx::problem legal[] = {
    {1, 16, 32, gx::mx_format::mxfp8, gx::a_storage::mx, gx::b_layout::plain},
    {256, 7168, 2048, gx::mx_format::mxfp8, gx::a_storage::mx, gx::b_layout::plain},
    {64, 512, 64, gx::mx_format::mxfp4, gx::a_storage::mx, gx::b_layout::plain},
    {64, 512, 64, gx::mx_format::mxfp4, gx::a_storage::bf16, gx::b_layout::plain},
    {64, 512, 64, gx::mx_format::mxfp4, gx::a_storage::fp16, gx::b_layout::preshuffled},
    {8, 4096, 512, gx::mx_format::mxfp4, gx::a_storage::mx, gx::b_layout::preshuffled},
};

}  // namespace

TEST_CASE("gemm_mx supports every legal form on gfx950 only", "[ops][supports]") {
  for (const gx::problem& p : legal) {
    CHECK(gx::supports(p, arch::target::gfx950).ok());
    check_refusal(p, arch::target::gfx942);  // no scaled MFMAs
  }
  CHECK_THAT(gx::supports(legal[0], arch::target::gfx942).message(), Catch::Contains("gfx950's scaled MFMAs"));
}

TEST_CASE("gemm_mx supports says no with the launch's status", "[ops][supports]") {
  for (arch::target t : test::kernel_targets) {
    check_refusal({-1, 16, 32, gx::mx_format::mxfp8, gx::a_storage::mx, gx::b_layout::plain}, t);
    check_refusal({16, 16, 32, static_cast<gx::mx_format>(4), gx::a_storage::mx, gx::b_layout::plain}, t);
    check_refusal({16, 24, 32, gx::mx_format::mxfp4, gx::a_storage::mx, gx::b_layout::plain}, t);
    check_refusal({16, 16, 48, gx::mx_format::mxfp8, gx::a_storage::mx, gx::b_layout::plain}, t);
    check_refusal({16, 16, 64, gx::mx_format::mxfp8, gx::a_storage::bf16, gx::b_layout::plain}, t);
    check_refusal({16, 16, 64, gx::mx_format::mxfp8, gx::a_storage::mx, gx::b_layout::preshuffled}, t);
    check_refusal({16, 16, 96, gx::mx_format::mxfp4, gx::a_storage::mx, gx::b_layout::preshuffled}, t);
    check_refusal({16, 16, 1 << 24, gx::mx_format::mxfp8, gx::a_storage::mx, gx::b_layout::plain}, t);
    check_refusal({1 << 16, 1 << 14, 64, gx::mx_format::mxfp4, gx::a_storage::mx, gx::b_layout::plain}, t);
  }
}
