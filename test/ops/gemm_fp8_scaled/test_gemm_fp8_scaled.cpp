// The scaled fp8 GEMM against the host reference, on the CPU emulator (per emulated target: the
// K = 32 / 16 fp8 MFMAs on gfx942, the f8f6f4 ones on gfx950) and, in the GPU build, on the device:
// every shipped config on shapes derived from its tile, both storage orders, every pair of scale
// granularities, bf16 and fp16 out, split-K, the one-call API and its plan, every error status,
// LDS without bank conflicts, and the performance model's bytes against the emulator's counters.
// Bounds: gemm_fp8_scaled_case::check.
#include <hip/hip_runtime.h>
#include <catch2/catch.hpp>

#include <string>
#include <tuple>
#include <vector>

#include "support/device_fp8.hpp"
#include "support/gemm_fp8_scaled_case.hpp"
#include "support/graph_safety.hpp"
#include "wavekit/ops/gemm_fp8_scaled.hpp"
#include "wavekit/ops/gemm_fp8_scaled/model.hpp"

#if defined(WAVEKIT_EMULATOR)
#include "support/model_traffic_check.hpp"
#endif

using namespace wavekit;
namespace gs = wavekit::ops::gemm_fp8_scaled;
using gs::scale_granularity;

namespace {

// Runs config Cfg; on the emulator also checks that the launches move exactly the bytes the
// performance model says (ops/gemm_fp8_scaled/model.hpp).
template <class Cfg, class Fp8, class Out>
int run_config(const gs::problem& p, int splits, std::uint32_t seed) {
  test::gemm_fp8_scaled_case<Fp8, Out> t(p, seed, splits);
#if defined(WAVEKIT_EMULATOR)
  emu::reset_counters();
#endif
  const status s = gs::launch<Cfg>(p, t.args(), splits, nullptr);
  INFO(Cfg::name(splits) << " on " << p.str() << ": " << s.message());
  REQUIRE(s.ok());
  REQUIRE(hipDeviceSynchronize() == hipSuccess);
#if defined(WAVEKIT_EMULATOR)
  CHECK(emu::accumulated_counters().lds_bank_conflict_cycles == 0);
  test::check_model_traffic_summed(gs::batch_launches<Cfg>(p, splits, arch::current_device_arch().kind),
                                   emu::accumulated_counters());
#endif
  return t.check(splits, Cfg::name(splits).c_str(), Cfg::row_pairs);
}

// The device's K step for Cfg (gfx950 runs 128-byte steps with 16-wide MFMA tiles).
template <class Cfg>
int step_k() {
  return gs::block_k_on<Cfg>(arch::current_device_arch().kind);
}

}  // namespace

TEMPLATE_LIST_TEST_CASE("gemm_fp8_scaled: each shipped config on shapes derived from its tile", "[emu][gemm]",
                        gs::shipped_configs) {
  using C = TestType;
  test::with_device_fp8([](auto fp8_format) {
    using fp8 = decltype(fp8_format);
    const int bm = C::block_m, bn = C::block_n, bk = step_k<C>();
    using enum scale_granularity;
    for (int m : {1, bm - 1, bm + 1})
      for (int k : {16, bk, 3 * bk + 48}) {
        const gs::problem p{m, bn + 16, k, layout::k_contiguous, row, row};
        CHECK(run_config<C, fp8, bf16>(p, 1, 100 + m + k) == 0);
      }
    const int bm16 = bm < 16 ? 16 : bm;  // the mn_contiguous order takes M in multiples of 16
    for (int m : {16, bm16, bm16 + 16}) {
      CHECK(run_config<C, fp8, fp16>(gs::problem{m, bn, 2 * bk + 16, layout::mn_contiguous, tensor, tensor}, 1, m) ==
            0);
      CHECK(run_config<C, fp8, bf16>(gs::problem{m, 16, 5 * bk, layout::mn_contiguous, tensor, row}, 3, m + 1) == 0);
    }
    CHECK(run_config<C, fp8, bf16>(gs::problem{bm - 1, bn, 5 * bk - 16, layout::k_contiguous, row, tensor}, 2, 5) == 0);
  });
}

// A problem with strides and a batch (core/gemm_view.hpp).
gs::problem viewed(gs::problem p, gemm_strides strides, gemm_batch batch = {}) {
  p.strides = strides, p.batch = batch;
  return p;
}

TEST_CASE("gemm_fp8_scaled: row strides and batches, scales following their operands, split-K", "[emu][gemm]") {
  using C = gs::config_small;
  test::with_device_fp8([](auto fp8_format) {
    using fp8 = decltype(fp8_format);
    using enum scale_granularity;
    const int bm = C::block_m, bn = C::block_n, bk = step_k<C>();
    const gs::problem one{bm + 1, bn + 16, 2 * bk + 16, layout::k_contiguous, row, row};
    CHECK(run_config<C, fp8, bf16>(viewed(one, {.lda = one.k + 16, .ldb = one.k + 32, .ldc = one.n + 4}), 1, 1) == 0);
    const gemm_views v = one.views();
    // Per-row and per-tensor scales a GEMM; split-K over a batch with a wider C.
    CHECK(run_config<C, fp8, bf16>(viewed(one, {}, {3, v.a_extent + 16, v.b_extent, v.c_extent + 4}), 1, 2) == 0);
    gs::problem tensors = one;
    tensors.a_scales = tensor, tensors.b_scales = row;
    const gs::problem wide_c = viewed(tensors, {.ldc = one.n + 8});
    CHECK(run_config<C, fp8, fp16>(viewed(wide_c, wide_c.strides, {3, v.a_extent, v.b_extent, wide_c.views().c_extent}),
                                   3, 3) == 0);
    // A weight and its scales shared by the batch (batch.b = 0); heads interleaved in A's and C's rows.
    CHECK(run_config<C, fp8, bf16>(viewed(one, {}, {4, v.a_extent, 0, v.c_extent}), 2, 4) == 0);
    const gs::problem heads{5, 64, 128, layout::k_contiguous, row, tensor};
    CHECK(run_config<C, fp8, bf16>(viewed(heads, {.lda = 576, .ldc = 240}, {3, 192, 64 * 128, 80}), 1, 5) == 0);
    // M/N-contiguous with padded rows.
    const gs::problem mn{bm < 16 ? 32 : bm + 16, bn, 3 * bk, layout::mn_contiguous, row, row};
    const gs::problem mn_padded = viewed(mn, {.lda = mn.m + 16, .ldb = mn.n + 16});
    const gemm_views w = mn_padded.views();
    CHECK(run_config<C, fp8, bf16>(viewed(mn, mn_padded.strides, {2, w.a_extent, w.b_extent, w.c_extent}), 2, 6) == 0);
  });
}

TEST_CASE("gemm_fp8_scaled: every bad stride and batch gets its status before any launch", "[emu][gemm]") {
  test::with_device_fp8([](auto fp8_format) {
    using fp8 = decltype(fp8_format);
    using enum scale_granularity;
    const gs::problem p{64, 64, 256, layout::k_contiguous, row, row};
    test::gemm_fp8_scaled_case<fp8, bf16> t(p, 1);
    auto status_of = [&](gemm_strides s, gemm_batch b = {}) {
      return gs::launch<gs::config_narrow>(viewed(p, s, b), t.args(), 1, nullptr);
    };
    CHECK(status_of({.lda = 264}).message() ==
          "gemm_fp8_scaled 64x64x256 k_contiguous lda 264, scales row/row: lda (264) must be a multiple of 16 elements "
          "(vector loads and stores stay aligned)");
    CHECK(status_of({.ldb = 128}).code() == status_code::bad_shape);
    CHECK(status_of({.ldc = 62}).code() == status_code::bad_shape);
    CHECK(status_of({}, {2, 8, 0, 4096}).code() == status_code::bad_alignment);
    CHECK(status_of({}, {2, 0, 0, 2048}).code() == status_code::bad_shape);  // C's GEMMs overlap
  });
}

TEST_CASE("gemm_fp8_scaled: the one-call API runs the plan it reports, workspace fallback included", "[emu][gemm]") {
  test::with_device_fp8([](auto fp8_format) {
    using fp8 = decltype(fp8_format);
    using enum scale_granularity;
    for (const gs::problem& p : {gs::problem{1, 256, 4096, layout::k_contiguous, row, row},
                                 gs::problem{96, 128, 1024, layout::k_contiguous, tensor, row},
                                 gs::problem{64, 64, 512, layout::mn_contiguous, row, tensor}}) {
      test::gemm_fp8_scaled_case<fp8, bf16> t(p, 42, 16);
      gs::plan_info ran;
      status one_call;  // graph-safe: no host synchronisation, copy back or allocation inside
      CHECK(test::graph_unsafe_calls_of([&](hipStream_t stream) {
              one_call = gemm_fp8_scaled(p, t.args(), stream, &ran);
            }).empty());
      REQUIRE(one_call.ok());
      REQUIRE(hipDeviceSynchronize() == hipSuccess);
      CHECK(ran.name == gemm_fp8_scaled_select_plan<decltype(t.args())>(p, t.workspace_bytes).value().name);
      CHECK(t.check(ran.plan.splits, ran.name.c_str(), ran.plan.config == gs::config_id::pairs) == 0);
      auto no_workspace = t.args();
      no_workspace.workspace = nullptr, no_workspace.workspace_bytes = 0;
      REQUIRE(gemm_fp8_scaled(p, no_workspace, nullptr, &ran).ok());
      REQUIRE(hipDeviceSynchronize() == hipSuccess);
      CHECK(ran.plan.splits == 1);
      CHECK(t.check(1, ran.name.c_str(), ran.plan.config == gs::config_id::pairs) == 0);
    }
  });
}

// Each element-type set (the device's fp8, C bf16 or fp16): the call given exactly the workspace
// its query says runs the plan the query says with unlimited workspace; the other fp8 format is
// the call's status.
template <class Fp8, class Out>
void check_query_sizes_call(const gs::problem& p) {
  using Args = gs::args<Fp8, Out>;
  const result<std::size_t> ws = gemm_fp8_scaled_workspace_bytes<Args>(p);
  REQUIRE(ws.ok());
  const gs::plan_info preferred = gemm_fp8_scaled_select_plan<Args>(p, ~std::size_t{0}).value();
  INFO(p.str() << ": " << preferred.name << ", " << ws.value() << " bytes");
  CHECK(preferred.workspace_bytes == ws.value());
  test::gemm_fp8_scaled_case<Fp8, Out> call(p, 23, 16);
  REQUIRE(ws.value() <= call.workspace_bytes);
  auto a = call.args();
  a.workspace_bytes = ws.value();
  gs::plan_info ran;
  REQUIRE(gemm_fp8_scaled(p, a, nullptr, &ran).ok());
  REQUIRE(hipDeviceSynchronize() == hipSuccess);
  CHECK(ran.name == preferred.name);
  CHECK(!ran.workspace_limited);
  CHECK(call.check(ran.plan.splits, ran.name.c_str(), ran.plan.config == gs::config_id::pairs) == 0);
  using other = gs::args<test::other_fp8_t<Fp8>, Out>;
  CHECK(gemm_fp8_scaled_workspace_bytes<other>(p).error().code() == status_code::bad_format);
  CHECK(gemm_fp8_scaled_select_plan<other>(p, ws.value()).error().code() == status_code::bad_format);
}

TEST_CASE("gemm_fp8_scaled: each workspace query sizes its call, for every element-type set", "[emu][gemm]") {
  test::with_device_fp8([](auto fp8_format) {
    using fp8 = decltype(fp8_format);
    using enum scale_granularity;
    for (const gs::problem& p : {gs::problem{8, 128, 4096, layout::k_contiguous, row, tensor},
                                 gs::problem{64, 64, 512, layout::mn_contiguous, tensor, row}}) {
      check_query_sizes_call<fp8, bf16>(p);
      check_query_sizes_call<fp8, fp16>(p);
    }
  });
}

TEST_CASE("gemm_fp8_scaled: the plan uses each target's K step and fp8 rate", "[gemm]") {
  using enum scale_granularity;
  const gs::problem decode{1, 1024, 8192, layout::k_contiguous, row, row};
  for (arch::target t : {arch::target::gfx942, arch::target::gfx950}) {
    const gs::plan pl = gs::choose_plan(decode, ~std::size_t{0}, t);
    INFO(arch::to_string(t) << ": " << gs::plan_name(pl));
    // gfx942: the sparse MFMA's row pairs; gfx950: its dense 16-row f8f6f4 tiles.
    CHECK(pl.config == (t == arch::target::gfx942 ? gs::config_id::pairs : gs::config_id::decode));
    CHECK(pl.splits > 1);
    CHECK(gs::choose_plan(decode, 0, t).splits == 1);
  }
  CHECK(gs::k_steps(decode, gs::config_id::decode, arch::target::gfx942) == 8192 / 64);
  CHECK(gs::k_steps(decode, gs::config_id::decode, arch::target::gfx950) == 8192 / 128);
  CHECK(gs::k_steps(decode, gs::config_id::large, arch::target::gfx950) == 8192 / 64);  // 32x32x64: 64-byte steps
  STATIC_REQUIRE(gs::config_medium::on<arch::target::gfx950>::lds_bytes == 2 * 256 * 128);
}

TEST_CASE("gemm_fp8_scaled: every bad input gets its status before any launch", "[emu][gemm]") {
  test::with_device_fp8([](auto fp8_format) {
    using fp8 = decltype(fp8_format);
    using enum scale_granularity;
    const gs::problem p{64, 64, 256, layout::k_contiguous, row, row};
    const std::string what = "gemm_fp8_scaled 64x64x256 k_contiguous, scales row/row: ";
    test::gemm_fp8_scaled_case<fp8, bf16> t(p, 1);
    auto status_of = [](const gs::problem& q, const gs::args<fp8, bf16>& a) {
      return gs::launch<gs::config_narrow>(q, a, 1, nullptr);
    };
    const auto good = t.args();
    CHECK(status_of(p, good).ok());
    auto a = good;
    a.a_scale = nullptr;
    CHECK(status_of(p, a).message() == what + "argument a_scale is null");
    a = good, a.b_scale = reinterpret_cast<const float*>(reinterpret_cast<const char*>(good.b_scale) + 2);
    CHECK(status_of(p, a).message() == what + "argument b_scale must be 4-byte aligned (fp32)");
    a = good, a.a = reinterpret_cast<const fp8*>(reinterpret_cast<const char*>(good.a) + 8);
    CHECK(status_of(p, a).code() == status_code::bad_alignment);
    a = good, a.c = nullptr;
    CHECK(status_of(p, a).code() == status_code::null_pointer);
    CHECK(status_of(gs::problem{64, 64, 200, layout::k_contiguous, row, row}, good).message() ==
          "gemm_fp8_scaled 64x64x200 k_contiguous, scales row/row: K must be a multiple of 16 (16-byte rows "
          "of K)");
    CHECK(status_of(gs::problem{64, 24, 256, layout::k_contiguous, row, row}, good).code() == status_code::bad_shape);
    CHECK(status_of(gs::problem{24, 64, 256, layout::mn_contiguous, row, row}, good).code() ==
          status_code::bad_alignment);
    CHECK(status_of(gs::problem{64, 64, 256, layout::k_contiguous, static_cast<scale_granularity>(5), row}, good)
              .code() == status_code::bad_format);
    // A kind of the shared enum this op does not implement is refused by name.
    CHECK(status_of(gs::problem{64, 64, 256, layout::k_contiguous, row, group_1x128}, good).message() ==
          "gemm_fp8_scaled 64x64x256 k_contiguous, scales row/group_1x128: a_scales and b_scales must be "
          "scale_granularity::tensor or row");
    CHECK(status_of(gs::problem{1 << 20, 4096, 4096, layout::k_contiguous, row, row}, good).code() ==
          status_code::too_large);
    CHECK(gs::launch<gs::config_narrow>(p, good, 99, nullptr).code() == status_code::bad_config);
    auto small = good;
    small.workspace_bytes = 64;
    CHECK(gs::launch<gs::config_narrow>(p, small, 2, nullptr).code() == status_code::workspace_too_small);
    // The device's format only: the other fp8 type is refused by the one-call API.
    using other = test::other_fp8_t<fp8>;
    const gs::args<other, bf16> wrong{reinterpret_cast<const other*>(good.a),
                                      reinterpret_cast<const other*>(good.b),
                                      good.a_scale,
                                      good.b_scale,
                                      good.c,
                                      good.workspace,
                                      good.workspace_bytes};
    const status s = gemm_fp8_scaled(p, wrong, nullptr);
    CHECK(s.code() == status_code::bad_format);
    CHECK(s.message().find("gemm_fp8_scaled: ") == 0);
  });
}
