// gemm_fp8_direct's supports(): yes for legal shapes on each target with its fp8 format; for every
// rule, no with the status the launch returns (its checks in its order: validate, then the
// device's fp8 format).
#include <catch2/catch.hpp>

#include "support/supports_check.hpp"
#include "wavekit/arch/target_checks.hpp"
#include "wavekit/ops/gemm_fp8_direct/supports.hpp"

using namespace wavekit;
namespace gd = ops::gemm_fp8_direct;

namespace {

// What gemm_fp8_direct::launch returns before launching on a device of target t.
template <class Fp8>
status launch_status(const gd::problem& p, arch::target t) {
  const auto* in = static_cast<const Fp8*>(test::dummy_pointer());
  if (status s = gd::op<Fp8>::validate({in, in, static_cast<float*>(test::dummy_pointer()), p.m, p.n, p.k}); !s.ok())
    return s;
  return arch::check_fp8_format<Fp8>(t, gd::op<Fp8>::name());  // check_device_fp8_format's
}

template <class Fp8>
void check_refusal(const gd::problem& p, arch::target t) {
  test::check_same_refusal(gd::supports<Fp8>(p, t), launch_status<Fp8>(p, t));
}

}  // namespace

TEST_CASE("gemm_fp8_direct supports legal shapes on each target", "[ops][supports]") {
  for (const gd::problem p : {gd::problem{32, 32, 16}, gd::problem{256, 256, 1024}}) {
    CHECK(gd::supports<fp8_e4m3fnuz>(p, arch::target::gfx942).ok());
    CHECK(gd::supports<fp8_e4m3fn>(p, arch::target::gfx950).ok());
  }
}

TEST_CASE("gemm_fp8_direct supports says no with the launch's status", "[ops][supports]") {
  for (arch::target t : test::kernel_targets) {
    check_refusal<fp8_e4m3fnuz>({-32, 32, 16}, t);
    check_refusal<fp8_e4m3fn>({33, 32, 16}, t);
    check_refusal<fp8_e4m3fnuz>({32, 48, 16}, t);
    check_refusal<fp8_e4m3fn>({32, 32, 24}, t);
    check_refusal<fp8_e4m3fnuz>({65536, 32, 65536}, t);
  }
  check_refusal<fp8_e4m3fn>({32, 32, 16}, arch::target::gfx942);
  check_refusal<fp8_e4m3fnuz>({32, 32, 16}, arch::target::gfx950);
}
