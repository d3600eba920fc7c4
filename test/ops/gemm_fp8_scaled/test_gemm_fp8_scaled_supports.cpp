// gemm_fp8_scaled's supports(): yes for legal shapes, orders and scale granularities on each
// target with its fp8 format; for every rule, no with the status the launch returns (its checks in
// its order: validate, the device's fp8 format, the plan).
#include <catch2/catch.hpp>

#include "support/supports_check.hpp"
#include "wavekit/arch/target_checks.hpp"
#include "wavekit/ops/gemm_fp8_scaled/supports.hpp"

using namespace wavekit;
namespace gs = ops::gemm_fp8_scaled;
using gran = gs::scale_granularity;

namespace {

// What wavekit::gemm_fp8_scaled returns before launching on a device of target t.
template <class Fp8>
status launch_status(const gs::problem& p, arch::target t) {
  const auto* in = static_cast<const Fp8*>(test::dummy_pointer());
  const auto* scale = static_cast<const float*>(test::dummy_pointer());
  const gs::args<Fp8, bf16> a{in, in, scale, scale, static_cast<bf16*>(test::dummy_pointer()), nullptr, 0};
  if (status s = gs::validate(p, a); !s.ok()) return s;
  if (status s = arch::check_fp8_format<Fp8>(t, "gemm_fp8_scaled"); !s.ok()) return s;  // check_device_fp8_format's
  const result<gs::plan_info> plan = gs::select_plan(p, 0, t);
  return plan ? status::success() : plan.error();
}

template <class Fp8>
void check_refusal(const gs::problem& p, arch::target t) {
  test::check_same_refusal(gs::supports<Fp8>(p, t), launch_status<Fp8>(p, t));
}

}  // namespace

TEST_CASE("gemm_fp8_scaled supports legal shapes on each target", "[ops][supports]") {
  for (layout order : {layout::k_contiguous, layout::mn_contiguous})
    for (gran a : {gran::tensor, gran::row})
      for (gran b : {gran::tensor, gran::row})
        for (const gs::problem& p :
             {gs::problem{16, 16, 16, order, a, b}, gs::problem{4096, 8192, 4096, order, a, b}}) {
          CHECK(gs::supports<arch::fp8_of<arch::target::gfx942>>(p, arch::target::gfx942).ok());
          CHECK(gs::supports<arch::fp8_of<arch::target::gfx950>>(p, arch::target::gfx950).ok());
        }
  CHECK(gs::supports<fp8_e4m3fn>({1, 16, 16, layout::k_contiguous, gran::tensor, gran::tensor}, arch::target::gfx950)
            .ok());
}

TEST_CASE("gemm_fp8_scaled supports says no with the launch's status", "[ops][supports]") {
  for (arch::target t : test::kernel_targets) {
    check_refusal<fp8_e4m3fnuz>({16, 16, 0, layout::k_contiguous, gran::tensor, gran::tensor}, t);
    check_refusal<fp8_e4m3fn>({16, 8, 16, layout::k_contiguous, gran::tensor, gran::tensor}, t);
    check_refusal<fp8_e4m3fnuz>({16, 16, 24, layout::k_contiguous, gran::tensor, gran::tensor}, t);
    check_refusal<fp8_e4m3fn>({16, 16, 16, static_cast<layout>(5), gran::tensor, gran::tensor}, t);
    check_refusal<fp8_e4m3fnuz>({16, 16, 16, layout::k_contiguous, static_cast<gran>(9), gran::tensor}, t);
    check_refusal<fp8_e4m3fn>({15, 16, 16, layout::mn_contiguous, gran::row, gran::tensor}, t);
    check_refusal<fp8_e4m3fnuz>({65536, 16, 65536, layout::k_contiguous, gran::tensor, gran::tensor}, t);
  }
  check_refusal<fp8_e4m3fn>({64, 64, 64, layout::k_contiguous, gran::tensor, gran::row}, arch::target::gfx942);
  check_refusal<fp8_e4m3fnuz>({64, 64, 64, layout::mn_contiguous, gran::row, gran::tensor}, arch::target::gfx950);
  CHECK_FALSE(
      gs::supports<fp8_e4m3fnuz>({64, 64, 64, layout::k_contiguous, gran::tensor, gran::tensor}, arch::target::host)
          .ok());
}
