// mla_decode's supports(): yes for legal problems (ragged and paged, bf16 and fp8 caches and
// queries in the target's format) on each target; for every rule of the problem and the fp8
// formats and scales, no with the status the launch returns (its checks in its order: the problem
// and the sequences' tables, here valid, then the device's fp8 formats, then validate_args' scale
// rule, check_scales).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstddef>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "support/supports_check.hpp"
#include "wavekit/arch/target_checks.hpp"
#include "wavekit/ops/mla_decode/supports.hpp"

using namespace wavekit;
namespace mla = ops::mla_decode;

namespace {

const float sm_scale = 0.0416667f;  // 1 / sqrt(576)

// What wavekit::mla_decode returns before launching on a device of target t, with valid tables
// (one query row and no KV rows a sequence).
template <class KV, class Q>
status launch_status(const mla::problem& p, arch::target t, float kv_scale, float q_scale) {
  const std::size_t batch = static_cast<std::size_t>(std::max(p.batch, 0));
  std::vector<int> qo(batch + 1), kv(batch + 1, 0), lens(batch, 0),
      pages(batch * static_cast<std::size_t>(std::max(p.max_pages, 0)), 0);
  for (std::size_t b = 0; b <= batch; ++b) qo[b] = static_cast<int>(b);
  const mla::sequences_view s = p.layout == mla::kv_layout::paged ? mla::sequences_view{qo, {}, lens, pages}
                                                                  : mla::sequences_view{qo, kv, {}, {}};
  if (status st = mla::validate_sequences(p, s); !st.ok()) return st;
  if constexpr (!std::is_same_v<KV, bf16>)  // check_device_fp8_format's
    if (status st = arch::check_fp8_format<KV>(t, "mla_decode"); !st.ok()) return st;
  if constexpr (!std::is_same_v<Q, bf16>)
    if (status st = arch::check_fp8_format<Q>(t, "mla_decode (argument q)"); !st.ok()) return st;
  return mla::check_scales<KV, Q>(p, kv_scale, q_scale);  // validate_args'
}

// The same with a split plan: check_plan_device after the fp8 formats (wavekit::mla_decode's), then
// validate_args' scales and check_plan.
template <class KV, class Q>
status launch_status(const mla::problem& p, arch::target t, const mla::split_plan& plan, float kv_scale,
                     float q_scale) {
  const status before = launch_status<KV, Q>(p, t, 1.0f, 1.0f);
  if (!before.ok()) return before;
  if (status st = mla::check_plan_device(p, plan, arch::facts_for(t), std::string(arch::to_string(t)) + " device");
      !st.ok())
    return st;
  if (status st = mla::check_scales<KV, Q>(p, kv_scale, q_scale); !st.ok()) return st;
  return mla::check_plan(p, plan, mla::kv_bits_of<KV>);
}

template <class KV, class Q = KV>
void check_refusal(const mla::problem& p, arch::target t, float kv_scale = 1.0f, float q_scale = 1.0f) {
  test::check_same_refusal(mla::supports<KV, Q>(p, t, kv_scale, q_scale),
                           launch_status<KV, Q>(p, t, kv_scale, q_scale));
}

template <class KV, class Q = KV>
void check_plan_refusal(const mla::problem& p, arch::target t, const mla::split_plan& plan, float kv_scale = 1.0f,
                        float q_scale = 1.0f) {
  test::check_same_refusal(mla::supports<KV, Q>(p, t, plan, kv_scale, q_scale),
                           launch_status<KV, Q>(p, t, plan, kv_scale, q_scale));
}

const mla::problem ragged{4, 128, mla::kv_layout::ragged, 1, 8192, 0, sm_scale};
const mla::problem paged{4, 16, mla::kv_layout::paged, 64, 64 * 64, 16, sm_scale};

}  // namespace

TEST_CASE("mla_decode supports legal problems on each target", "[ops][supports]") {
  using fp8_942 = arch::fp8_of<arch::target::gfx942>;
  using fp8_950 = arch::fp8_of<arch::target::gfx950>;
  for (const mla::problem& p : {ragged, paged}) {
    for (arch::target t : test::kernel_targets) CHECK(mla::supports<bf16>(p, t).ok());
    CHECK(mla::supports<fp8_942>(p, arch::target::gfx942).ok());
    CHECK(mla::supports<fp8_942, bf16>(p, arch::target::gfx942).ok());
    CHECK(mla::supports<fp8_950>(p, arch::target::gfx950).ok());
    CHECK(mla::supports<bf16, fp8_950>(p, arch::target::gfx950).ok());
    CHECK(mla::supports<fp8_942>(p, arch::target::gfx942, 0.0125f, 3.5f).ok());
    CHECK(mla::supports<fp8_950, bf16>(p, arch::target::gfx950, 1e-6f).ok());
  }
  CHECK(mla::supports<bf16>({0, 1, mla::kv_layout::ragged, 1, 0, 0, sm_scale}, arch::target::gfx942).ok());
}

TEST_CASE("mla_decode supports says no with the launch's status", "[ops][supports]") {
  for (arch::target t : test::kernel_targets) {
    check_refusal<bf16>({-1, 16, mla::kv_layout::ragged, 1, 64, 0, sm_scale}, t);
    check_refusal<bf16>({1, 129, mla::kv_layout::ragged, 1, 64, 0, sm_scale}, t);
    check_refusal<bf16>({1, 16, static_cast<mla::kv_layout>(2), 1, 64, 0, sm_scale}, t);
    check_refusal<bf16>({1, 16, mla::kv_layout::ragged, 16, 64, 0, sm_scale}, t);
    check_refusal<bf16>({1, 16, mla::kv_layout::paged, 0, 64, 4, sm_scale}, t);
    check_refusal<bf16>({1, 16, mla::kv_layout::paged, 16, 40, 4, sm_scale}, t);
    check_refusal<bf16>({1, 16, mla::kv_layout::ragged, 1, 64, 0, 0.0f}, t);
    check_refusal<bf16>({1, 16, mla::kv_layout::ragged, 1, 1 << 21, 0, sm_scale}, t);
  }
  check_refusal<fp8_e4m3fn>(ragged, arch::target::gfx942);
  check_refusal<fp8_e4m3fnuz>(paged, arch::target::gfx950);
  check_refusal<bf16, fp8_e4m3fn>(ragged, arch::target::gfx942);
  check_refusal<fp8_e4m3fn, fp8_e4m3fnuz>(paged, arch::target::gfx950);
  CHECK_THAT((mla::supports<bf16, fp8_e4m3fn>(ragged, arch::target::gfx942).message()),
             Catch::Contains("mla_decode (argument q): gfx942 reads fp8 as e4m3fnuz"));
  CHECK_THAT(mla::supports<bf16>(ragged, arch::target::host).message(), Catch::Contains("not host"));
}

TEST_CASE("mla_decode supports asks the scales the call will pass", "[ops][supports]") {
  using fp8_942 = arch::fp8_of<arch::target::gfx942>;
  using fp8_950 = arch::fp8_of<arch::target::gfx950>;
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  for (arch::target t : test::kernel_targets) {
    check_refusal<bf16>(ragged, t, 0.5f, 1.0f);  // a bf16 cache has no scale
    check_refusal<bf16>(paged, t, 1.0f, 2.0f);   // nor bf16 queries
  }
  for (float bad : {0.0f, -1.0f, inf, nan}) {
    check_refusal<fp8_942>(ragged, arch::target::gfx942, bad, 1.0f);
    check_refusal<fp8_942>(paged, arch::target::gfx942, 1.0f, bad);
    check_refusal<fp8_950, bf16>(paged, arch::target::gfx950, bad, 1.0f);
    check_refusal<bf16, fp8_950>(ragged, arch::target::gfx950, 1.0f, bad);
  }
  CHECK_THAT(mla::supports<fp8_942>(ragged, arch::target::gfx942, 0.0f).message(),
             Catch::Contains("kv_scale must be finite and positive"));
  // Each scale valid, their product (the one multiply of each score) not: it would round to 0 or Inf.
  for (auto [kv, q] : {std::pair{1e-30f, 1e-30f}, std::pair{1e30f, 1e30f}}) {
    check_refusal<fp8_942>(ragged, arch::target::gfx942, kv, q);
    check_refusal<fp8_950>(paged, arch::target::gfx950, kv, q);
    CHECK_THAT(mla::supports<fp8_942>(ragged, arch::target::gfx942, kv, q).message(),
               Catch::Contains("sm_scale * kv_scale * q_scale * log2(e) must be a normal fp32"));
  }
  CHECK_THAT(mla::supports<bf16>(ragged, arch::target::gfx942, 1.0f, 0.5f).message(),
             Catch::Contains("q_scale is fp8 queries' scale; bf16 queries have 1"));
  // The format rule comes first, as in the launch.
  CHECK_THAT(mla::supports<fp8_950>(ragged, arch::target::gfx942, 0.0f).message(), Catch::Contains("reads fp8 as"));
}

TEST_CASE("mla_decode supports asks the split plan the call will pass", "[ops][supports]") {
  using fp8_942 = arch::fp8_of<arch::target::gfx942>;
  using fp8_950 = arch::fp8_of<arch::target::gfx950>;
  const int cus_942 = arch::facts_of<arch::target::gfx942>.compute_units;
  const int cus_950 = arch::facts_of<arch::target::gfx950>.compute_units;
  // Plans as mla_decode_plan<KV> makes them on each device, and one written by hand.
  const mla::split_plan bf16_942{640, 13, 16, 128, cus_942}, fp8_942_plan{1216, 7, 8, 128, cus_942},
      fp8_950_plan{1216, 7, 8, 128, cus_950}, mx_950_plan{2016, 5, 4, 128, cus_950}, by_hand{640, 13};
  CHECK(mla::supports<bf16>(ragged, arch::target::gfx942, bf16_942).ok());
  CHECK(mla::supports<fp8_942>(ragged, arch::target::gfx942, fp8_942_plan, 0.5f).ok());
  CHECK(mla::supports<fp8_950, bf16>(ragged, arch::target::gfx950, fp8_950_plan, 0.5f).ok());
  // An MXFP4 cache: gfx950 only, its plan its own.
  CHECK(mla::supports<fp4x2_e2m1>(ragged, arch::target::gfx950, mx_950_plan).ok());
  CHECK(mla::supports<fp4x2_e2m1>(ragged, arch::target::gfx942).message() ==
        "mla_decode " + ragged.str() + ": an MXFP4 cache is widened by gfx950's scaled conversions; gfx942 has none");
  CHECK_THAT(mla::supports<fp4x2_e2m1>(ragged, arch::target::gfx950, fp8_950_plan).message(),
             Catch::Contains("argument plan was chosen for an fp8 cache and this call reads an MXFP4 cache"));
  for (arch::target t : test::kernel_targets) CHECK(mla::supports<bf16>(paged, t, by_hand).ok());
  CHECK(mla::supports<fp8_950>(ragged, arch::target::gfx950, by_hand, 0.5f).ok());
  // The cache type: a bf16 cache's plan with an fp8 cache and the reverse.
  check_plan_refusal<fp8_942>(ragged, arch::target::gfx942, bf16_942, 0.5f);
  check_plan_refusal<bf16>(ragged, arch::target::gfx942, fp8_942_plan);
  check_plan_refusal<fp8_942, bf16>(ragged, arch::target::gfx942, bf16_942, 0.5f);
  CHECK_THAT(mla::supports<fp8_942>(ragged, arch::target::gfx942, bf16_942, 0.5f).message(),
             Catch::Contains("argument plan was chosen for a bf16 cache and this call reads an fp8 cache"));
  // The heads (paged has 16), the device's CUs, a chunk of partial tiles, too many splits.
  check_plan_refusal<bf16>(paged, arch::target::gfx942, bf16_942);
  CHECK_THAT(mla::supports<bf16>(paged, arch::target::gfx942, bf16_942).message(),
             Catch::Contains("argument plan was chosen for 128 heads and this problem has 16"));
  check_plan_refusal<bf16>(ragged, arch::target::gfx950, bf16_942);
  CHECK_THAT(mla::supports<bf16>(ragged, arch::target::gfx950, bf16_942).message(),
             Catch::Contains("argument plan was chosen for a device of 304 CUs and this gfx950 device has 256"));
  check_plan_refusal<fp8_950>(ragged, arch::target::gfx950, fp8_942_plan, 0.5f);
  check_plan_refusal<bf16>(ragged, arch::target::gfx942, mla::split_plan{48, 2});
  check_plan_refusal<bf16>(ragged, arch::target::gfx942, mla::split_plan{64, mla::max_splits + 1});
  // In the launch's order: the fp8 format first, the device before the scales, the scales before
  // the cache type.
  CHECK_THAT(mla::supports<fp8_950>(ragged, arch::target::gfx942, bf16_942, 0.5f).message(),
             Catch::Contains("reads fp8 as"));
  check_plan_refusal<fp8_950>(ragged, arch::target::gfx950, bf16_942, 0.0f);
  CHECK_THAT(mla::supports<fp8_950>(ragged, arch::target::gfx950, bf16_942, 0.0f).message(), Catch::Contains("CUs"));
  check_plan_refusal<fp8_942>(ragged, arch::target::gfx942, bf16_942, 0.0f);
  CHECK_THAT(mla::supports<fp8_942>(ragged, arch::target::gfx942, bf16_942, 0.0f).message(),
             Catch::Contains("kv_scale must be finite and positive"));
}
