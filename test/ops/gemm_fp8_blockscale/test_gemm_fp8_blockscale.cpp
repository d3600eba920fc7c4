// The block-scaled fp8 GEMM against the host reference, on the CPU emulator (per emulated target)
// and, in the GPU build, on the device: the amd-fp8-mm test shapes through the public API, odd
// shapes, every shipped configuration in both storage orders, split-K (even and uneven,
// bit-identical run to run), every error status, LDS without bank conflicts (emulator counters),
// the performance model's bytes against the emulator's counters (the API's runs and every
// explicit config's), and a seeded randomized sweep. Tolerances: host::blockscale_error_bound (computed
// from K and the splits) and the reference problem's rtol 2e-2 / atol 1e-3, both per element.
#include <hip/hip_runtime.h>
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <tuple>
#include <type_traits>
#include <vector>

#include "support/blockscale_case.hpp"
#include "support/device_fp8.hpp"
#include "support/device_upload.hpp"
#include "support/empty_problem.hpp"
#include "support/gemm_view_storage.hpp"
#include "support/graph_safety.hpp"
#include "support/plan_choice_check.hpp"
#include "wavekit/ops/gemm_fp8_blockscale.hpp"
#include "wavekit/ops/gemm_fp8_blockscale/model.hpp"

#if defined(WAVEKIT_EMULATOR)
#include "support/model_traffic_check.hpp"
#endif

using namespace wavekit;
namespace gb = wavekit::ops::gemm_fp8_blockscale;

namespace {

template <class Fp8>
int run_api(const gb::problem& p, std::uint32_t seed) {
  test::blockscale_case<Fp8> t(p, seed);
  gb::plan_info ran;
#if defined(WAVEKIT_EMULATOR)
  emu::reset_counters();
#endif
  const status s = gemm_fp8_blockscale(p, t.args(), nullptr, &ran);
  INFO(p.str() << ": " << s.message());
  REQUIRE(s.ok());
  CHECK(ran.name == gemm_fp8_blockscale_select_plan<gb::args<Fp8>>(p, t.workspace_bytes).value().name);
#if defined(WAVEKIT_EMULATOR)
  REQUIRE(hipDeviceSynchronize() == hipSuccess);
  // The plan's launches move the bytes the model the plan was chosen with says.
  test::check_model_traffic_summed(gb::model_launches(p, ran.plan, arch::current_device_arch().kind),
                                   emu::accumulated_counters());
#endif
  return t.check(t.reference(), ran.plan.splits, ran.name.c_str());
}

// Runs config Cfg; on the emulator also checks that the launches move exactly the bytes the
// performance model says (ops/gemm_fp8_blockscale/model.hpp: workgroups, A, B and their scales
// loaded and once, C or the partials written, the split-K reduce).
template <class Cfg, class Fp8>
int run_config(const gb::problem& p, int splits, std::uint32_t seed) {
  test::blockscale_case<Fp8> t(p, seed, splits);
#if defined(WAVEKIT_EMULATOR)
  emu::reset_counters();
#endif
  const status s = gb::launch<Cfg>(p, t.args(), splits, nullptr);
  INFO(Cfg::name(splits) << " on " << p.str() << ": " << s.message());
  REQUIRE(s.ok());
#if defined(WAVEKIT_EMULATOR)
  REQUIRE(hipDeviceSynchronize() == hipSuccess);
  test::check_model_traffic_summed(gb::config_launches<Cfg>(p, splits, arch::current_device_arch().kind),
                                   emu::accumulated_counters());
#endif
  return t.check(t.reference(), splits, Cfg::name().c_str());
}

}  // namespace

// A batch of views (core/gemm_view.hpp) against the same GEMMs run one by one on packed copies,
// bit for bit: each operand's scales follow it (one set a GEMM, one for a shared operand).
template <class Fp8>
void check_batch_matches_singles(layout order, gemm_strides strides, gemm_batch batch, int splits) {
  constexpr int m = 32, n = 144, k = 256;  // N past a 128-column scale block
  gb::problem p{m, n, k, order};
  p.strides = strides, p.batch = batch;
  const gemm_views v = p.views();
  std::mt19937 rng(91);
  std::normal_distribution<float> normal(0.0f, 2.0f);
  std::uniform_real_distribution<float> scale(0.01f, 0.1f);
  auto fp8s = [&](std::size_t count) {
    std::vector<Fp8> h(count);
    for (Fp8& x : h) x = saturate_cast<Fp8>(normal(rng));
    return h;
  };
  auto floats = [&](std::size_t count) {
    std::vector<float> h(count);
    for (float& x : h) x = scale(rng);
    return h;
  };
  const int gemms = batch.count, a_scales = m * p.k_groups(), b_scales = p.n_groups() * p.k_groups();
  const std::vector<Fp8> ha = fp8s(std::size_t((gemms - 1) * batch.a + v.a_extent)),
                         hb = fp8s(std::size_t((gemms - 1) * batch.b + v.b_extent));
  const std::vector<float> has = floats(std::size_t(batch.a ? gemms : 1) * a_scales),
                           hbs = floats(std::size_t(batch.b ? gemms : 1) * b_scales);
  Fp8 *a = test::upload(ha), *b = test::upload(hb);
  float *a_scale = test::upload(has), *b_scale = test::upload(hbs);
  const std::size_t c_count = std::size_t(v.c_batch_extent(batch)), ws = std::size_t(splits) * c_count * 4;
  bf16 *c = nullptr, *c_one = nullptr;
  void* workspace = nullptr;
  hipMalloc(&c, c_count * 2), hipMalloc(&c_one, std::size_t(m) * n * 2), hipMalloc(&workspace, ws);
  hipMemset(c, 0xff, c_count * 2);
  const status s =
      gb::launch<gb::config_small>(p, gb::args<Fp8>{a, b, a_scale, b_scale, c, workspace, ws}, splits, nullptr);
  INFO(p.str() << ", " << splits << " splits: " << s.message());
  REQUIRE(s.ok());
  std::vector<bf16> got(c_count), one(std::size_t(m) * n);
  hipMemcpy(got.data(), c, c_count * 2, hipMemcpyDeviceToHost);
  for (int g = 0; g < gemms; ++g) {
    const std::vector<Fp8> a_g = test::packed_operand_of(p, ha, m, v.lda, batch.a, g),
                           b_g = test::packed_operand_of(p, hb, n, v.ldb, batch.b, g);
    Fp8 *d_a = test::upload(a_g), *d_b = test::upload(b_g);
    const gb::args<Fp8> single{
        d_a, d_b, a_scale + (batch.a ? g * a_scales : 0), b_scale + (batch.b ? g * b_scales : 0), c_one, workspace, ws};
    REQUIRE(gb::launch<gb::config_small>(gb::problem{m, n, k, order}, single, splits, nullptr).ok());
    hipMemcpy(one.data(), c_one, one.size() * 2, hipMemcpyDeviceToHost);
    hipFree(d_a), hipFree(d_b);
    INFO("GEMM " << g);
    CHECK(test::outputs_differing(p, got, one, g) == 0);
  }
  CHECK(test::written_outside_views(p, got) == 0);
  hipFree(a), hipFree(b), hipFree(a_scale), hipFree(b_scale), hipFree(c), hipFree(c_one), hipFree(workspace);
}

TEST_CASE("blockscale GEMM: a batch of views gives each GEMM's result bit for bit, scales following", "[emu][gemm]") {
  test::with_device_fp8([](auto fp8_format) {
    using fp8 = decltype(fp8_format);
    // Three GEMMs interleaved in A's and C's rows; B stacked, then shared by all.
    const gemm_strides heads{.lda = 3 * 256, .ldc = 3 * 160};
    check_batch_matches_singles<fp8>(layout::k_contiguous, heads, {3, 256, 144 * 256, 160}, 1);
    check_batch_matches_singles<fp8>(layout::k_contiguous, heads, {3, 256, 0, 160}, 2);
    // M/N-contiguous: padded rows, GEMMs stacked with gaps.
    check_batch_matches_singles<fp8>(layout::mn_contiguous, {.lda = 48, .ldb = 160, .ldc = 148},
                                     {2, 256 * 48 + 16, 256 * 160, 32 * 148 + 4}, 2);
  });
}

TEST_CASE("blockscale GEMM: the amd-fp8-mm test shapes (reference storage order)", "[emu][gemm]") {
  test::with_device_fp8([&](auto fp8_format) {
    using fp8 = decltype(fp8_format);
    const int shapes[][3] = {{64, 64, 128},    {64, 1536, 7168}, {64, 3072, 1536}, {64, 576, 7168},
                             {96, 7168, 256},  {96, 7168, 2048}, {96, 4608, 7168}, {128, 7168, 2304},
                             {128, 512, 7168}, {512, 4096, 512}, {512, 1536, 7168}};
    std::uint32_t seed = 8135;
    for (const auto& s : shapes) CHECK(run_api<fp8>({s[0], s[1], s[2], layout::mn_contiguous}, seed++) == 0);
  });
}

TEST_CASE("blockscale GEMM: odd shapes in both orders", "[emu][gemm]") {
  test::with_device_fp8([&](auto fp8_format) {
    using fp8 = decltype(fp8_format);
    CHECK(run_api<fp8>({1, 576, 128, layout::k_contiguous}, 1) == 0);    // M = 1, K = one block
    CHECK(run_api<fp8>({33, 144, 256, layout::k_contiguous}, 2) == 0);   // M = 33, N not a multiple of 128
    CHECK(run_api<fp8>({255, 16, 384, layout::k_contiguous}, 3) == 0);   // tile - 1, the narrowest N
    CHECK(run_api<fp8>({257, 272, 128, layout::k_contiguous}, 4) == 0);  // tile + 1
    CHECK(run_api<fp8>({16, 576, 128, layout::mn_contiguous}, 5) == 0);
    CHECK(run_api<fp8>({48, 400, 640, layout::mn_contiguous}, 6) == 0);
    CHECK(run_api<fp8>({272, 528, 256, layout::mn_contiguous}, 7) == 0);
  });
}

// One test case per shipped configuration (the list in ops/gemm_fp8_blockscale/configs.hpp),
// on shapes derived from its tile: M = 1 (16 in the mn_contiguous order, whose M is a multiple
// of 16), the tile's M and N minus and plus one step (1 row, 16 columns; 16 rows in the
// mn_contiguous order), K = one scale block and five, split-K off, even and uneven.
TEMPLATE_LIST_TEST_CASE("blockscale GEMM: each shipped config on shapes derived from its tile", "[emu][gemm]",
                        gb::shipped_configs) {
  using C = TestType;
  INFO(C::name());
  test::with_device_fp8([&](auto fp8_format) {
    using fp8 = decltype(fp8_format);
    for (layout order : {layout::k_contiguous, layout::mn_contiguous}) {
      const int step_m = order == layout::mn_contiguous ? 16 : 1;
      const int bm = C::block_m, bn = C::block_n;
      const int shapes[][3] = {{step_m, 16, 128},
                               {bm - step_m > 0 ? bm - step_m : step_m, bn > 16 ? bn - 16 : 16, 640},
                               {bm + step_m, bn + 16, 128},
                               {bm + step_m, 16, 640}};
      std::uint32_t seed = 50;
      for (const auto& s : shapes) {
        const gb::problem p{s[0], s[1], s[2], order};
        for (int splits : {1, 2, 3})  // 3 over 5 scale blocks: uneven (2, 2, 1)
          if (splits <= p.k_groups()) CHECK(run_config<C, fp8>(p, splits, seed++) == 0);
      }
    }
  });
}

// Configurations no shipped one covers: 128-K steps (one step a scale block, two row-scale
// buffers, 128-byte LDS rows), one LDS stage (a second barrier per K step), alone and together,
// and a block wider than B's 128-column scale blocks (each wave applies its own B scale).
using custom_configs = std::tuple<gb::config<64, 128, 128, 1, 2, gb::mfma_shape::m16n16k32>,
                                  gb::config<64, 256, 64, 1, 4, gb::mfma_shape::m16n16k32>,
                                  gb::config<32, 64, 128, 1, 2, gb::mfma_shape::m32n32k16>,
                                  gb::config<64, 128, 64, 2, 2, gb::mfma_shape::m16n16k32, 1>,
                                  gb::config<32, 64, 128, 1, 2, gb::mfma_shape::m16n16k32, 1>>;

TEST_CASE("blockscale GEMM: custom configs (128-K steps, one stage, wide), both orders, split-K on and off",
          "[emu][gemm]") {
  test::with_device_fp8([&](auto fp8_format) {
    using fp8 = decltype(fp8_format);
    for (layout order : {layout::k_contiguous, layout::mn_contiguous}) {
      const gb::problem p{80, 160, 640, order};
      auto run_splits = [&](auto cfg) {
        // 4 over 5 scale blocks: 2, 2, 1 (three splits run)
        for (int splits : {1, 2, 3, 4}) CHECK(run_config<decltype(cfg), fp8>(p, splits, 30 + splits) == 0);
      };
      std::apply([&](auto... cfg) { (run_splits(cfg), ...); }, custom_configs{});
      // N = 96 under the 256-wide block: its last two waves' columns all lie past N (B scale 0).
      using wide = std::tuple_element_t<1, custom_configs>;
      CHECK(run_config<wide, fp8>({48, 96, 384, order}, 1, 37) == 0);
    }
  });
}

TEST_CASE("blockscale GEMM: a config's own SplitK drives an explicit launch and its name", "[emu][gemm]") {
  using sk3 = gb::config<64, 128, 64, 2, 2, gb::mfma_shape::m16n16k32, 2, 3>;
  STATIC_REQUIRE(std::is_same_v<sk3::kernel_config, gb::config_narrow>);  // one kernel for both
  CHECK(sk3::name() == "gemm_fp8_bs<64x128x64, w2x2, mfma16x16x32, sk3>");
  CHECK(gb::config_narrow::name() == "gemm_fp8_bs<64x128x64, w2x2, mfma16x16x32>");
  CHECK(gb::config<32, 64, 64, 1, 2, gb::mfma_shape::m16n16k32, 1>::name(2) ==
        "gemm_fp8_bs<32x64x64, w1x2, mfma16x16x32, 1 stage, sk2>");
  test::with_device_fp8([&](auto fp8_format) {
    using fp8 = decltype(fp8_format);
    const gb::problem p{80, 160, 640, layout::mn_contiguous};
    test::blockscale_case<fp8> t(p, 41, 3);
    REQUIRE(gb::launch<sk3>(p, t.args(), nullptr).ok());
    std::vector<bf16> own(std::size_t(p.m) * p.n), explicit_splits(own.size());
    hipMemcpy(own.data(), t.c, own.size() * sizeof(bf16), hipMemcpyDeviceToHost);
    CHECK(t.check(t.reference(), 3, "sk3") == 0);
    REQUIRE(gb::launch<gb::config_narrow>(p, t.args(), 3, nullptr).ok());
    hipMemcpy(explicit_splits.data(), t.c, own.size() * sizeof(bf16), hipMemcpyDeviceToHost);
    CHECK(std::memcmp(own.data(), explicit_splits.data(), own.size() * sizeof(bf16)) == 0);
    // Without the workspace its splits need, the launch is refused with the config's name.
    auto no_workspace = t.args();
    no_workspace.workspace = nullptr;
    const status s = gb::launch<sk3>(p, no_workspace, nullptr);
    CHECK(s.code() == status_code::null_pointer);
    CHECK_THAT(s.message(), Catch::Contains("sk3") && Catch::Contains("argument workspace is null"));
    // Given but short of what they need: the size rule, with both sizes.
    auto short_workspace = t.args();
    short_workspace.workspace_bytes = 64;
    const status s_short = gb::launch<sk3>(p, short_workspace, nullptr);
    CHECK(s_short.code() == status_code::workspace_too_small);
    CHECK_THAT(s_short.message(), Catch::Contains("(have 64)"));
    // Misaligned: the alignment rule, not a null pointer.
    auto misaligned = t.args();
    misaligned.workspace = static_cast<char*>(misaligned.workspace) + 4;
    CHECK(gb::launch<sk3>(p, misaligned, nullptr).code() == status_code::bad_alignment);
  });
}

TEST_CASE("blockscale GEMM: split-K results are identical run to run", "[emu][gemm]") {
  test::with_device_fp8([&](auto fp8_format) {
    using fp8 = decltype(fp8_format);
    const gb::problem p{96, 256, 1024, layout::mn_contiguous};
    test::blockscale_case<fp8> t(p, 21, 4);
    std::vector<bf16> first(std::size_t(p.m) * p.n), second(first.size());
    REQUIRE(gb::launch<gb::config_medium>(p, t.args(), 4, nullptr).ok());
    hipMemcpy(first.data(), t.c, first.size() * sizeof(bf16), hipMemcpyDeviceToHost);
    hipMemset(t.c, 0, first.size() * sizeof(bf16));
    REQUIRE(gb::launch<gb::config_medium>(p, t.args(), 4, nullptr).ok());
    hipMemcpy(second.data(), t.c, second.size() * sizeof(bf16), hipMemcpyDeviceToHost);
    CHECK(std::memcmp(first.data(), second.data(), first.size() * sizeof(bf16)) == 0);
    CHECK(t.check(t.reference(), 4, "sk4") == 0);
  });
}

TEST_CASE("blockscale GEMM: without workspace the plan runs without split-K", "[emu][gemm]") {
  const gb::problem p{1024, 576, 7168, layout::mn_contiguous};  // the table splits K
  constexpr arch::target gfx942 = arch::target::gfx942;         // the table's target
  const int splits = gb::choose_plan(p, ~std::size_t{0}, gfx942).splits;
  CHECK(splits > 1);
  CHECK(gb::choose_plan(p, 0, gfx942).splits == 1);
  const std::size_t wanted = std::size_t(splits) * 1024 * 576 * 4;
  CHECK(gb::workspace_bytes(p, gfx942).value() == wanted);
  // The plan query says when the workspace changed the plan, and what the preferred one needs.
  const gb::plan_info full = gb::select_plan(p, wanted, gfx942).value();
  CHECK(!full.workspace_limited);
  CHECK(full.plan.splits == splits);
  CHECK(full.workspace_bytes == wanted);
  const gb::plan_info none = gb::select_plan(p, 0, gfx942).value();
  CHECK(none.workspace_limited);
  CHECK(none.plan.splits == 1);
  CHECK(none.workspace_bytes == 0);
  CHECK(none.preferred_workspace_bytes == wanted);
  const gb::plan_info half = gb::select_plan(p, wanted / 2, gfx942).value();
  CHECK(half.workspace_limited);
  CHECK(half.plan.splits < splits);
  CHECK(half.workspace_bytes <= wanted / 2);
}

TEST_CASE("blockscale GEMM: the call reports the plan that ran, workspace fallback included", "[emu][gemm]") {
  test::with_device_fp8([&](auto fp8_format) {
    using fp8 = decltype(fp8_format);
    // 16 x 128 x 8192: the model splits K on both targets (64 scale blocks, one column of tiles;
    // at gfx950's fp8 rate 2048 of K no longer pays for a split).
    const gb::problem p{16, 128, 8192, layout::k_contiguous};
    const gb::plan_info preferred = gemm_fp8_blockscale_select_plan<gb::args<fp8>>(p, ~std::size_t{0}).value();
    REQUIRE(preferred.plan.splits > 1);
    test::blockscale_case<fp8> t(p, 77, preferred.plan.splits);
    gb::plan_info ran;
    status one_call;  // graph-safe: no host synchronisation, copy back or allocation inside
    CHECK(test::graph_unsafe_calls_of([&](hipStream_t stream) {
            one_call = gemm_fp8_blockscale(p, t.args(), stream, &ran);
          }).empty());
    REQUIRE(one_call.ok());
    CHECK(!ran.workspace_limited);
    CHECK(ran.name == preferred.name);
    CHECK(t.check(t.reference(), ran.plan.splits, "full workspace") == 0);
    // The workspace query sizes the call exactly (its one element-type set), and the other fp8
    // format is the call's status.
    const std::size_t ws = gemm_fp8_blockscale_workspace_bytes<gb::args<fp8>>(p).value();
    CHECK(ws == preferred.workspace_bytes);
    auto exact = t.args();
    exact.workspace_bytes = ws;
    REQUIRE(gemm_fp8_blockscale(p, exact, nullptr, &ran).ok());
    CHECK(!ran.workspace_limited);
    CHECK(ran.name == preferred.name);
    using other = gb::args<test::other_fp8_t<fp8>>;
    CHECK(gemm_fp8_blockscale_workspace_bytes<other>(p).error().code() == status_code::bad_format);
    CHECK(gemm_fp8_blockscale_select_plan<other>(p, ws).error().code() == status_code::bad_format);
    auto small = t.args();
    small.workspace_bytes = preferred.workspace_bytes - 1;  // one byte short: fewer splits
    REQUIRE(gemm_fp8_blockscale(p, small, nullptr, &ran).ok());
    INFO(ran.name);
    CHECK(ran.workspace_limited);
    CHECK(ran.plan.splits < preferred.plan.splits);
    CHECK(ran.workspace_bytes <= small.workspace_bytes);
    CHECK(t.check(t.reference(), ran.plan.splits, "short workspace") == 0);
  });
}

TEST_CASE("blockscale GEMM: queries on an illegal problem return the call's status", "[emu][gemm]") {
  const struct {
    gb::problem p;
    status_code code;
    const char* text;
  } cases[] = {{{64, 64, 200, layout::k_contiguous}, status_code::bad_shape, "K must be a multiple of 128"},
               {{64, 72, 256, layout::k_contiguous}, status_code::bad_shape, "N must be a multiple of 16"},
               {{-1, 64, 256, layout::k_contiguous}, status_code::bad_shape, "M must be >= 0"},
               {{40, 64, 256, layout::mn_contiguous}, status_code::bad_alignment, "M must be a multiple of 16"},
               {{64, 64, 256, static_cast<layout>(7)}, status_code::bad_shape, "order must be"},
               {{65536, 64, 65536, layout::k_contiguous}, status_code::too_large, "32-bit buffer offsets"}};
  test::with_device_fp8([&](auto fp8_format) {
    using device_args = gb::args<decltype(fp8_format)>;
    for (const auto& c : cases) {
      const result<std::size_t> ws = gemm_fp8_blockscale_workspace_bytes<device_args>(c.p);
      const result<gb::plan_info> plan = gemm_fp8_blockscale_select_plan<device_args>(c.p, 1 << 20);
      INFO(ws.error().message());
      CHECK(!ws);
      CHECK(!plan);
      CHECK(ws.error().code() == c.code);
      CHECK(plan.error().code() == c.code);
      CHECK_THAT(ws.error().message(), Catch::Contains(c.text));
      CHECK(plan.error().message() == ws.error().message());
    }
  });
  // Plans are for gfx942 or gfx950.
  const gb::problem legal{64, 64, 256, layout::k_contiguous};
  const result<gb::plan_info> host_plan = gb::select_plan(legal, 0, arch::target::host);
  CHECK(host_plan.error().code() == status_code::unsupported_target);
  CHECK_THAT(host_plan.error().message(), Catch::Contains("plans are for gfx942 or gfx950, not host"));
  CHECK(!gb::workspace_bytes(legal, arch::target::host));
}

TEST_CASE("blockscale dispatch: the model plans with the target's own device facts", "[gemm]") {
  // M = 1 against 131072 x 1024 reads 134 MB for 0.27 GFLOP: HBM bounds it on both targets, so
  // the MI355X (8.0 TB/s) is modelled faster than the MI300X (5.3 TB/s) by the ratio of their
  // bandwidths in the DRAM term, which bounds the main loop.
  const gb::problem p{1, 131072, 1024, layout::k_contiguous};
  const gb::plan plan{gb::config_id::decode, 1};
  const planning::op_time t942 = gb::model_time(p, plan, arch::target::gfx942);
  const planning::op_time t950 = gb::model_time(p, plan, arch::target::gfx950);
  CHECK(t942.launches[0].bound == "DRAM");
  CHECK(t950.launches[0].bound == "DRAM");
  CHECK(t942.launches[0].dram_us / t950.launches[0].dram_us == Approx(8.0 / 5.3).epsilon(1e-3));
  CHECK(gb::plan_queries::model_seconds(p, plan, arch::target::gfx942) == Approx(t942.us * 1e-6));
  // A shape no table names (the shipped table holds the mn_contiguous benchmark shapes) is planned
  // by the model.
  const gb::problem table_shape{1024, 576, 7168, layout::k_contiguous};
  const gb::plan from_model = gb::plan_queries::model_plan(table_shape, ~std::size_t{0}, arch::target::gfx950);
  const gb::plan chosen = gb::choose_plan(table_shape, ~std::size_t{0}, arch::target::gfx950);
  CHECK(chosen.config == from_model.config);
  CHECK(chosen.splits == from_model.splits);
}

TEST_CASE("blockscale dispatch: within the model's error the most robust plan runs", "[gemm]") {
  // Every candidate model_plan weighs (the configs but the explicit-only mfma32, 1 to 16 K splits of
  // at least 4 scale groups each); the chosen plan is within the model's error of the fastest and
  // no plan that close is more robust (planning/model/plan_choice.hpp). M = 1 against 7168 x 7168: the plan
  // pads M least of the plans keeping as many waves in flight.
  for (arch::target t : {arch::target::gfx942, arch::target::gfx950})
    for (const auto& [m, n, k] :
         {std::tuple{1, 7168, 7168}, {100, 1536, 7168}, {1024, 4608, 7168}, {6144, 576, 7168}}) {
      const gb::problem p{m, n, k, layout::k_contiguous};
      std::vector<planning::scored_plan<gb::plan>> candidates;
      for (gb::config_id id : gb::all_configs) {
        if (id == gb::config_id::mfma32) continue;
        for (int splits = 1; splits <= 16 && (splits == 1 || p.k_groups() / splits >= 4); splits *= 2)
          candidates.push_back(planning::score(gb::plan{id, splits}, gb::model_time(p, {id, splits}, t),
                                               gb::padded_flops(p, {id, splits})));
      }
      const gb::plan chosen = gb::plan_queries::model_plan(p, ~std::size_t{0}, t);
      INFO(arch::to_string(t) << " " << p.str() << ": " << gb::plan_name(chosen));
      test::check_plan_choice(candidates, chosen,
                              [](gb::plan a, gb::plan b) { return a.config == b.config && a.splits == b.splits; });
    }
}

TEST_CASE("blockscale GEMM: every bad input gets its status before any launch", "[emu][gemm]") {
  test::with_device_fp8([&](auto fp8_format) {
    using fp8 = decltype(fp8_format);
    test::blockscale_case<fp8> t({64, 64, 256, layout::k_contiguous}, 3);
    auto expect = [&](gb::problem p, gb::args<fp8> a, status_code code, const char* text) {
      const status s = gemm_fp8_blockscale(p, a, nullptr);
      INFO(s.message());
      CHECK(s.code() == code);
      CHECK_THAT(s.message(), Catch::Contains(text));
    };
    const auto good = t.args();
    expect({64, 64, 200, layout::k_contiguous}, good, status_code::bad_shape, "K must be a multiple of 128");
    expect({64, 72, 256, layout::k_contiguous}, good, status_code::bad_shape, "N must be a multiple of 16");
    expect({-16, 64, 256, layout::k_contiguous}, good, status_code::bad_shape, "M must be >= 0");
    // M = 0 is empty: no pointer is checked, nothing is launched.
    test::check_launches_nothing(
        [] { return gemm_fp8_blockscale(gb::problem{0, 64, 256, layout::mn_contiguous}, gb::args<fp8>{}, nullptr); });
    expect({40, 64, 256, layout::mn_contiguous}, good, status_code::bad_alignment, "M must be a multiple of 16");
    // Each pointer's status names it.
    const gb::problem shape{64, 64, 256, layout::k_contiguous};
    {
      auto a = good;
      a.a = nullptr;
      expect(shape, a, status_code::null_pointer, "argument a is null");
      a = good, a.b = nullptr;
      expect(shape, a, status_code::null_pointer, "argument b is null");
      a = good, a.a_scale = nullptr;
      expect(shape, a, status_code::null_pointer, "argument a_scale is null");
      a = good, a.b_scale = nullptr;
      expect(shape, a, status_code::null_pointer, "argument b_scale is null");
      a = good, a.c = nullptr;
      expect(shape, a, status_code::null_pointer, "argument c is null");
      a = good, a.a = good.a + 8;
      expect(shape, a, status_code::bad_alignment, "argument a must be 16-byte aligned");
      a = good, a.b = good.b + 4;
      expect(shape, a, status_code::bad_alignment, "argument b must be 16-byte aligned");
      a = good, a.a_scale = reinterpret_cast<const float*>(reinterpret_cast<const char*>(good.a_scale) + 2);
      expect(shape, a, status_code::bad_alignment, "argument a_scale must be 4-byte aligned");
      a = good, a.b_scale = reinterpret_cast<const float*>(reinterpret_cast<const char*>(good.b_scale) + 2);
      expect(shape, a, status_code::bad_alignment, "argument b_scale must be 4-byte aligned");
      a = good, a.c = good.c + 1;
      expect(shape, a, status_code::bad_alignment, "argument c must be 4-byte aligned");
    }
    expect({65536, 64, 65536, layout::k_contiguous}, good, status_code::too_large, "32-bit buffer offsets");
    // Explicit configurations: split-K needs its workspace; splits must fit K.
    auto no_workspace = good;
    no_workspace.workspace = nullptr;
    const gb::problem p{64, 64, 256, layout::k_contiguous};
    CHECK(gb::launch<gb::config_small>(p, no_workspace, 2, nullptr).code() == status_code::null_pointer);
    CHECK(gb::launch<gb::config_small>(p, good, 3, nullptr).code() == status_code::bad_config);
    // The other fp8 format than the device reads is refused, never reinterpreted.
    using other_fp8 = test::other_fp8_t<fp8>;
    gb::args<other_fp8> wrong{reinterpret_cast<const other_fp8*>(good.a),
                              reinterpret_cast<const other_fp8*>(good.b),
                              good.a_scale,
                              good.b_scale,
                              good.c,
                              nullptr,
                              0};
    const status s = gemm_fp8_blockscale(p, wrong, nullptr);
    CHECK(s.code() == status_code::bad_format);
    CHECK_THAT(s.message(), Catch::Contains("fp8"));
  });
}

TEST_CASE("blockscale GEMM: non-finite scales follow the documented per-block semantics", "[emu][gemm]") {
  // C = sum over 128-K blocks of (a_scale * b_scale) * (the block's dot product), in IEEE
  // arithmetic: an Inf scale gives +-Inf where the block's dot product is non-zero and NaN where it
  // is zero; a NaN scale gives NaN (ops/gemm_fp8_blockscale/problem.hpp). The amd-fp8-mm
  // reference, which scales each element first, would give NaN in more places. Small integer
  // operands make every dot product exact, so the expected class of each output is certain.
  test::with_device_fp8([&](auto fp8_format) {
    using fp8 = decltype(fp8_format);
    const gb::problem p{32, 64, 256, layout::k_contiguous};
    test::blockscale_case<fp8> t(p, 5);
    std::mt19937 rng(17);
    for (int i = 0; i < p.m * p.k; ++i) t.ha[i] = saturate_cast<fp8>(1.0f + static_cast<float>(i % 3 == 0));
    for (int i = 0; i < p.n * p.k; ++i) t.hb[i] = saturate_cast<fp8>(static_cast<float>(int(rng() % 5) - 2));
    for (int k = 0; k < 128; ++k) t.hb[5 * p.k + k] = saturate_cast<fp8>(0.0f);  // column 5: block 0 sums to 0
    for (float& v : t.has) v = 0.5f;
    for (float& v : t.hbs) v = 0.25f;
    const float inf = std::numeric_limits<float>::infinity();
    t.has[3 * p.k_groups() + 0] = inf;                                       // row 3, block 0: +Inf
    t.has[9 * p.k_groups() + 1] = -inf;                                      // row 9, block 1: -Inf
    t.has[20 * p.k_groups() + 1] = std::numeric_limits<float>::quiet_NaN();  // row 20, block 1: NaN
    hipMemcpy(t.a, t.ha.data(), t.ha.size(), hipMemcpyHostToDevice);
    hipMemcpy(t.b, t.hb.data(), t.hb.size(), hipMemcpyHostToDevice);
    hipMemcpy(t.a_scale, t.has.data(), t.has.size() * 4, hipMemcpyHostToDevice);
    hipMemcpy(t.b_scale, t.hbs.data(), t.hbs.size() * 4, hipMemcpyHostToDevice);
    // The rule, in double (the dot products are exact integers).
    std::vector<double> expected(std::size_t(p.m) * p.n);
    for (int i = 0; i < p.m; ++i)
      for (int j = 0; j < p.n; ++j) {
        double total = 0;
        for (int kb = 0; kb < p.k_groups(); ++kb) {
          double dot = 0;
          for (int k = kb * 128; k < kb * 128 + 128; ++k)
            dot += double(to_float(t.ha[i * p.k + k])) * double(to_float(t.hb[j * p.k + k]));
          total += double(t.has[i * p.k_groups() + kb]) * double(t.hbs[kb]) * dot;
        }
        expected[i * p.n + j] = total;
      }
    REQUIRE(std::isnan(expected[3 * p.n + 5]));   // Inf times a zero block: NaN
    REQUIRE(std::isinf(expected[3 * p.n + 6]));   // Inf times a non-zero block: Inf
    REQUIRE(std::isnan(expected[20 * p.n + 0]));  // NaN scale
    auto compare = [&](const char* label) {
      std::vector<bf16> got(expected.size());
      hipMemcpy(got.data(), t.c, got.size() * sizeof(bf16), hipMemcpyDeviceToHost);
      int bad = 0;
      for (std::size_t i = 0; i < got.size(); ++i) {
        const double g = to_float(got[i]), e = expected[i];
        const bool same = std::isnan(e)   ? std::isnan(g)
                          : std::isinf(e) ? g == e
                                          : std::fabs(g - e) <= std::ldexp(std::fabs(e), -8);
        if (!same && bad++ < 5) std::printf("%s: C[%zu][%zu] = %g, expected %g\n", label, i / p.n, i % p.n, g, e);
      }
      return bad;
    };
    REQUIRE(gemm_fp8_blockscale(p, t.args(), nullptr).ok());
    CHECK(compare("plan") == 0);
    REQUIRE(gb::launch<gb::config_small>(p, t.args(), 2, nullptr).ok());
    CHECK(compare("split-K 2") == 0);
  });
}

#if defined(WAVEKIT_EMULATOR)  // the counters are the emulator's
TEST_CASE("blockscale GEMM: LDS fills and operand reads are bank-conflict free", "[emu][gemm]") {
  test::with_device_fp8([&](auto fp8_format) {
    using fp8 = decltype(fp8_format);
    auto check_config = [&](auto cfg, layout order) {
      using C = decltype(cfg);
      test::blockscale_case<fp8> t({C::block_m, C::block_n, 256, order}, 2);
      REQUIRE(gb::launch<C>(t.p, t.args(), 1, nullptr).ok());
      const auto& counters = emu::last_launch_counters();
      INFO(C::name() << " " << to_string(order) << "\n" << counters.summary());
      CHECK(counters.lds_instructions > 0);
      CHECK(counters.lds_bank_conflict_cycles == 0);
      CHECK(t.check(t.reference(), 1, "conflicts") == 0);
      return 0;
    };
    for (layout order : {layout::k_contiguous, layout::mn_contiguous}) {
      for (gb::config_id id : gb::all_configs) gb::with_config(id, [&](auto cfg) { return check_config(cfg, order); });
      std::apply([&](auto... cfg) { (check_config(cfg, order), ...); }, custom_configs{});
    }
  });
}
#endif

TEST_CASE("blockscale GEMM: seeded randomized shapes, orders, configs and splits", "[emu][gemm]") {
  test::with_device_fp8([&](auto fp8_format) {
    using fp8 = decltype(fp8_format);
    const std::uint32_t seed = std::random_device{}();
    INFO("randomized test seed " << seed << " (reproduce by fixing it in the source)");
    std::mt19937 rng(seed);
    for (int trial = 0; trial < 6; ++trial) {
      const layout order = rng() % 2 ? layout::k_contiguous : layout::mn_contiguous;
      int m = 1 + static_cast<int>(rng() % 300);
      if (order == layout::mn_contiguous) m = 16 * (1 + m / 16);
      const int n = 16 * (1 + static_cast<int>(rng() % 24)), k = 128 * (1 + static_cast<int>(rng() % 8));
      const gb::problem p{m, n, k, order};
      const int splits = 1 + static_cast<int>(rng() % std::min(4, p.k_groups()));
      auto id = gb::all_configs[rng() % std::size(gb::all_configs)];
      INFO("trial " << trial << ": " << p.str() << " " << gb::plan_name({id, splits}));
      gb::with_config(id, [&](auto cfg) {
        CHECK(run_config<decltype(cfg), fp8>(p, splits, static_cast<std::uint32_t>(rng())) == 0);
        return 0;
      });
    }
  });
}
