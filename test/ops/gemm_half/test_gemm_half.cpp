// The half-precision GEMM against the host reference, on the CPU emulator (per emulated target)
// and, in the GPU build, on the device: every shipped config on shapes derived from its tile
// (M = 1, tile - 1, tile + 1; K below one step, one step, many with a ragged first step), both
// storage orders, bf16 and fp16 in, bf16 / fp16 / fp32 out, split-K, the one-call API and its
// plan (tuned entries it cannot run included), every error status, and LDS without bank conflicts.
// Bounds: gemm_half_case::check.
#include <hip/hip_runtime.h>
#include <catch2/catch.hpp>

#include <climits>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "support/empty_problem.hpp"
#include "support/gemm_half_case.hpp"
#include "support/graph_safety.hpp"
#include "support/plan_choice_check.hpp"
#include "support/tuned_entry.hpp"
#include "wavekit/ops/gemm_half.hpp"
#include "wavekit/planning/model/gemm_work.hpp"

#if defined(WAVEKIT_EMULATOR)
#include "support/model_traffic_check.hpp"
#endif

using namespace wavekit;
namespace gh = wavekit::ops::gemm_half;

namespace {

// Runs config Cfg; on the emulator also checks that the launches move exactly the bytes the
// performance model's GEMM launches (planning::gemm_launches) say, C at Out's width.
template <class Cfg, class T, class Out>
int run_config(const gh::problem& p, int splits, std::uint32_t seed) {
  test::gemm_half_case<T, Out> t(p, seed, splits);
#if defined(WAVEKIT_EMULATOR)
  emu::reset_counters();
#endif
  const status s = gh::launch<Cfg>(p, t.args(), splits, nullptr);
  INFO(Cfg::name(splits) << " on " << p.str() << ": " << s.message());
  REQUIRE(s.ok());
  REQUIRE(hipDeviceSynchronize() == hipSuccess);
#if defined(WAVEKIT_EMULATOR)
  CHECK(emu::accumulated_counters().lds_bank_conflict_cycles == 0);
  const planning::gemm_tile tile{Cfg::block_m, Cfg::block_n, Cfg::block_k, Cfg::wave_m, Cfg::wave_n, Cfg::threads};
  test::check_model_traffic_summed(
      planning::batched_launches(
          planning::gemm_launches(p.m, p.n, p.k, tile, {2, 2, double(sizeof(Out))}, splits, nullptr, nullptr),
          p.batch.count, planning::shared_operand_bytes(p, 2, 2)),
      emu::accumulated_counters());
#endif
  return t.check(splits, Cfg::name(splits).c_str());
}

}  // namespace

TEMPLATE_LIST_TEST_CASE("gemm_half: each shipped config on shapes derived from its tile", "[emu][gemm]",
                        gh::shipped_configs) {
  using C = TestType;
  const int bm = C::block_m, bn = C::block_n, bk = C::block_k;
  // K-contiguous: any M; K below one step, one step, and many steps with a ragged first one.
  for (int m : {1, bm - 1, bm + 1})
    for (int k : {8, bk, 3 * bk + 24}) {
      const gh::problem p{m, bn + 16, k, layout::k_contiguous};
      CHECK(run_config<C, bf16, bf16>(p, 1, 100 + m + k) == 0);
    }
  // M/N-contiguous: M a multiple of 16; fp16 in, fp32 and fp16 out; split-K (uneven) on many steps.
  for (int m : {16, bm, bm + 16}) {
    CHECK(run_config<C, fp16, float>(gh::problem{m, bn, 2 * bk + 8, layout::mn_contiguous}, 1, 7 + m) == 0);
    CHECK(run_config<C, fp16, fp16>(gh::problem{m, 16, 5 * bk, layout::mn_contiguous}, 3, 9 + m) == 0);
  }
  CHECK(run_config<C, bf16, float>(gh::problem{bm - 1, bn, 5 * bk - 8, layout::k_contiguous}, 2, 3) == 0);
}

// A problem with strides and a batch (core/gemm_view.hpp).
gh::problem viewed(gh::problem p, gemm_strides strides, gemm_batch batch = {}) {
  p.strides = strides, p.batch = batch;
  return p;
}

TEST_CASE("gemm_half: row strides and batches, both orders, split-K, shared and interleaved tensors", "[emu][gemm]") {
  using C = gh::config_small;
  const int bm = C::block_m, bn = C::block_n, bk = C::block_k;
  // Padded rows in every tensor, one GEMM; M and N a tile and a part.
  const gh::problem one{bm + 1, bn + 16, 2 * bk + 8, layout::k_contiguous};
  CHECK(run_config<C, bf16, bf16>(viewed(one, {.lda = one.k + 8, .ldb = one.k + 24, .ldc = one.n + 4}), 1, 1) == 0);
  // A batch of 3 with gaps between the GEMMs' tensors; the same with split-K (partials in C's layout).
  const gemm_views v = one.views();
  const gemm_batch gaps{3, v.a_extent + 8, v.b_extent + 16, v.c_extent + 4};
  CHECK(run_config<C, bf16, bf16>(viewed(one, {}, gaps), 1, 2) == 0);
  const gh::problem wide_c = viewed(one, {.ldc = one.n + 8});
  CHECK(run_config<C, bf16, float>(viewed(wide_c, wide_c.strides, {3, v.a_extent, v.b_extent, wide_c.views().c_extent}),
                                   3, 3) == 0);
  // One B for every GEMM of the batch (weights shared: batch.b = 0).
  CHECK(run_config<C, fp16, fp16>(viewed(one, {}, {4, v.a_extent, 0, v.c_extent}), 2, 4) == 0);
  // Heads interleaved in the rows, as a projection per head over [tokens][heads][width]: A's head h
  // at column h * 192 of 576, C's at column h * 80 of 240 (what the MLA layer example runs).
  const gh::problem heads{5, 64, 128, layout::k_contiguous};
  CHECK(run_config<C, bf16, bf16>(viewed(heads, {.lda = 576, .ldc = 240}, {3, 192, 64 * 128, 80}), 1, 5) == 0);
  CHECK(run_config<C, bf16, bf16>(viewed(heads, {.lda = 576, .ldc = 240}, {3, 192, 64 * 128, 80}), 2, 6) == 0);
  // M/N-contiguous: A [K][lda], B [K][ldb], a batch of 2.
  const gh::problem mn{bm + 16, bn, 3 * bk, layout::mn_contiguous};
  const gh::problem mn_padded = viewed(mn, {.lda = mn.m + 16, .ldb = mn.n + 8});
  const gemm_views w = mn_padded.views();
  CHECK(run_config<C, bf16, bf16>(viewed(mn, mn_padded.strides, {2, w.a_extent, w.b_extent, w.c_extent}), 1, 7) == 0);
  CHECK(run_config<C, fp16, float>(viewed(mn, mn_padded.strides, {2, w.a_extent, w.b_extent, w.c_extent}), 3, 8) == 0);
}

TEST_CASE("gemm_half: the one-call API on a batch of views runs the model's plan", "[emu][gemm]") {
  const gh::problem p =
      viewed(gh::problem{5, 128, 512, layout::k_contiguous}, {.lda = 1536, .ldc = 576}, {3, 512, 128 * 512, 192});
  test::gemm_half_case<bf16, bf16> t(p, 31, 16);
  gh::plan_info ran;
  const status s = gemm_half(p, t.args(), nullptr, &ran);
  INFO(s.message());
  REQUIRE(s.ok());
  REQUIRE(hipDeviceSynchronize() == hipSuccess);
  CHECK(ran.name ==
        gh::plan_name(gh::plan_queries::model_plan(p, t.workspace_bytes, arch::current_device_arch().kind)));
  CHECK(t.check(ran.plan.splits, ran.name.c_str()) == 0);
  CHECK(gh::workspace_bytes(p, 2) == 2 * std::size_t(2 * 192 + 4 * 576 + 128) * 4);
}

TEST_CASE("gemm_half: every bad stride and batch gets its status before any launch", "[emu][gemm]") {
  const gh::problem p{64, 64, 256, layout::k_contiguous};
  test::gemm_half_case<bf16, bf16> t(p, 1);
  auto status_of = [&](gemm_strides s, gemm_batch b = {}, int splits = 1) {
    return gh::launch<gh::config_narrow>(viewed(p, s, b), t.args(), splits, nullptr);
  };
  CHECK(status_of({.lda = 248}).message() ==
        "gemm_half 64x64x256 k_contiguous lda 248: lda (248) must be 0 (packed) or at least K (256)");
  CHECK(status_of({.ldb = 260}).message() ==
        "gemm_half 64x64x256 k_contiguous ldb 260: ldb (260) must be a multiple of 8 elements (vector loads and stores "
        "stay "
        "aligned)");
  CHECK(status_of({.ldc = 48}).code() == status_code::bad_shape);
  CHECK(status_of({.ldc = 66}).code() == status_code::bad_alignment);
  CHECK(status_of({.lda = std::int64_t{1} << 31}).code() == status_code::too_large);
  CHECK(status_of({.lda = 1 << 25}).code() == status_code::too_large);  // 63 rows of 2^25 elements: 2^32 bytes
  CHECK(viewed(gh::problem{64, 64, 256, layout::mn_contiguous}, {.lda = 56}).views().lda == 56);
  CHECK(gh::launch<gh::config_narrow>(viewed(gh::problem{64, 64, 256, layout::mn_contiguous}, {.lda = 56}), t.args(), 1,
                                      nullptr)
            .message() == "gemm_half 64x64x256 mn_contiguous lda 56: lda (56) must be 0 (packed) or at least M (64)");
  CHECK(status_of({}, {0}).message() ==
        "gemm_half 64x64x256 k_contiguous batch 0 (strides a 0, b 0, c 0): batch.count must be 1 to 65535 (the launch "
        "grid's z)");
  CHECK(status_of({}, {70000, 0, 0, 4096}).code() == status_code::bad_shape);
  CHECK(status_of({}, {2, -8, 0, 4096}).message() ==
        "gemm_half 64x64x256 k_contiguous batch 2 (strides a -8, b 0, c 4096): batch.a must be 0 to 2^31 - 1 elements");
  CHECK(status_of({}, {2, 0, std::int64_t{1} << 31, 4096}).code() == status_code::too_large);
  CHECK(status_of({}, {2, 4, 0, 4096}).code() == status_code::bad_alignment);
  CHECK(status_of({}, {2, 0, 0, 4098}).code() == status_code::bad_alignment);
  // C's GEMMs may not overlap: stacked (batch.c >= 63 * 64 + 64) or interleaved (ldc >= batch.c + 64).
  CHECK(status_of({}, {2, 0, 0, 0}).code() == status_code::bad_shape);
  CHECK(status_of({}, {2, 0, 0, 4092}).message() ==
        "gemm_half 64x64x256 k_contiguous batch 2 (strides a 0, b 0, c 4092): the batch's C tensors would overlap: "
        "batch.c must be at least C's extent ((M - 1) * ldc + N = 4096), or at least N with ldc >= (batch.count - 1) "
        "* batch.c + N");
  CHECK(status_of({.ldc = 124}, {2, 0, 0, 64}).code() == status_code::bad_shape);
  CHECK(gh::validate_shape(viewed(p, {.ldc = 128}, {2, 0, 0, 64})).ok());
  // The grid's z holds splits x batch.count blocks.
  gh::problem many = viewed(p, {}, {40000, 0, 0, 4096});
  CHECK(
      gh::launch<gh::config_narrow>(many, gh::args<bf16, bf16>{t.a, t.b, t.c, t.workspace, ~std::size_t{0}}, 2, nullptr)
          .message() == "gemm_half<64x128x32, w2x2, mfma16, sk2> on " + many.str() +
                            ": 2 K splits x 40000 GEMMs of the batch exceed the launch grid's 65535 blocks in z; use "
                            "fewer splits");
  for (arch::target tg : {arch::target::gfx942, arch::target::gfx950})
    CHECK(gh::choose_plan(many, ~std::size_t{0}, tg).splits == 1);
}

TEST_CASE("gemm_half: the one-call API runs the plan it reports, workspace fallback included", "[emu][gemm]") {
  for (const gh::problem& p :
       {gh::problem{1, 256, 4096, layout::k_contiguous}, gh::problem{96, 128, 1000, layout::k_contiguous},
        gh::problem{64, 64, 512, layout::mn_contiguous}}) {
    test::gemm_half_case<bf16, bf16> t(p, 42, 16);
    gh::plan_info ran;
    status one_call;  // graph-safe: no host synchronisation, copy back or allocation inside
    CHECK(test::graph_unsafe_calls_of([&](hipStream_t stream) {
            one_call = gemm_half(p, t.args(), stream, &ran);
          }).empty());
    REQUIRE(one_call.ok());
    REQUIRE(hipDeviceSynchronize() == hipSuccess);
    CHECK(ran.name == gemm_half_select_plan<decltype(t.args())>(p, t.workspace_bytes).value().name);
    CHECK(t.check(ran.plan.splits, ran.name.c_str()) == 0);
    auto no_workspace = t.args();
    no_workspace.workspace = nullptr, no_workspace.workspace_bytes = 0;
    REQUIRE(gemm_half(p, no_workspace, nullptr, &ran).ok());
    REQUIRE(hipDeviceSynchronize() == hipSuccess);
    CHECK(ran.plan.splits == 1);
    CHECK(ran.workspace_limited == (ran.preferred_workspace_bytes > 0));
    CHECK(t.check(1, ran.name.c_str()) == 0);
  }
}

TEST_CASE("gemm_half: the one-call API asks the tuned tables with the call's element types", "[emu][gemm]") {
  // A table entry for fp16 in, fp32 out naming a plan the model does not pick; none for bf16.
  const gh::problem p{48, 128, 1024, layout::k_contiguous};
  const arch::target t = arch::current_device_arch().kind;
  const gh::plan model = gh::plan_queries::model_plan(p, ~std::size_t{0}, t);
  const gh::plan tuned{model.config == gh::config_id::decode ? gh::config_id::medium : gh::config_id::decode,
                       model.splits == 2 ? 4 : 2};
  test::load_tuned_entry(
      gh::plan_queries::tuning_key(p, t, arch::facts_for(t).compute_units, gh::tuning_dtypes<fp16, float>()),
      gh::plan_queries::tuning_value(tuned), "test_gemm_half_fp16_entry.txt");
  gh::plan_info ran;
  test::gemm_half_case<fp16, float> fp16_call(p, 5, 16);
  REQUIRE(gemm_half(p, fp16_call.args(), nullptr, &ran).ok());
  REQUIRE(hipDeviceSynchronize() == hipSuccess);
  CHECK(ran.name == gh::plan_name(tuned));
  CHECK(fp16_call.check(ran.plan.splits, ran.name.c_str()) == 0);
  test::gemm_half_case<bf16, bf16> bf16_call(p, 6, 16);
  REQUIRE(gemm_half(p, bf16_call.args(), nullptr, &ran).ok());
  REQUIRE(hipDeviceSynchronize() == hipSuccess);
  CHECK(ran.name == gh::plan_name(model));
  CHECK(bf16_call.check(ran.plan.splits, ran.name.c_str()) == 0);
  // The queries ask for the element types they are given (bf16 when none).
  CHECK(gh::select_plan(p, fp16_call.workspace_bytes, t, gh::tuning_dtypes<fp16, float>()).value().name ==
        gh::plan_name(tuned));
  CHECK(gh::select_plan(p, fp16_call.workspace_bytes, t).value().name == gh::plan_name(model));
  CHECK(gh::workspace_bytes(p, t, gh::tuning_dtypes<fp16, float>()).value() == gh::workspace_bytes(p, tuned.splits));
  // The one-call queries take the call's argument type: the fp16 -> fp32 call's tuned plan splits
  // K more than the bf16 one's, and given exactly the workspace its query says, it runs that plan.
  using fp16_args = gh::args<fp16, float>;
  CHECK(gemm_half_workspace_bytes<fp16_args>(p).value() == gh::workspace_bytes(p, tuned.splits));
  CHECK(gemm_half_workspace_bytes<gh::args<bf16, bf16>>(p).value() == gh::workspace_bytes(p, model.splits));
  auto exact = fp16_call.args();
  exact.workspace_bytes = gemm_half_workspace_bytes<fp16_args>(p).value();
  REQUIRE(gemm_half(p, exact, nullptr, &ran).ok());
  REQUIRE(hipDeviceSynchronize() == hipSuccess);
  CHECK(ran.name == gh::plan_name(tuned));
  CHECK(!ran.workspace_limited);
  CHECK(gemm_half_select_plan<fp16_args>(p, exact.workspace_bytes).value().name == ran.name);
}

// Every element-type set: the call given exactly the workspace its query says runs the plan the
// query says (the one with unlimited workspace, not a workspace-limited one), with the reference's
// result.
template <class T, class Out>
void check_query_sizes_call(const gh::problem& p) {
  using Args = gh::args<T, Out>;
  const result<std::size_t> ws = gemm_half_workspace_bytes<Args>(p);
  REQUIRE(ws.ok());
  const gh::plan_info preferred = gemm_half_select_plan<Args>(p, ~std::size_t{0}).value();
  INFO(p.str() << ", " << (gh::tuning_dtypes<T, Out>()) << ": " << preferred.name << ", " << ws.value() << " bytes");
  CHECK(preferred.workspace_bytes == ws.value());
  test::gemm_half_case<T, Out> call(p, 21, 16);
  REQUIRE(ws.value() <= call.workspace_bytes);
  auto a = call.args();
  a.workspace_bytes = ws.value();
  gh::plan_info ran;
  REQUIRE(gemm_half(p, a, nullptr, &ran).ok());
  REQUIRE(hipDeviceSynchronize() == hipSuccess);
  CHECK(ran.name == preferred.name);
  CHECK(!ran.workspace_limited);
  CHECK(call.check(ran.plan.splits, ran.name.c_str()) == 0);
}

TEST_CASE("gemm_half: each workspace query sizes its call, for every element-type set", "[emu][gemm]") {
  for (const gh::problem& p :
       {gh::problem{16, 128, 4096, layout::k_contiguous}, gh::problem{64, 64, 256, layout::mn_contiguous}}) {
    check_query_sizes_call<bf16, bf16>(p);
    check_query_sizes_call<bf16, fp16>(p);
    check_query_sizes_call<bf16, float>(p);
    check_query_sizes_call<fp16, bf16>(p);
    check_query_sizes_call<fp16, fp16>(p);
    check_query_sizes_call<fp16, float>(p);
  }
}

TEST_CASE("gemm_half: a tuned entry the call cannot run gives the model's plan and workspace and result",
          "[emu][gemm]") {
  // Splits past K's steps (the launch refuses them) and INT_MAX splits (a 17 TB workspace): the
  // workspace query answers the model's plan's, and the one-call API runs that plan within it and
  // gets the reference's result; one wavekit-tuning-unusable line each (planning/tuned_or_model.hpp).
  std::vector<std::string> lines;
  planning::set_unusable_sink([&](const std::string& line) { lines.push_back(line); });
  const arch::target t = arch::current_device_arch().kind;
  const gh::problem past_steps{32, 64, 512, layout::k_contiguous}, int_max{32, 64, 768, layout::k_contiguous};
  for (const auto& [p, splits] :
       {std::pair{past_steps, gh::k_steps(past_steps, gh::config_id::decode) + 1}, std::pair{int_max, INT_MAX}}) {
    const gh::plan model = gh::plan_queries::model_plan(p, ~std::size_t{0}, t);
    INFO(p.str() << ": decode with " << splits << " splits; the model's plan " << gh::plan_name(model));
    test::load_tuned_entry(
        gh::plan_queries::tuning_key(p, t, arch::facts_for(t).compute_units, gh::tuning_dtypes<bf16, bf16>()),
        {"decode", splits}, "test_gemm_half_unusable_" + std::to_string(p.k) + ".txt");
    const std::size_t ws = gemm_half_workspace_bytes<gh::args<bf16, bf16>>(p).value();
    REQUIRE(ws == gh::workspace_bytes(p, model.splits));
    test::gemm_half_case<bf16, bf16> call(p, 11, 16);
    REQUIRE(ws <= call.workspace_bytes);
    auto a = call.args();
    a.workspace_bytes = ws;
    gh::plan_info ran;
    const status s = gemm_half(p, a, nullptr, &ran);
    INFO(s.message());
    REQUIRE(s.ok());
    REQUIRE(hipDeviceSynchronize() == hipSuccess);
    CHECK(ran.name == gh::plan_name(model));
    CHECK(call.check(ran.plan.splits, ran.name.c_str()) == 0);
  }
  planning::set_unusable_sink(planning::miss_log::to_stderr);
  REQUIRE(lines.size() == 2);
  CHECK_THAT(lines[0], Catch::Contains(" tuned=decode,9 ") && Catch::EndsWith("splits must be in [1, K steps = 8]"));
  CHECK_THAT(lines[1],
             Catch::Contains(" tuned=decode,2147483647 ") && Catch::EndsWith("splits must be in [1, K steps = 12]"));
}

TEST_CASE("gemm_half: the plan splits K for few tiles and long K, per target, within the workspace", "[gemm]") {
  const gh::problem decode{1, 1024, 8192, layout::k_contiguous};
  for (arch::target t : {arch::target::gfx942, arch::target::gfx950}) {
    const gh::plan pl = gh::choose_plan(decode, ~std::size_t{0}, t);
    INFO(arch::to_string(t) << ": " << gh::plan_name(pl));
    CHECK(gh::facts(pl.config).block_m <= 32);  // a small M tile: the 16 or 32 rows that pad M = 1 least
    CHECK(pl.splits > 1);
    CHECK(gh::choose_plan(decode, 0, t).splits == 1);
    CHECK(gh::workspace_bytes(decode, t).value() == gh::workspace_bytes(decode, pl.splits));
  }
  // A large problem fills the device unsplit; its plan is within the model's error of the fastest
  // and no plan that close is more robust (planning/model/plan_choice.hpp), as for every shape here.
  const gh::problem big{4096, 4096, 4096, layout::k_contiguous};
  CHECK(gh::choose_plan(big, ~std::size_t{0}, arch::target::gfx942).splits == 1);
  for (arch::target t : {arch::target::gfx942, arch::target::gfx950})
    for (const gh::problem& p : {decode, big, gh::problem{128, 2112, 7168, layout::k_contiguous},
                                 gh::problem{1024, 7168, 2048, layout::mn_contiguous}}) {
      std::vector<planning::scored_plan<gh::plan>> candidates;
      for (gh::config_id id : gh::all_configs)
        for (int splits = 1; splits <= 16 && (splits == 1 || gh::k_steps(p, id) / splits >= 4); splits *= 2)
          candidates.push_back(planning::score(gh::plan{id, splits}, gh::model_time(p, {id, splits}, t),
                                               planning::gemm_padded_flops(p.m, p.n, p.k, gh::facts(id))));
      const gh::plan chosen = gh::plan_queries::model_plan(p, ~std::size_t{0}, t);
      INFO(arch::to_string(t) << " " << p.str() << ": " << gh::plan_name(chosen));
      test::check_plan_choice(candidates, chosen,
                              [](gh::plan a, gh::plan b) { return a.config == b.config && a.splits == b.splits; });
    }
  CHECK(gh::select_plan(big, 0, arch::target::host).error().message() ==
        "gemm_half 4096x4096x4096 k_contiguous: plans are for gfx942 or gfx950, not host");
}

TEST_CASE("gemm_half: every bad input gets its status before any launch", "[emu][gemm]") {
  const gh::problem p{64, 64, 256, layout::k_contiguous};
  test::gemm_half_case<bf16, bf16> t(p, 1);
  auto status_of = [](const gh::problem& q, const gh::args<bf16, bf16>& a) {
    return gh::launch<gh::config_narrow>(q, a, 1, nullptr);
  };
  const auto good = t.args();
  CHECK(status_of(p, good).ok());
  auto a = good;
  a.a = nullptr;
  CHECK(status_of(p, a).message() == "gemm_half 64x64x256 k_contiguous: argument a is null");
  a = good, a.b = nullptr;
  CHECK(status_of(p, a).code() == status_code::null_pointer);
  a = good, a.c = nullptr;
  CHECK(status_of(p, a).message() == "gemm_half 64x64x256 k_contiguous: argument c is null");
  a = good, a.b = reinterpret_cast<const bf16*>(reinterpret_cast<const char*>(good.b) + 8);
  CHECK(status_of(p, a).message() ==
        "gemm_half 64x64x256 k_contiguous: argument b must be 16-byte aligned (16-byte vector loads)");
  a = good, a.c = reinterpret_cast<bf16*>(reinterpret_cast<char*>(good.c) + 2);
  CHECK(status_of(p, a).code() == status_code::bad_alignment);
  CHECK(status_of(gh::problem{-16, 64, 256, layout::k_contiguous}, good).message() ==
        "gemm_half -16x64x256 k_contiguous: M must be >= 0 (0: nothing to do), N and K positive");
  // M = 0 is empty: no pointer is checked, nothing is launched; N's and K's rules still apply.
  test::check_launches_nothing(
      [] { return gemm_half(gh::problem{0, 64, 256, layout::k_contiguous}, gh::args<bf16, bf16>{}, nullptr); });
  test::check_launches_nothing([] {
    return gh::launch<gh::config_narrow>(gh::problem{0, 64, 256, layout::mn_contiguous}, gh::args<fp16, float>{}, 2,
                                         nullptr);
  });
  CHECK(gemm_half(gh::problem{0, 40, 256, layout::k_contiguous}, gh::args<bf16, bf16>{}, nullptr).code() ==
        status_code::bad_shape);
  CHECK(status_of(gh::problem{64, 40, 256, layout::k_contiguous}, good).message() ==
        "gemm_half 64x40x256 k_contiguous: N must be a multiple of 16");
  CHECK(status_of(gh::problem{64, 64, 252, layout::k_contiguous}, good).message() ==
        "gemm_half 64x64x252 k_contiguous: K must be a multiple of 8 (16-byte rows of K)");
  CHECK(status_of(gh::problem{40, 64, 256, layout::mn_contiguous}, good).code() == status_code::bad_alignment);
  CHECK(status_of(gh::problem{64, 64, 256, static_cast<layout>(7)}, good).code() == status_code::bad_shape);
  CHECK(status_of(gh::problem{1 << 20, 2048, 1024, layout::k_contiguous}, good).code() == status_code::too_large);
  CHECK(gh::launch<gh::config_narrow>(p, good, 9, nullptr).message() ==
        "gemm_half<64x128x32, w2x2, mfma16, sk9> on 64x64x256 k_contiguous: splits must be in [1, K steps = 8]");
  auto small = good;
  small.workspace_bytes = 64;
  CHECK(gh::launch<gh::config_narrow>(p, small, 2, nullptr).code() == status_code::workspace_too_small);
  CHECK(
      gemm_half_workspace_bytes<gh::args<bf16, bf16>>(gh::problem{64, 40, 256, layout::k_contiguous}).error().code() ==
      status_code::bad_shape);
}
