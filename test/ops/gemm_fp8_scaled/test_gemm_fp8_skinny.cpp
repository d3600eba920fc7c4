// The scaled fp8 GEMM at M <= 16, the skinny GEMM of Hugging Face's MI300X kernels (per-tensor
// scales, A [M][K], B [N][K], C fp16 or bf16): every M from 1 to 16 through the one-call dispatch
// on several N and K; on gfx942 the sparse MFMA's row pairs for M <= 8 (counted by the emulator:
// no dense MFMA there), the skinny family up to 16, the dense GEMM from 17; the weights read once
// (total reads within 5% of A, B and C once) on the seed's decode shapes; bit-identical reruns;
// every run's bytes against the performance model's (ops/gemm_fp8_scaled/model.hpp).
// Bounds: gemm_fp8_scaled_case::check (one more rounding for the row pairs' fold).
#include <hip/hip_runtime.h>
#include <catch2/catch.hpp>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "support/device_fp8.hpp"
#include "support/empty_problem.hpp"
#include "support/gemm_fp8_scaled_case.hpp"
#include "support/plan_choice_check.hpp"
#include "wavekit/ops/gemm_fp8_scaled.hpp"
#include "wavekit/ops/gemm_fp8_scaled/model.hpp"

#if defined(WAVEKIT_EMULATOR)
#include "support/model_traffic_check.hpp"
#endif

using namespace wavekit;
namespace gs = wavekit::ops::gemm_fp8_scaled;
using gs::scale_granularity;

namespace {

bool is_gfx942() { return arch::current_device_arch().kind == arch::target::gfx942; }

// Runs p through the one-call API and checks C; returns the plan that ran.
template <class Fp8, class Out>
gs::plan_info run_dispatched(const gs::problem& p, std::uint32_t seed) {
  test::gemm_fp8_scaled_case<Fp8, Out> t(p, seed, 16);
  gs::plan_info ran;
#if defined(WAVEKIT_EMULATOR)
  emu::reset_counters();
#endif
  const status s = gemm_fp8_scaled(p, t.args(), nullptr, &ran);
  INFO(p.str() << ": " << s.message());
  REQUIRE(s.ok());
  REQUIRE(hipDeviceSynchronize() == hipSuccess);
  const bool pairs = ran.plan.config == gs::config_id::pairs;
  INFO(ran.name);
#if defined(WAVEKIT_EMULATOR)
  const auto& counters = emu::accumulated_counters();
  // The row pairs run only the sparse instruction; everything else only dense ones.
  if (pairs)
    CHECK(counters.mfma_of("v_smfmac_f32_16x16x64_fp8_fp8") == counters.mfma_total());
  else
    CHECK(counters.mfma_of("v_smfmac_f32_16x16x64_fp8_fp8") == 0);
  CHECK(counters.lds_bank_conflict_cycles == 0);
  test::check_model_traffic_summed(gs::model_launches(p, ran.plan, arch::current_device_arch().kind), counters);
#endif
  CHECK(t.check(ran.plan.splits, ran.name.c_str(), pairs) == 0);
  return ran;
}

}  // namespace

TEST_CASE("gemm_fp8_scaled skinny: every M from 1 to 16 through the dispatch, the sparse MFMA for M <= 8 on gfx942",
          "[emu][gemm][skinny]") {
  test::with_device_fp8([](auto fp8_format) {
    using fp8 = decltype(fp8_format);
    using enum scale_granularity;
    for (int m = 1; m <= 17; ++m)
      for (const auto [n, k] : {std::pair{16, 16}, std::pair{272, 208}, std::pair{1040, 1040}}) {
        const gs::problem p{m, n, k, layout::k_contiguous, tensor, tensor};
        const gs::plan_info ran = m % 2 ? run_dispatched<fp8, fp16>(p, 10 * m + k) : run_dispatched<fp8, bf16>(p, m);
        INFO(p.str() << ": " << ran.name);
        if (m <= 8 && is_gfx942())
          CHECK(ran.plan.config == gs::config_id::pairs);
        else if (m <= 16)
          CHECK((ran.plan.config == gs::config_id::skinny || ran.plan.config == gs::config_id::decode));
        else
          CHECK((ran.plan.config != gs::config_id::skinny && ran.plan.config != gs::config_id::pairs));
      }
  });
}

TEST_CASE("gemm_fp8_scaled skinny: the explicit skinny configs, split-K and per-channel scales",
          "[emu][gemm][skinny]") {
  test::with_device_fp8([](auto fp8_format) {
    using fp8 = decltype(fp8_format);
    using enum scale_granularity;
    auto run = [&]<class Cfg>(Cfg, int m, int n, int k, int splits, scale_granularity sa, scale_granularity sb) {
      const gs::problem p{m, n, k, layout::k_contiguous, sa, sb};
      test::gemm_fp8_scaled_case<fp8, fp16> t(p, m + n + k, 16);
#if defined(WAVEKIT_EMULATOR)
      emu::reset_counters();
#endif
      const status s = gs::launch<Cfg>(p, t.args(), splits, nullptr);
      INFO(Cfg::name(splits) << " on " << p.str() << ": " << s.message());
      REQUIRE(s.ok());
      REQUIRE(hipDeviceSynchronize() == hipSuccess);
#if defined(WAVEKIT_EMULATOR)
      test::check_model_traffic_summed(gs::config_launches<Cfg>(p, splits, arch::current_device_arch().kind),
                                       emu::accumulated_counters());
#endif
      CHECK(t.check(splits, Cfg::name(splits).c_str(), Cfg::row_pairs) == 0);
    };
    if (is_gfx942())
      for (int m : {1, 3, 7, 8})
        for (int splits : {1, 2, 5}) run(gs::config_pairs{}, m, 528, 64 * 12 + 16, splits, tensor, tensor);
    for (int m : {1, 9, 15, 16})
      for (int splits : {1, 3}) run(gs::config_skinny{}, m, 528, 128 * 6 + 16, splits, tensor, tensor);
    if (is_gfx942()) run(gs::config_pairs{}, 5, 256, 320, 2, row, row);
    run(gs::config_skinny{}, 12, 512, 256, 1, row, tensor);
  });
}

TEST_CASE("gemm_fp8_scaled skinny: weights read once, memory reads within 5% of A, B and C once",
          "[emu][gemm][skinny]") {
  test::with_device_fp8([](auto fp8_format) {
    using fp8 = decltype(fp8_format);
    using enum scale_granularity;
    // Llama 3.1 405B decode shapes at tensor parallelism 8 (N, K), K cut to keep emulation short.
    for (const auto [n, k] : {std::pair{2304, 4096}, std::pair{1024, 8192}, std::pair{6656, 2048}})
      for (int m : {1, 4, 8, 9, 16}) {
        const gs::problem p{m, n, k, layout::k_contiguous, tensor, tensor};
        test::gemm_fp8_scaled_case<fp8, fp16> t(p, 5, 16);
        gs::plan_info ran;
#if defined(WAVEKIT_EMULATOR)
        emu::reset_counters();
#endif
        REQUIRE(gemm_fp8_scaled(p, t.args(), nullptr, &ran).ok());
        REQUIRE(hipDeviceSynchronize() == hipSuccess);
#if defined(WAVEKIT_EMULATOR)
        const auto& counters = emu::accumulated_counters();
        const double a = double(m) * k, b = double(n) * k, c = 2.0 * m * n;
        // Memory's share: each allocation's bytes once per launch (A's re-reads by each column of
        // tiles are cache hits); every load: what the kernels ask of L2.
        const double memory = double(counters.global_bytes_read_distinct), read = double(counters.global_bytes_read);
        std::printf(
            "gemm_fp8_scaled %s (%s): memory reads %.4f, loads %.4f of A + B + C once (%.3f MB); B %.4fx, "
            "A %.2fx\n",
            p.str().c_str(), ran.name.c_str(), memory / (a + b + c), read / (a + b + c), (a + b + c) / 1e6,
            double(counters.bytes_read_from(t.b)) / b, double(counters.bytes_read_from(t.a)) / a);
        CHECK(double(counters.bytes_read_from(t.b)) == b);
        CHECK(memory <= 1.05 * (a + b + c));
        // The performance model's launches move exactly these bytes (ops/gemm_fp8_scaled/model.hpp),
        // and the skinny read budget is its.
        test::check_model_traffic_summed(gs::model_launches(p, ran.plan, arch::current_device_arch().kind), counters);
#endif
        CHECK(t.check(ran.plan.splits, ran.name.c_str(), ran.plan.config == gs::config_id::pairs) == 0);
      }
  });
}

TEST_CASE("gemm_fp8_scaled skinny: reruns are bit-identical, split-K included", "[emu][gemm][skinny]") {
  test::with_device_fp8([](auto fp8_format) {
    using fp8 = decltype(fp8_format);
    using enum scale_granularity;
    for (int m : {1, 3, 13}) {  // split-K on both targets
      const gs::problem p{m, 784, 8192, layout::k_contiguous, tensor, tensor};
      test::gemm_fp8_scaled_case<fp8, bf16> t(p, 9, 16);
      std::vector<std::vector<char>> runs;
      for (int run = 0; run < 2; ++run) {
        gs::plan_info ran;
        REQUIRE(hipMemset(t.c, 0, std::size_t(m) * p.n * 2) == hipSuccess);
        REQUIRE(gemm_fp8_scaled(p, t.args(), nullptr, &ran).ok());
        REQUIRE(hipDeviceSynchronize() == hipSuccess);
        INFO(ran.name);
        CHECK(ran.plan.splits > 1);
        runs.emplace_back(std::size_t(m) * p.n * 2);
        REQUIRE(hipMemcpy(runs.back().data(), t.c, runs.back().size(), hipMemcpyDeviceToHost) == hipSuccess);
      }
      CHECK(std::memcmp(runs[0].data(), runs[1].data(), runs[0].size()) == 0);
    }
  });
}

TEST_CASE("gemm_fp8_scaled skinny: the plan keeps each M's family on every target", "[gemm][skinny]") {
  using enum scale_granularity;
  for (arch::target t : {arch::target::gfx942, arch::target::gfx950})
    for (int m = 1; m <= 32; ++m)
      for (const auto [n, k] : {std::pair{2304, 16384}, std::pair{16384, 1664}, std::pair{512, 1024}}) {
        const gs::problem p{m, n, k, layout::k_contiguous, tensor, tensor};
        const gs::plan pl = gs::choose_plan(p, ~std::size_t{0}, t);
        INFO(arch::to_string(t) << " " << p.str() << ": " << gs::plan_name(pl));
        CHECK(gs::offered(p, pl.config, t));
        CHECK((pl.config == gs::config_id::pairs) == (m <= 8 && t == arch::target::gfx942));
        if (m <= gs::skinny_max_m)  // these shapes are large enough for the budget
          CHECK(gs::memory_read_bytes(p, pl.config, pl.splits, t) <= gs::skinny_read_budget * gs::ideal_bytes(p));
      }
}

TEST_CASE("gemm_fp8_scaled skinny: within the read budget the model's most robust plan", "[gemm][skinny]") {
  // For M <= 16 the candidates are the offered configs' splits whose memory reads stay within the
  // budget (reads grow with the splits); the plan is within the model's error of the fastest of
  // them and none that close is more robust (planning/model/plan_choice.hpp). The budget can cost time: at
  // 16 x 2304 x 16384 the model rates 16 splits (12% more reads) faster than the 8 the budget
  // allows (docs/gemm-fp8-skinny.md).
  using enum scale_granularity;
  for (arch::target t : {arch::target::gfx942, arch::target::gfx950})
    for (const auto [n, k] : {std::pair{2304, 16384}, std::pair{13312, 16384}, std::pair{16384, 1664},
                              std::pair{1024, 8192}, std::pair{512, 1024}})
      for (int m = 1; m <= gs::skinny_max_m; ++m) {
        const gs::problem p{m, n, k, layout::k_contiguous, tensor, tensor};
        auto within = [&](gs::config_id id, int splits) {
          return gs::memory_read_bytes(p, id, splits, t) <= gs::skinny_read_budget * gs::ideal_bytes(p);
        };
        bool budget = false;
        for (gs::config_id id : gs::all_configs) budget = budget || (gs::offered(p, id, t) && within(id, 1));
        std::vector<planning::scored_plan<gs::plan>> candidates;
        for (gs::config_id id : gs::all_configs) {
          if (!gs::offered(p, id, t)) continue;
          for (int splits = 1; splits <= 16 && (splits == 1 || gs::k_steps(p, id, t) / splits >= 4); splits *= 2) {
            if (budget && !within(id, splits)) break;
            candidates.push_back(planning::score(gs::plan{id, splits}, gs::model_time(p, {id, splits}, t),
                                                 planning::gemm_padded_flops(p.m, p.n, p.k, gs::facts(id))));
          }
        }
        const gs::plan chosen = gs::choose_plan(p, ~std::size_t{0}, t);
        INFO(arch::to_string(t) << " " << p.str() << ": " << gs::plan_name(chosen));
        test::check_plan_choice(candidates, chosen,
                                [](gs::plan a, gs::plan b) { return a.config == b.config && a.splits == b.splits; });
      }
}

TEST_CASE("gemm_fp8_scaled skinny: bad input gets its status before any launch", "[emu][gemm][skinny]") {
  test::with_device_fp8([](auto fp8_format) {
    using fp8 = decltype(fp8_format);
    using enum scale_granularity;
    const gs::problem p{4, 256, 1024, layout::k_contiguous, tensor, tensor};
    test::gemm_fp8_scaled_case<fp8, fp16> t(p, 2, 16);
    const std::string what = "gemm_fp8_scaled 4x256x1024 k_contiguous, scales tensor/tensor: ";
    auto a = t.args();
    a.b = nullptr;
    CHECK(gemm_fp8_scaled(p, a, nullptr).message() == what + "argument b is null");
    a = t.args(), a.a = reinterpret_cast<const fp8*>(reinterpret_cast<const char*>(t.a) + 4);
    CHECK(gemm_fp8_scaled(p, a, nullptr).message() ==
          what + "argument a must be 16-byte aligned (16-byte vector loads)");
    CHECK(gemm_fp8_scaled(gs::problem{4, 264, 1024, layout::k_contiguous, tensor, tensor}, t.args(), nullptr).code() ==
          status_code::bad_shape);
    CHECK(gemm_fp8_scaled(gs::problem{4, 256, 1000, layout::k_contiguous, tensor, tensor}, t.args(), nullptr).code() ==
          status_code::bad_shape);
    CHECK(gemm_fp8_scaled(gs::problem{-1, 256, 1024, layout::k_contiguous, tensor, tensor}, t.args(), nullptr).code() ==
          status_code::bad_shape);
    // M = 0 is empty: no pointer is checked, nothing is launched.
    test::check_launches_nothing([&] {
      return gemm_fp8_scaled(gs::problem{0, 256, 1024, layout::k_contiguous, tensor, tensor}, gs::args<fp8, fp16>{},
                             nullptr);
    });
    // M <= 16 in the M/N-contiguous order: M must be 16 there (vector loads along M).
    CHECK(gemm_fp8_scaled(gs::problem{4, 256, 1024, layout::mn_contiguous, tensor, tensor}, t.args(), nullptr).code() ==
          status_code::bad_alignment);
    // The other fp8 format than the device's is refused, not reinterpreted.
    test::gemm_fp8_scaled_case<test::other_fp8_t<fp8>, fp16> other(p, 2, 16);
    CHECK(gemm_fp8_scaled(p, other.args(), nullptr).code() == status_code::bad_format);
  });
}
