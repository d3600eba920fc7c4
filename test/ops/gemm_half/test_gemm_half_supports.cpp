// gemm_half's supports(): yes for legal shapes in both orders on each target; for every rule, no
// with the status the launch returns (its checks in its order: validate, then the plan).
#include <catch2/catch.hpp>

#include "support/supports_check.hpp"
#include "wavekit/ops/gemm_half/supports.hpp"

using namespace wavekit;
namespace gh = ops::gemm_half;

namespace {

// What wavekit::gemm_half returns before launching on a device of target t.
status launch_status(const gh::problem& p, arch::target t) {
  const auto* in = static_cast<const bf16*>(test::dummy_pointer());
  const gh::args<bf16, float> a{in, in, static_cast<float*>(test::dummy_pointer()), nullptr, 0};
  if (status s = gh::validate(p, a); !s.ok()) return s;
  const result<gh::plan_info> plan = gh::select_plan(p, 0, t);
  return plan ? status::success() : plan.error();
}

void check_refusal(const gh::problem& p, arch::target t) {
  test::check_same_refusal(gh::supports(p, t), launch_status(p, t));
}

}  // namespace

TEST_CASE("gemm_half supports legal shapes on each target", "[ops][supports]") {
  for (arch::target t : test::kernel_targets)
    for (layout order : {layout::k_contiguous, layout::mn_contiguous})
      for (const gh::problem& p : {gh::problem{16, 16, 8, order}, gh::problem{4096, 4096, 4096, order}})
        CHECK(gh::supports(p, t).ok());
  CHECK(gh::supports({1, 16, 8, layout::k_contiguous}, arch::target::gfx942).ok());
}

TEST_CASE("gemm_half supports says no with the launch's status", "[ops][supports]") {
  for (arch::target t : test::kernel_targets) {
    check_refusal({-1, 16, 8, layout::k_contiguous}, t);
    check_refusal({16, 20, 8, layout::k_contiguous}, t);
    check_refusal({16, 16, 12, layout::mn_contiguous}, t);
    check_refusal({16, 16, 8, static_cast<layout>(3)}, t);
    check_refusal({8, 16, 8, layout::mn_contiguous}, t);
    check_refusal({65536, 16, 32768, layout::k_contiguous}, t);
  }
  CHECK_THAT(gh::supports({16, 16, 8, layout::k_contiguous}, arch::target::host).message(),
             Catch::Contains("not host"));
}
