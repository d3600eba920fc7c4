// MXFP8 decode through the one-call API on the emulated gfx950 (and the device in the GPU build):
// aiter PR #3783's dense shapes, all 15 (K, N) pairs for M in {1, 2, 4, 8, 16, 32, 64} at full K
// and N cut to 512 (each pair's K loop as at full size), one pair at
// full size for every M; and a seeded randomized test over every MX form (formats, a 16-bit A
// quantized in the kernel, B plain or pre-shuffled, bf16 / fp16 out, any legal shape). Bounds:
// gemm_mx_case::check.
#include <hip/hip_runtime.h>
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstdio>
#include <random>

#include "support/gemm_mx_run.hpp"
#include "wavekit/ops/gemm_mx.hpp"

using namespace wavekit;
namespace gx = wavekit::ops::gemm_mx;

namespace {

using test::device_is_gfx950;

// The one-call API on case t: its status, its bytes against the performance model's (emulator),
// and the outputs outside the bound.
template <class Case>
int run_one_call(const gx::problem& p, std::uint32_t seed) {
  Case t(p, seed, 16);
  gx::plan_info ran;
#if defined(WAVEKIT_EMULATOR)
  emu::reset_counters();
#endif
  const status s = gemm_mx(p, t.args(), nullptr, &ran);
  INFO(p.str() << ": " << s.message());
  REQUIRE(s.ok());
  REQUIRE(hipDeviceSynchronize() == hipSuccess);
#if defined(WAVEKIT_EMULATOR)
  INFO(ran.name);
  test::check_model_traffic_summed(gx::model_launches(p, ran.plan), emu::accumulated_counters());
#endif
  return t.check(ran.plan.splits, ran.name.c_str());
}

constexpr int pr3783_pairs[][2] = {{6144, 2304}, {2048, 6144}, {6144, 1536}, {1536, 6144}, {6144, 1152},
                                   {6144, 768},  {1024, 6144}, {768, 6144},  {6144, 9216}, {6144, 6144},
                                   {8192, 6144}, {6144, 4608}, {6144, 3072}, {4096, 6144}, {3072, 6144}};
constexpr int pr3783_m[] = {1, 2, 4, 8, 16, 32, 64};

}  // namespace

TEST_CASE("gemm_mx: PR #3783's dense MXFP8 shapes for every M, N cut to 512", "[emu][gemm]") {
  if (!device_is_gfx950()) {
    SUCCEED("MX formats are gfx950's");
    return;
  }
  for (const auto& [k, n] : pr3783_pairs)
    for (int m : pr3783_m)
      CHECK(run_one_call<test::gemm_mx_case<fp8_e4m3fn, bf16>>(
                gx::problem{m, 512, k, gx::mx_format::mxfp8, gx::a_storage::mx, gx::b_layout::plain},
                std::uint32_t(m + k)) == 0);
}

TEST_CASE("gemm_mx: PR #3783's 6144 x 2304 MXFP8 shape at full size for every M", "[emu][gemm]") {
  if (!device_is_gfx950()) {
    SUCCEED("MX formats are gfx950's");
    return;
  }
  for (int m : pr3783_m)
    CHECK(run_one_call<test::gemm_mx_case<fp8_e4m3fn, bf16>>(
              gx::problem{m, 2304, 6144, gx::mx_format::mxfp8, gx::a_storage::mx, gx::b_layout::plain},
              std::uint32_t(m)) == 0);
}

TEST_CASE("gemm_mx: seeded random problems over every MX form", "[emu][gemm]") {
  if (!device_is_gfx950()) {
    SUCCEED("MX formats are gfx950's");
    return;
  }
  const std::uint32_t seed = 20261124;
  std::mt19937 rng(seed);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int i = 0; i < 24; ++i) {
    const int form = pick(0, 4);
    const int m = pick(0, 3) == 0 ? pick(1, 16) : pick(1, 300), n = 16 * pick(1, 40);
    const gx::mx_format f = form == 0 ? gx::mx_format::mxfp8 : gx::mx_format::mxfp4;
    const int k_unit = form >= 3 ? 64 : 32;  // a pre-shuffled B takes K in 64s
    const int k = k_unit * pick(1, 2048 / k_unit);
    const gx::a_storage a = form == 2 || form == 4 ? gx::a_storage::bf16 : gx::a_storage::mx;
    const gx::b_layout b = form >= 3 ? gx::b_layout::preshuffled : gx::b_layout::plain;
    const gx::problem p{m, n, k, f, a, b};
    const bool fp16_out = pick(0, 1) == 1;
    INFO("seed " << seed << ", problem " << i << ": " << p.str() << (fp16_out ? ", fp16 out" : ", bf16 out"));
    const std::uint32_t s = seed + std::uint32_t(i);
    int bad = 0;
    if (a != gx::a_storage::mx)
      bad = fp16_out ? run_one_call<test::gemm_mx_quantizing_a_case<bf16, fp16>>(p, s)
                     : run_one_call<test::gemm_mx_quantizing_a_case<bf16, bf16>>(p, s);
    else if (f == gx::mx_format::mxfp8)
      bad = fp16_out ? run_one_call<test::gemm_mx_case<fp8_e4m3fn, fp16>>(p, s)
                     : run_one_call<test::gemm_mx_case<fp8_e4m3fn, bf16>>(p, s);
    else
      bad = fp16_out ? run_one_call<test::gemm_mx_case<fp4_e2m1, fp16>>(p, s)
                     : run_one_call<test::gemm_mx_case<fp4_e2m1, bf16>>(p, s);
    CHECK(bad == 0);
  }
}
