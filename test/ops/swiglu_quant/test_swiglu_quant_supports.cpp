// swiglu_quant's supports(): yes for legal problems (both scalings and orders) on each target with
// its fp8 format; for every rule, the per-tensor scale included, no with the status the launch
// returns (its checks in its order: validate, then the device's fp8 format).
#include <catch2/catch.hpp>

#include <cstdint>
#include <limits>

#include "support/supports_check.hpp"
#include "wavekit/arch/target_checks.hpp"
#include "wavekit/ops/swiglu_quant/supports.hpp"

using namespace wavekit;
namespace sq = ops::swiglu_quant;

namespace {

// What wavekit::swiglu_quant returns before launching on a device of target t.
template <class Fp8>
status launch_status(const sq::problem& p, arch::target t, float scale) {
  void* any = test::dummy_pointer();
  const sq::args<bf16, Fp8> a{static_cast<const bf16*>(any), static_cast<Fp8*>(any), static_cast<float*>(any), scale};
  if (status s = sq::validate(p, a); !s.ok()) return s;
  return arch::check_fp8_format<Fp8>(t, "swiglu_quant");  // check_device_fp8_format's
}

template <class Fp8>
void check_refusal(const sq::problem& p, arch::target t, float scale = 1.0f) {
  test::check_same_refusal(sq::supports<Fp8>(p, t, scale), launch_status<Fp8>(p, t, scale));
}

}  // namespace

TEST_CASE("swiglu_quant supports legal problems on each target", "[ops][supports]") {
  sq::problem strided{16, 2048, scale_granularity::group_1x128, layout::mn_contiguous};
  strided.x_stride = 2 * 2048 + 64, strided.q_stride = 17;
  CHECK(sq::supports<arch::fp8_of<arch::target::gfx950>>(strided, arch::target::gfx950).ok());
  for (scale_granularity s : {scale_granularity::tensor, scale_granularity::group_1x128})
    for (layout o : {layout::k_contiguous, layout::mn_contiguous})
      for (int d : {128, 2048, 18432}) {
        const sq::problem p{16, d, s, o};
        CHECK(sq::supports<arch::fp8_of<arch::target::gfx942>>(p, arch::target::gfx942).ok());
        CHECK(sq::supports<arch::fp8_of<arch::target::gfx950>>(p, arch::target::gfx950, 0.25f).ok());
      }
  CHECK(sq::supports<fp8_e4m3fnuz>({1, 8, scale_granularity::tensor, layout::k_contiguous}, arch::target::gfx942).ok());
}

TEST_CASE("swiglu_quant supports says no with the launch's status", "[ops][supports]") {
  const auto k = layout::k_contiguous;
  for (arch::target t : test::kernel_targets) {
    check_refusal<fp8_e4m3fnuz>({-1, 128, scale_granularity::tensor, k}, t);
    check_refusal<fp8_e4m3fn>({4, 12, scale_granularity::tensor, k}, t);
    check_refusal<fp8_e4m3fnuz>({4, 128, static_cast<scale_granularity>(7), k}, t);
    check_refusal<fp8_e4m3fn>({4, 136, scale_granularity::group_1x128, k}, t);
    check_refusal<fp8_e4m3fnuz>({4, 128, scale_granularity::tensor, static_cast<layout>(2)}, t);
    check_refusal<fp8_e4m3fn>({4, 128, scale_granularity::tensor, k}, t, -2.0f);
    check_refusal<fp8_e4m3fnuz>({4, 128, scale_granularity::tensor, k}, t, std::numeric_limits<float>::quiet_NaN());
    check_refusal<fp8_e4m3fn>({1 << 20, 1 << 10, scale_granularity::group_1x128, k}, t);
    // Row strides: below the width, misaligned, past 2^31, an extent past 2^31 bytes (the
    // mn_contiguous q: rows of 4 tokens, any stride from 4 on).
    const sq::problem strided{4, 128, scale_granularity::group_1x128, k};
    const std::int64_t past = std::int64_t(1) << 31, wide = std::int64_t(1) << 30;
    for (std::int64_t sq::problem::* field : {&sq::problem::x_stride, &sq::problem::q_stride})
      for (std::int64_t stride : {std::int64_t(120), std::int64_t(260), past, wide}) {
        sq::problem p = strided;
        p.*field = stride;
        check_refusal<fp8_e4m3fn>(p, t);
      }
    for (std::int64_t stride : {std::int64_t(3), past, wide}) {
      sq::problem p = strided;
      p.order = layout::mn_contiguous, p.q_stride = stride;
      check_refusal<fp8_e4m3fnuz>(p, t);
    }
  }
  check_refusal<fp8_e4m3fn>({4, 128, scale_granularity::group_1x128, k}, arch::target::gfx942);
  check_refusal<fp8_e4m3fnuz>({4, 128, scale_granularity::tensor, layout::mn_contiguous}, arch::target::gfx950);
}
