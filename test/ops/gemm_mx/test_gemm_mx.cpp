// The MX GEMM against the host reference, on the CPU emulator and, in the GPU build, on the device:
// on gfx950 every shipped config on shapes derived from its tile, MXFP8 and MXFP4, bf16 and fp16
// out, split-K, a ragged first K step, the one-call API and its plan, LDS without bank conflicts
// and the performance model's bytes (emulator counters); on gfx942 the refusal, before any launch.
// Every error status on both. Operands have a different scale in every 32-K block (gemm_mx_case),
// so a scale taken from the wrong block or lane fails the bound. Bounds: gemm_mx_case::check.
#include <hip/hip_runtime.h>
#include <catch2/catch.hpp>

#include <string>
#include <tuple>
#include <utility>

#include "support/empty_problem.hpp"
#include "support/gemm_mx_run.hpp"
#include "support/graph_safety.hpp"
#include "wavekit/ops/gemm_mx.hpp"

using namespace wavekit;
namespace gx = wavekit::ops::gemm_mx;

namespace {

using test::device_is_gfx950;

template <class Cfg, class Elem, class Out>
int run_config(const gx::problem& p, int splits, std::uint32_t seed) {
  return test::run_mx_config<Cfg, test::gemm_mx_case<Elem, Out>>(p, splits, seed);
}

template <class Cfg, class Elem>
void run_shapes() {
  constexpr gx::mx_format f = gx::format_of<Elem>;
  const int bm = Cfg::block_m, bn = Cfg::block_n, bk = gx::block_k_of<Cfg>(f);
  for (int m : {1, bm - 1, bm + 1})
    for (int k : {32, bk, 3 * bk + 64})
      CHECK(run_config<Cfg, Elem, bf16>(gx::problem{m, bn + 16, k, f, gx::a_storage::mx, gx::b_layout::plain}, 1,
                                        m + k) == 0);
  CHECK(run_config<Cfg, Elem, fp16>(gx::problem{bm, 16, 5 * bk, f, gx::a_storage::mx, gx::b_layout::plain}, 3, 7) == 0);
  CHECK(run_config<Cfg, Elem, bf16>(gx::problem{bm + 16, bn, 4 * bk - 32, f, gx::a_storage::mx, gx::b_layout::plain}, 2,
                                    9) == 0);
  if constexpr (f == gx::mx_format::mxfp4) {  // B in aiter's pre-shuffled layouts
    const gx::b_layout shuffled = gx::b_layout::preshuffled;
    CHECK(run_config<Cfg, Elem, bf16>(gx::problem{bm + 1, 272, 3 * bk + 64, f, gx::a_storage::mx, shuffled}, 1, 5) ==
          0);
    CHECK(run_config<Cfg, Elem, bf16>(gx::problem{bm, bn, 2 * bk - 64, f, gx::a_storage::mx, shuffled}, 2, 6) == 0);
  }
}

}  // namespace

TEMPLATE_LIST_TEST_CASE("gemm_mx: each shipped config on shapes derived from its tile, MXFP8 and MXFP4", "[emu][gemm]",
                        gx::shipped_configs) {
  if (!device_is_gfx950()) {
    SUCCEED("MX formats are gfx950's; the refusal test covers this target");
    return;
  }
  run_shapes<TestType, fp8_e4m3fn>();
  run_shapes<TestType, fp4_e2m1>();
}

TEST_CASE("gemm_mx: the one-call API runs the plan it reports, workspace fallback included", "[emu][gemm]") {
  if (!device_is_gfx950()) {
    SUCCEED("MX formats are gfx950's; the refusal test covers this target");
    return;
  }
  auto run = [](auto element, const gx::problem& p) {
    using Elem = decltype(element);
    test::gemm_mx_case<Elem, bf16> t(p, 42, 16);
    gx::plan_info ran;
#if defined(WAVEKIT_EMULATOR)
    emu::reset_counters();
#endif
    status one_call;  // graph-safe: no host synchronisation, copy back or allocation inside
    CHECK(test::graph_unsafe_calls_of([&](hipStream_t stream) {
            one_call = gemm_mx(p, t.args(), stream, &ran);
          }).empty());
    REQUIRE(one_call.ok());
    REQUIRE(hipDeviceSynchronize() == hipSuccess);
#if defined(WAVEKIT_EMULATOR)
    test::check_model_traffic_summed(gx::model_launches(p, ran.plan), emu::accumulated_counters());
#endif
    CHECK(ran.name == gemm_mx_select_plan<decltype(t.args())>(p, t.workspace_bytes).value().name);
    CHECK(t.check(ran.plan.splits, ran.name.c_str()) == 0);
    auto no_workspace = t.args();
    no_workspace.workspace = nullptr, no_workspace.workspace_bytes = 0;
    REQUIRE(gemm_mx(p, no_workspace, nullptr, &ran).ok());
    REQUIRE(hipDeviceSynchronize() == hipSuccess);
    CHECK(ran.plan.splits == 1);
    CHECK(t.check(1, ran.name.c_str()) == 0);
  };
  run(fp4_e2m1{}, gx::problem{1, 256, 4096, gx::mx_format::mxfp4, gx::a_storage::mx, gx::b_layout::plain});
  run(fp8_e4m3fn{}, gx::problem{96, 128, 1024, gx::mx_format::mxfp8, gx::a_storage::mx, gx::b_layout::plain});
}

// Each argument type (MXFP8 / MXFP4 operands, MXFP4 with a bf16 / fp16 A; C bf16 or fp16): the
// call given exactly the workspace its query says runs the plan the query says with unlimited
// workspace.
template <class Case>
void check_query_sizes_call(const gx::problem& p) {
  using Args = decltype(std::declval<const Case&>().args());
  const result<std::size_t> ws = gemm_mx_workspace_bytes<Args>(p);
  REQUIRE(ws.ok());
  const gx::plan_info preferred = gemm_mx_select_plan<Args>(p, ~std::size_t{0}).value();
  INFO(p.str() << ": " << preferred.name << ", " << ws.value() << " bytes");
  CHECK(preferred.workspace_bytes == ws.value());
  Case call(p, 25, 16);
  auto a = call.args();
  a.workspace_bytes = ws.value();
  gx::plan_info ran;
  REQUIRE(gemm_mx(p, a, nullptr, &ran).ok());
  REQUIRE(hipDeviceSynchronize() == hipSuccess);
  CHECK(ran.name == preferred.name);
  CHECK(!ran.workspace_limited);
  CHECK(call.check(ran.plan.splits, ran.name.c_str()) == 0);
}

TEST_CASE("gemm_mx: each workspace query sizes its call, for every element-type set", "[emu][gemm]") {
  if (!device_is_gfx950()) {
    CHECK(gemm_mx_workspace_bytes<gx::args<fp4_e2m1, bf16>>(
              gx::problem{16, 128, 4096, gx::mx_format::mxfp4, gx::a_storage::mx, gx::b_layout::plain})
              .error()
              .code() == status_code::unsupported_target);
    return;
  }
  for (int m : {8, 64}) {
    check_query_sizes_call<test::gemm_mx_case<fp8_e4m3fn, bf16>>(
        {m, 128, 4096, gx::mx_format::mxfp8, gx::a_storage::mx, gx::b_layout::plain});
    check_query_sizes_call<test::gemm_mx_case<fp8_e4m3fn, fp16>>(
        {m, 128, 4096, gx::mx_format::mxfp8, gx::a_storage::mx, gx::b_layout::plain});
    check_query_sizes_call<test::gemm_mx_case<fp4_e2m1, bf16>>(
        {m, 128, 4096, gx::mx_format::mxfp4, gx::a_storage::mx, gx::b_layout::plain});
    check_query_sizes_call<test::gemm_mx_case<fp4_e2m1, fp16>>(
        {m, 128, 4096, gx::mx_format::mxfp4, gx::a_storage::mx, gx::b_layout::plain});
    check_query_sizes_call<test::gemm_mx_quantizing_a_case<bf16, bf16>>(
        {m, 128, 4096, gx::mx_format::mxfp4, gx::a_storage::bf16, gx::b_layout::plain});
    check_query_sizes_call<test::gemm_mx_quantizing_a_case<fp16, fp16>>(
        {m, 128, 4096, gx::mx_format::mxfp4, gx::a_storage::fp16, gx::b_layout::plain});
  }
}

TEST_CASE("gemm_mx: plans are gfx950's, at the format's K step and rate", "[gemm]") {
  constexpr arch::target mx = arch::target::gfx950;
  const gx::problem decode{1, 1024, 8192, gx::mx_format::mxfp4, gx::a_storage::mx, gx::b_layout::plain};
  const gx::plan pl = gx::choose_plan(decode, ~std::size_t{0});
  INFO(gx::plan_name(pl));
  CHECK(gx::facts(pl.config).wave_m == gx::facts(pl.config).block_m);  // M = 1 in one wave row
  CHECK(pl.splits > 1);
  CHECK(gx::choose_plan(decode, 0).splits == 1);
  CHECK(gx::k_steps(decode, gx::config_id::decode) == 8192 / 256);
  CHECK(gx::k_steps(gx::problem{1, 1024, 8192, gx::mx_format::mxfp8, gx::a_storage::mx, gx::b_layout::plain},
                    gx::config_id::decode) == 8192 / 128);
  // Decode sizes keep every row in one M tile of one wave row: B and its scales read once.
  for (int m : {1, 16, 17, 33, 64})
    for (gx::a_storage a : {gx::a_storage::mx, gx::a_storage::bf16}) {
      const gx::plan d =
          gx::choose_plan(gx::problem{m, 6144, 1536, gx::mx_format::mxfp4, a, gx::b_layout::plain}, ~std::size_t{0});
      INFO("M " << m << ": " << gx::plan_name(d));
      CHECK(gx::facts(d.config).block_m >= m);
      CHECK(gx::facts(d.config).wave_m == gx::facts(d.config).block_m);
    }
  // MXFP4 runs at twice MXFP8's rate: a compute-bound shape's model time halves, or nearly.
  const gx::problem big4{8192, 8192, 8192, gx::mx_format::mxfp4, gx::a_storage::mx, gx::b_layout::plain},
      big8{8192, 8192, 8192, gx::mx_format::mxfp8, gx::a_storage::mx, gx::b_layout::plain};
  const gx::plan large{gx::config_id::large, 1};
  CHECK(gx::plan_queries::model_seconds(big4, large, mx) < 0.6 * gx::plan_queries::model_seconds(big8, large, mx));
  const auto refused = gx::select_plan(decode, 0, arch::target::gfx942);
  REQUIRE(!refused);
  CHECK(refused.error().message() ==
        "gemm_mx 1x1024x8192 mxfp4: MX formats run on gfx950's scaled MFMAs; gfx942 has none");
  CHECK(!gx::workspace_bytes(decode, arch::target::host));
  STATIC_REQUIRE(gx::config_medium::of<gx::mx_format::mxfp4>::block_k == 256);
  STATIC_REQUIRE(gx::config_medium::of<gx::mx_format::mxfp8>::lds_bytes == 2 * 256 * 128);
}

namespace {
template <class Elem, class Out = bf16>
concept forms_args = requires { typename gx::args<Elem, Out>; };
template <class T>
concept forms_quantizing_args = requires { typename gx::args_quantizing_a<T, bf16>; };
}  // namespace

TEST_CASE("gemm_mx: arguments of a non-MX element type do not form", "[gemm]") {
  // gfx942's fnuz fp8 (its own bias and NaN) is not OCP MX's e4m3fn: refused at compile time, as
  // are other C types; on gfx942 the MX types themselves are refused with a status (below).
  STATIC_REQUIRE(forms_args<fp8_e4m3fn>);
  STATIC_REQUIRE(forms_args<fp4_e2m1, fp16>);
  STATIC_REQUIRE(!forms_args<fp8_e4m3fnuz>);
  STATIC_REQUIRE(!forms_args<bf8_e5m2>);
  STATIC_REQUIRE(!forms_args<fp8_e4m3fn, float>);
  STATIC_REQUIRE(forms_quantizing_args<fp16>);
  STATIC_REQUIRE(!forms_quantizing_args<float>);
  STATIC_REQUIRE(!forms_quantizing_args<fp8_e4m3fn>);
}

TEST_CASE("gemm_mx: every bad input gets its status before any launch", "[emu][gemm]") {
  const gx::problem p{64, 64, 256, gx::mx_format::mxfp8, gx::a_storage::mx, gx::b_layout::plain};
  const std::string what = "gemm_mx 64x64x256 mxfp8: ";
  test::gemm_mx_case<fp8_e4m3fn, bf16> t(p, 1);
  auto status_of = [](const gx::problem& q, const gx::args<fp8_e4m3fn, bf16>& a) {
    return gx::launch<gx::config_narrow>(q, a, 1, nullptr);
  };
  const auto good = t.args();
  if (device_is_gfx950()) {
    CHECK(status_of(p, good).ok());
    REQUIRE(hipDeviceSynchronize() == hipSuccess);
  } else {
    // gfx942 has no scaled MFMAs: refused by the launcher and by the one-call API, nothing runs.
    CHECK(status_of(p, good).message() == what + "MX formats run on gfx950's scaled MFMAs; gfx942 has none");
    CHECK(gemm_mx(p, good, nullptr).code() == status_code::unsupported_target);
    CHECK(!gemm_mx_workspace_bytes<std::remove_cvref_t<decltype(good)>>(p));
  }
  auto a = good;
  a.a_scale = nullptr;
  CHECK(status_of(p, a).message() == what + "argument a_scale is null");
  a = good, a.b = reinterpret_cast<const fp8_e4m3fn*>(reinterpret_cast<const char*>(good.b) + 8);
  CHECK(status_of(p, a).message() == what + "argument b must be 16-byte aligned (16-byte vector loads)");
  a = good, a.c = nullptr;
  CHECK(status_of(p, a).code() == status_code::null_pointer);
  CHECK(status_of(gx::problem{64, 64, 240, gx::mx_format::mxfp8, gx::a_storage::mx, gx::b_layout::plain}, good)
            .message() == "gemm_mx 64x64x240 mxfp8: K must be a multiple of 32 (the MX scale block)");
  CHECK(
      status_of(gx::problem{64, 24, 256, gx::mx_format::mxfp8, gx::a_storage::mx, gx::b_layout::plain}, good).code() ==
      status_code::bad_shape);
  CHECK(
      status_of(gx::problem{-1, 64, 256, gx::mx_format::mxfp8, gx::a_storage::mx, gx::b_layout::plain}, good).code() ==
      status_code::bad_shape);
  // M = 0 is empty: the format rule holds, no pointer is checked, nothing is launched (on gfx950;
  // gfx942 has no MX target).
  CHECK(gx::validate(gx::problem{0, 64, 256, gx::mx_format::mxfp8, gx::a_storage::mx, gx::b_layout::plain},
                     gx::args<fp8_e4m3fn, bf16>{})
            .ok());
  CHECK(gx::validate(gx::problem{0, 64, 256, gx::mx_format::mxfp4, gx::a_storage::mx, gx::b_layout::plain},
                     gx::args<fp8_e4m3fn, bf16>{})
            .code() == status_code::bad_format);
  if (device_is_gfx950())
    test::check_launches_nothing([] {
      return gemm_mx(gx::problem{0, 64, 256, gx::mx_format::mxfp8, gx::a_storage::mx, gx::b_layout::plain},
                     gx::args<fp8_e4m3fn, bf16>{}, nullptr);
    });
  CHECK(status_of(gx::problem{64, 64, 256, static_cast<gx::mx_format>(7), gx::a_storage::mx, gx::b_layout::plain}, good)
            .code() == status_code::bad_format);
  CHECK(status_of(gx::problem{1 << 20, 4096, 4096, gx::mx_format::mxfp8, gx::a_storage::mx, gx::b_layout::plain}, good)
            .code() == status_code::too_large);
  // A and B past 2 GB are legal (each tile's buffer starts at its rows); a tile's 256 rows of K
  // are not, and MXFP4's halved bytes count there.
  CHECK(gx::validate_shape(gx::problem{1 << 19, 64, 6144, gx::mx_format::mxfp8, gx::a_storage::mx, gx::b_layout::plain})
            .ok());
  CHECK(gx::validate_shape(gx::problem{16, 1 << 20, 4096, gx::mx_format::mxfp8, gx::a_storage::mx, gx::b_layout::plain})
            .ok());
  CHECK(gx::validate_shape(gx::problem{16, 64, 1 << 23, gx::mx_format::mxfp4, gx::a_storage::mx, gx::b_layout::plain})
            .ok());
  CHECK(gx::validate_shape(gx::problem{16, 64, 1 << 23, gx::mx_format::mxfp8, gx::a_storage::mx, gx::b_layout::plain})
            .message() ==
        "gemm_mx 16x64x8388608 mxfp8: 256 rows (a tile) of lda or ldb exceed 2^31 - 1 bytes (32-bit buffer offsets)");
  CHECK(status_of(gx::problem{64, 64, 256, gx::mx_format::mxfp4, gx::a_storage::mx, gx::b_layout::plain}, good)
            .message() == "gemm_mx 64x64x256 mxfp4: the arguments hold mxfp8 tensors, the problem says mxfp4");
  if (device_is_gfx950()) {
    CHECK(gx::launch<gx::config_narrow>(p, good, 99, nullptr).code() == status_code::bad_config);
    auto small = good;
    small.workspace_bytes = 64;
    CHECK(gx::launch<gx::config_narrow>(p, small, 2, nullptr).code() == status_code::workspace_too_small);
  }
}
