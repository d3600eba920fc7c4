// gemm_fp8_blockscale's supports(): yes for legal shapes in both orders on each target with its
// fp8 format; for every rule, no with the status the launch returns (its checks in its order:
// validate, the device's fp8 format, the plan).
#include <catch2/catch.hpp>

#include "support/supports_check.hpp"
#include "wavekit/arch/target_checks.hpp"
#include "wavekit/ops/gemm_fp8_blockscale/supports.hpp"

using namespace wavekit;
namespace gb = ops::gemm_fp8_blockscale;

namespace {

// What wavekit::gemm_fp8_blockscale returns before launching on a device of target t.
template <class Fp8>
status launch_status(const gb::problem& p, arch::target t) {
  const auto* in = static_cast<const Fp8*>(test::dummy_pointer());
  const auto* scale = static_cast<const float*>(test::dummy_pointer());
  const gb::args<Fp8> a{in, in, scale, scale, static_cast<bf16*>(test::dummy_pointer()), nullptr, 0};
  if (status s = gb::validate(p, a); !s.ok()) return s;
  if (status s = arch::check_fp8_format<Fp8>(t, "gemm_fp8_blockscale"); !s.ok()) return s;  // check_device_fp8_format's
  const result<gb::plan_info> plan = gb::select_plan(p, 0, t);
  return plan ? status::success() : plan.error();
}

template <class Fp8>
void check_refusal(const gb::problem& p, arch::target t) {
  test::check_same_refusal(gb::supports<Fp8>(p, t), launch_status<Fp8>(p, t));
}

}  // namespace

TEST_CASE("gemm_fp8_blockscale supports legal shapes on each target", "[ops][supports]") {
  for (layout order : {layout::k_contiguous, layout::mn_contiguous})
    for (const gb::problem& p :
         {gb::problem{16, 16, 128, order}, gb::problem{64, 1536, 7168, order}, gb::problem{6144, 4608, 7168, order}}) {
      CHECK(gb::supports<arch::fp8_of<arch::target::gfx942>>(p, arch::target::gfx942).ok());
      CHECK(gb::supports<arch::fp8_of<arch::target::gfx950>>(p, arch::target::gfx950).ok());
    }
  CHECK(gb::supports<fp8_e4m3fnuz>({1, 16, 128, layout::k_contiguous}, arch::target::gfx942).ok());
}

TEST_CASE("gemm_fp8_blockscale supports says no with the launch's status", "[ops][supports]") {
  for (arch::target t : test::kernel_targets) {
    check_refusal<fp8_e4m3fnuz>({-16, 16, 128, layout::k_contiguous}, t);
    check_refusal<fp8_e4m3fn>({16, 24, 128, layout::k_contiguous}, t);
    check_refusal<fp8_e4m3fnuz>({16, 16, 64, layout::mn_contiguous}, t);
    check_refusal<fp8_e4m3fn>({16, 16, 128, static_cast<layout>(7)}, t);
    check_refusal<fp8_e4m3fnuz>({17, 16, 128, layout::mn_contiguous}, t);
    check_refusal<fp8_e4m3fn>({65536, 16, 65536, layout::k_contiguous}, t);
  }
  // The fp8 format the target does not read.
  check_refusal<fp8_e4m3fn>({64, 64, 128, layout::k_contiguous}, arch::target::gfx942);
  check_refusal<fp8_e4m3fnuz>({64, 64, 128, layout::mn_contiguous}, arch::target::gfx950);
  CHECK_THAT(gb::supports<fp8_e4m3fn>({64, 64, 128, layout::k_contiguous}, arch::target::gfx942).message(),
             Catch::Contains("gfx942 reads fp8 as e4m3fnuz"));
  // No kernels for the host: the plan query's refusal.
  CHECK_THAT(gb::supports<fp8_e4m3fnuz>({64, 64, 128, layout::k_contiguous}, arch::target::host).message(),
             Catch::Contains("not host"));
}
