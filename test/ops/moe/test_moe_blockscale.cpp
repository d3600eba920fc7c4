// The MoE pipeline over fp8 block-scaled expert weights (ops/moe/kernel.hpp's blockscale launch:
// x quantized 1x128, gate, gated up, the gated product quantized 1x128, weighted down, combine)
// and its batched expert-parallel form, on the CPU emulator (per emulated target, with the fp8
// format that target reads) and, in the GPU build, on the device. Checked in three exact steps
// (test/support/moe_blockscale_case.hpp): the device's quantizations equal the host quantizer's bit
// for bit, the gated product meets a bound from T and the accumulation, and the output meets
// moe_case's bound from the device's own quantized gated product. Every shipped config, both
// weight orders, bf16 and fp16, inputs arriving quantized (1x128 and per token), K one scale
// block and many, one token, tile - 1 and tile + 1 rows per expert, idle experts, expert
// parallelism, the same bits on every run, no host synchronisation inside the call, and every bad
// input's status.
#include <hip/hip_runtime.h>
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "support/device_fp8.hpp"
#include "support/graph_safety.hpp"
#include "support/moe_blockscale_case.hpp"
#include "support/moe_views_check.hpp"
#include "wavekit/ops/moe.hpp"

using namespace wavekit;
namespace moe = wavekit::ops::moe;

namespace {

template <class Cfg, class T, class Fp8>
void run_case(const moe::problem& p, const std::vector<int>& ids, std::uint32_t seed,
              test::moe_input input = test::moe_input::half) {
  test::moe_blockscale_case<T, Fp8> t(p, ids, seed, moe::blockscale_workspace_bytes_for<Cfg, T>(p), input);
  status s;
  const auto unsafe =
      test::graph_unsafe_calls_of([&](hipStream_t stream) { s = moe::launch<Cfg>(p, t.args(), stream); });
  INFO(Cfg::name() << " on " << p.str() << ", input " << static_cast<int>(input) << ": " << s.message());
  REQUIRE(s.ok());
  CHECK(unsafe.empty());
  REQUIRE(hipDeviceSynchronize() == hipSuccess);
  CHECK(t.check_standard(Cfg::block_m, Cfg::name().c_str()) == 0);
  // The same bits again.
  const std::vector<T> first = t.output();
  REQUIRE(moe::launch<Cfg>(p, t.args(), nullptr).ok());
  REQUIRE(hipDeviceSynchronize() == hipSuccess);
  const std::vector<T> second = t.output();
  CHECK(std::memcmp(first.data(), second.data(), first.size() * sizeof(T)) == 0);
}

}  // namespace

TEMPLATE_LIST_TEST_CASE("moe fp8: each shipped config, both weight orders, bf16 and fp16", "[emu][moe]",
                        moe::blockscale::shipped_configs) {
  using C = TestType;
  test::with_device_fp8([&](auto fp8_format) {
    using fp8 = decltype(fp8_format);
    for (layout order : {layout::k_contiguous, layout::mn_contiguous}) {
      // K of the gate and up projections: two 128-K scale blocks; of the down projection: one.
      const moe::problem p{37, 256, 128, 8, 2, 0, 8, order};
      run_case<C, bf16, fp8>(p, test::random_ids(37, 2, 8, 1), 11);
      run_case<C, fp16, fp8>(p, test::random_ids(37, 2, 8, 2), 12);
    }
    // Rows per expert at the M tile's edges (tile - 1 and tile + 1: every token to one expert),
    // K of many scale blocks, an expert dim of three.
    const int bm = C::block_m;
    run_case<C, bf16, fp8>({bm - 1, 128, 384, 2, 1, 0, 2, layout::k_contiguous}, std::vector<int>(bm - 1, 1), 13);
    run_case<C, bf16, fp8>({bm + 1, 640, 128, 2, 1, 0, 2, layout::mn_contiguous}, std::vector<int>(bm + 1, 0), 14);
  });
}

TEST_CASE("moe fp8: inputs quantized already, one token, idle experts, expert parallelism, ids outside", "[emu][moe]") {
  test::with_device_fp8([&](auto fp8_format) {
    using fp8 = decltype(fp8_format);
    using C = moe::blockscale::config_decode;
    const moe::problem p{20, 256, 128, 8, 3, 0, 8, layout::k_contiguous};
    run_case<C, bf16, fp8>(p, test::random_ids(20, 3, 8, 3), 21, test::moe_input::fp8_per_128);
    run_case<C, bf16, fp8>(p, test::random_ids(20, 3, 8, 4), 22, test::moe_input::fp8_per_token);
    // One token (M = 1) with k = 1 over 16 experts: 15 idle.
    run_case<C, bf16, fp8>({1, 128, 128, 16, 1, 0, 16, layout::k_contiguous}, {9}, 23);
    // Expert parallelism: experts [8, 16) of 32 here, the input per token quantized already.
    run_case<moe::blockscale::config_medium, fp16, fp8>({30, 128, 256, 32, 4, 8, 8, layout::mn_contiguous},
                                                        test::random_ids(30, 4, 32, 5), 24,
                                                        test::moe_input::fp8_per_token);
    // Ids outside [0, experts) contribute nothing.
    std::vector<int> ids = test::random_ids(12, 3, 6, 6);
    ids[1] = -1, ids[7] = 6, ids[20] = 1 << 20;
    run_case<C, bf16, fp8>({12, 128, 128, 6, 3, 0, 6, layout::k_contiguous}, ids, 25);
  });
}

TEST_CASE("moe fp8: the one-call API picks the config, refuses the other fp8 format", "[emu][moe]") {
  test::with_device_fp8([&](auto fp8_format) {
    using fp8 = decltype(fp8_format);
    const moe::problem p{96, 256, 128, 8, 3, 0, 8, layout::k_contiguous};  // 36 rows per expert
    const auto bytes = moe::workspace_bytes(p, 2, moe::weight_format::fp8_blockscale);
    REQUIRE(bytes);
    // The query sizes the workspace for gfx942's plan; the call plans for the device within it.
    CHECK(bytes.value() == moe::blockscale::with_config(moe::choose_blockscale_config(p), [&](auto cfg) {
            return moe::blockscale_workspace_bytes_for<decltype(cfg), bf16>(p);
          }));
    const moe::blockscale::config_id id =
        moe::choose_blockscale_config(p, arch::current_device_arch().kind, bytes.value());
    const int tile_m = moe::blockscale::with_config(id, [](auto cfg) { return decltype(cfg)::block_m; });
    test::moe_blockscale_case<bf16, fp8> t(p, test::random_ids(96, 3, 8, 31), 32, bytes.value());
    moe::plan_info ran;
    REQUIRE(wavekit::moe(p, t.args(), nullptr, &ran).ok());
    REQUIRE(hipDeviceSynchronize() == hipSuccess);
    CHECK(ran.name == moe::config_name(id));
    CHECK(t.check_standard(tile_m, ran.name.c_str()) == 0);
    // The other fp8 format: the device does not read it.
    using other = test::other_fp8_t<fp8>;
    const moe::blockscale_args<bf16, other> wrong{};
    CHECK(wavekit::moe(p, wrong, nullptr).code() == status_code::bad_format);
    CHECK(
        !moe::workspace_bytes({48, 192, 128, 8, 3, 0, 8, layout::k_contiguous}, 2, moe::weight_format::fp8_blockscale));
    // The one-call query with the call's argument type: the device's preferred config for these
    // element types, whose bytes the call then runs it in; the other fp8 format is its status too.
    const auto typed = wavekit::moe_workspace_bytes<moe::blockscale_args<bf16, fp8>>(p);
    REQUIRE(typed);
    const moe::blockscale::config_id preferred = moe::choose_blockscale_config(
        p, arch::current_device_arch().kind, moe::unlimited_workspace,
        moe::tuning_dtypes<bf16>(moe::weight_format::fp8_blockscale, arch::current_device_arch().kind));
    CHECK(typed.value() == moe::blockscale::with_config(preferred, [&](auto cfg) {
            return moe::blockscale_workspace_bytes_for<decltype(cfg), bf16>(p);
          }));
    test::moe_blockscale_case<bf16, fp8> exact(p, test::random_ids(96, 3, 8, 33), 34, typed.value());
    REQUIRE(wavekit::moe(p, exact.args(), nullptr, &ran).ok());
    REQUIRE(hipDeviceSynchronize() == hipSuccess);
    CHECK(ran.name == moe::config_name(preferred));
    CHECK(wavekit::moe_workspace_bytes<moe::blockscale_args<bf16, other>>(p).error().code() == status_code::bad_format);
  });
}

TEST_CASE("moe fp8: x (or x_fp8) and out as views of wider rows give the packed result bit for bit", "[emu][moe]") {
  using C = moe::blockscale::config_medium;
  test::with_device_fp8([&](auto fp8_format) {
    using fp8 = decltype(fp8_format);
    const moe::problem p{37, 256, 128, 8, 2, 0, 8, layout::k_contiguous};
    auto launch = [](const moe::problem& q, const moe::blockscale_args<bf16, fp8>& a) {
      return moe::launch<C>(q, a, nullptr);
    };
    for (test::moe_input input :
         {test::moe_input::half, test::moe_input::fp8_per_128, test::moe_input::fp8_per_token}) {
      test::moe_blockscale_case<bf16, fp8> t(p, test::random_ids(37, 2, 8, 5), 15,
                                             moe::blockscale_workspace_bytes_for<C, bf16>(p), input);
      test::check_views_match_packed(p, t.args(), 32, 16, launch);
    }
    // An arriving x_fp8's stride: 16-byte loads of bytes.
    test::moe_blockscale_case<bf16, fp8> t(p, test::random_ids(37, 2, 8, 5), 15,
                                           moe::blockscale_workspace_bytes_for<C, bf16>(p),
                                           test::moe_input::fp8_per_128);
    moe::problem q = p;
    q.x_stride = 264;
    CHECK(moe::launch<C>(q, t.args(), nullptr).message() ==
          "moe " + q.str() + ": x_stride (264) must be a multiple of 16 elements (16-byte vector loads)");
  });
}

TEST_CASE("moe fp8: every bad input gets its status before any launch", "[emu][moe]") {
  test::with_device_fp8([&](auto fp8_format) {
    using fp8 = decltype(fp8_format);
    using C = moe::blockscale::config_decode;
    const moe::problem p{8, 128, 128, 4, 2, 0, 4, layout::k_contiguous};
    test::moe_blockscale_case<bf16, fp8> t(p, test::random_ids(8, 2, 4, 1), 1,
                                           moe::blockscale_workspace_bytes_for<C, bf16>(p));
    const std::string what = "moe " + p.str() + ": ";
    auto status_of = [&](const moe::problem& q, const moe::blockscale_args<bf16, fp8>& a) {
      return moe::launch<C>(q, a, nullptr);
    };
    CHECK(status_of(p, t.args()).ok());
    REQUIRE(hipDeviceSynchronize() == hipSuccess);
    auto a = t.args();
    a.down_scale = nullptr;
    CHECK(status_of(p, a).message() == what + "argument down_scale is null");
    a = t.args(), a.x_fp8 = t.d_x_fp8;
    CHECK(status_of(p, a).message() ==
          what + "exactly one of the arguments x and x_fp8 must be given (x is given, x_fp8 is given)");
    a = t.args(), a.x = nullptr;
    CHECK(status_of(p, a).message() ==
          what + "exactly one of the arguments x and x_fp8 must be given (x is null, x_fp8 is null)");
    a.x_fp8 = t.d_x_fp8;
    CHECK(status_of(p, a).message() == what + "argument x_scale is null");
    a.x_scale = t.d_x_scale, a.x_scales = static_cast<moe::scale_granularity>(7);
    CHECK(status_of(p, a).message() == what + "x_scales must be scale_granularity::group_1x128 or row");
    a.x_scales = moe::scale_granularity::tensor;
    CHECK(status_of(p, a).code() == status_code::bad_format);
    CHECK(status_of(p, a).message() == what + "x_scales must be scale_granularity::group_1x128 or row");
    a.x_scales = moe::scale_granularity::group_1x128, a.x_fp8 = t.d_x_fp8 + 8;
    CHECK(status_of(p, a).message() == what + "argument x_fp8 must be 16-byte aligned (16-byte vector loads)");
    a = t.args(), a.x_scale = t.d_x_scale;
    CHECK(status_of(p, a).message() == what + "argument x_scale belongs to x_fp8; x is not quantized");
    a = t.args(), a.gate = nullptr;
    CHECK(status_of(p, a).message() == what + "argument gate is null");
    a = t.args(), a.workspace_bytes = 100;
    CHECK(status_of(p, a).code() == status_code::workspace_too_small);
    CHECK(status_of({8, 192, 128, 4, 2, 0, 4, layout::k_contiguous}, t.args()).message() ==
          "moe 8 tokens, hidden 192, expert dim 128, top 2 of 4 experts (local [0, 4)), weights k_contiguous: with fp8 "
          "block-scaled weights hidden and expert_dim must be multiples of 128 (the 128x128 scale blocks)");
    CHECK(status_of({8, 128, 64, 4, 2, 0, 4, layout::k_contiguous}, t.args()).code() == status_code::bad_shape);
    CHECK(status_of({8, 128, 128, 4, 33, 0, 4, layout::k_contiguous}, t.args()).code() == status_code::bad_shape);
    CHECK(status_of({1 << 20, 4096, 128, 4, 2, 0, 4, layout::k_contiguous}, t.args()).code() == status_code::too_large);
  });
}

TEST_CASE("moe fp8: a seeded random sweep over legal problems", "[emu][moe]") {
  test::with_device_fp8([&](auto fp8_format) {
    using fp8 = decltype(fp8_format);
    std::mt19937 rng(77);
    auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    for (int trial = 0; trial < 4; ++trial) {
      const int experts = pick(1, 24), top_k = pick(1, std::min(6, experts)), tokens = pick(1, 40);
      const int local = pick(1, experts), begin = pick(0, experts - local);
      const moe::problem p{tokens,
                           128 * pick(1, 3),
                           128 * pick(1, 2),
                           experts,
                           top_k,
                           begin,
                           local,
                           pick(0, 1) ? layout::k_contiguous : layout::mn_contiguous};
      const auto input = static_cast<test::moe_input>(pick(0, 2));
      INFO("trial " << trial << ": " << p.str());
      const auto ids = test::random_ids(tokens, top_k, experts, 300 + trial);
      if (trial % 2)
        run_case<moe::blockscale::config_decode, bf16, fp8>(p, ids, 400 + trial, input);
      else
        run_case<moe::blockscale::config_medium, fp16, fp8>(p, ids, 400 + trial, input);
    }
  });
}
