// rmsnorm_quant's supports(): yes for legal problems (both scalings, orders and residual modes) on
// each target with its fp8 format; for every rule, eps and the per-tensor scale included, no with
// the status the launch returns (its checks in its order: validate, then the device's fp8 format).
#include <catch2/catch.hpp>

#include <cstdint>
#include <limits>

#include "support/supports_check.hpp"
#include "wavekit/arch/target_checks.hpp"
#include "wavekit/ops/rmsnorm_quant/supports.hpp"

using namespace wavekit;
namespace rq = ops::rmsnorm_quant;

namespace {

// What wavekit::rmsnorm_quant returns before launching on a device of target t.
template <class Fp8>
status launch_status(const rq::problem& p, arch::target t, float eps, float scale) {
  void* any = test::dummy_pointer();
  const rq::args<bf16, Fp8> a{static_cast<const bf16*>(any),
                              static_cast<bf16*>(any),
                              static_cast<const bf16*>(any),
                              static_cast<Fp8*>(any),
                              static_cast<float*>(any),
                              scale,
                              eps};
  if (status s = rq::validate(p, a); !s.ok()) return s;
  return arch::check_fp8_format<Fp8>(t, "rmsnorm_quant");  // check_device_fp8_format's
}

template <class Fp8>
void check_refusal(const rq::problem& p, arch::target t, float eps = 1e-6f, float scale = 1.0f) {
  test::check_same_refusal(rq::supports<Fp8>(p, t, eps, scale), launch_status<Fp8>(p, t, eps, scale));
}

}  // namespace

TEST_CASE("rmsnorm_quant supports legal problems on each target", "[ops][supports]") {
  rq::problem strided{64, 7168, scale_granularity::group_1x128, layout::k_contiguous, rq::residual_mode::add};
  strided.x_stride = 7296, strided.residual_stride = 7168 * 2, strided.q_stride = 7176;
  CHECK(rq::supports<arch::fp8_of<arch::target::gfx942>>(strided, arch::target::gfx942).ok());
  for (scale_granularity s : {scale_granularity::tensor, scale_granularity::group_1x128})
    for (layout o : {layout::k_contiguous, layout::mn_contiguous})
      for (rq::residual_mode r : {rq::residual_mode::none, rq::residual_mode::add})
        for (int hidden : {128, 7168, 16384}) {
          const rq::problem p{64, hidden, s, o, r};
          CHECK(rq::supports<arch::fp8_of<arch::target::gfx942>>(p, arch::target::gfx942).ok());
          CHECK(rq::supports<arch::fp8_of<arch::target::gfx950>>(p, arch::target::gfx950, 0.0f, 0.5f).ok());
        }
}

TEST_CASE("rmsnorm_quant supports says no with the launch's status", "[ops][supports]") {
  const auto none = rq::residual_mode::none;
  const auto k = layout::k_contiguous;
  for (arch::target t : test::kernel_targets) {
    check_refusal<fp8_e4m3fnuz>({-1, 128, scale_granularity::tensor, k, none}, t);
    check_refusal<fp8_e4m3fn>({4, 100, scale_granularity::tensor, k, none}, t);
    check_refusal<fp8_e4m3fnuz>({4, 16392, scale_granularity::tensor, k, none}, t);
    check_refusal<fp8_e4m3fn>({4, 128, static_cast<scale_granularity>(5), k, none}, t);
    check_refusal<fp8_e4m3fnuz>({4, 136, scale_granularity::group_1x128, k, none}, t);
    check_refusal<fp8_e4m3fn>({4, 128, scale_granularity::tensor, static_cast<layout>(4), none}, t);
    check_refusal<fp8_e4m3fnuz>({4, 128, scale_granularity::tensor, k, static_cast<rq::residual_mode>(3)}, t);
    check_refusal<fp8_e4m3fn>({4, 128, scale_granularity::tensor, k, none}, t, -1.0f);
    check_refusal<fp8_e4m3fnuz>({4, 128, scale_granularity::tensor, k, none}, t, 1e-6f, 0.0f);
    check_refusal<fp8_e4m3fn>({4, 128, scale_granularity::tensor, k, none}, t, 1e-6f,
                              std::numeric_limits<float>::infinity());
    check_refusal<fp8_e4m3fnuz>({1 << 20, 16384, scale_granularity::group_1x128, k, none}, t);
    // Row strides: below the width, misaligned, past 2^31, an extent past 2^31 bytes (the
    // mn_contiguous q: rows of 4 tokens, any stride from 4 on).
    const rq::problem strided{4, 128, scale_granularity::group_1x128, k, rq::residual_mode::add};
    const std::int64_t past = std::int64_t(1) << 31, wide = std::int64_t(1) << 30;
    for (std::int64_t rq::problem::* field :
         {&rq::problem::x_stride, &rq::problem::residual_stride, &rq::problem::q_stride})
      for (std::int64_t stride : {std::int64_t(120), std::int64_t(132), past, wide}) {
        rq::problem p = strided;
        p.*field = stride;
        check_refusal<fp8_e4m3fnuz>(p, t);
      }
    for (std::int64_t stride : {std::int64_t(3), past, wide}) {
      rq::problem p = strided;
      p.order = layout::mn_contiguous, p.q_stride = stride;
      check_refusal<fp8_e4m3fn>(p, t);
    }
  }
  check_refusal<fp8_e4m3fn>({4, 128, scale_granularity::group_1x128, k, none}, arch::target::gfx942);
  check_refusal<fp8_e4m3fnuz>({4, 128, scale_granularity::tensor, layout::mn_contiguous, rq::residual_mode::add},
                              arch::target::gfx950);
}
