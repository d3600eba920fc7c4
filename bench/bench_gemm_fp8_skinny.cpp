// The skinny fp8 GEMM (M <= 16, per-tensor scales, fp16 out; docs/gemm-fp8-skinny.md) on decode
// shapes, each call verified first against the host reference (gemm_fp8_scaled_case's bound):
//   llama405b_tp8: Llama 3.1 405B's four GEMMs per layer at tensor parallelism 8 (hidden 16384,
//     QKV 2304 columns, O 16384 x 2048, gate+up 13312, down 16384 x 6656), M in {1, 2, 4, 8, 16},
//     and 32, the largest M of hf-rocm-kernels' published times (the dispatch's general tiles), so
//     that every row of docs/performance.md has its measurement;
//   iree_m8: the three M = 8 shapes of IREE's sparse-MFMA measurements (problems.md 7).
// On a GPU: microseconds per call, operands evicted from L2 between calls. On the CPU emulator
// (gfx942): one call, reporting the plan, the bytes read against A, B and C once, B's reads per
// byte, the matrix instructions by kind and bank conflicts, and no time.
#include <benchmark/benchmark.h>
#include <hip/hip_runtime.h>

#include <cstdio>
#include <string>

#include "support/device_fp8.hpp"
#include "support/emulator_bench_main.hpp"
#include "support/gemm_fp8_scaled_case.hpp"
#include "support/gpu_timing.hpp"
#include "support/predicted_counters.hpp"
#include "wavekit/ops/gemm_fp8_scaled.hpp"
#include "wavekit/ops/gemm_fp8_scaled/model.hpp"

using namespace wavekit;
namespace gs = wavekit::ops::gemm_fp8_scaled;

namespace {

void skinny(benchmark::State& state) {
  const int m = int(state.range(0)), n = int(state.range(1)), k = int(state.range(2));
  const gs::problem p{m, n, k, layout::k_contiguous, gs::scale_granularity::tensor, gs::scale_granularity::tensor};
  arch::with_device_fp8([&](auto fp8_format) {
    using fp8 = decltype(fp8_format);
    test::gemm_fp8_scaled_case<fp8, fp16> t(p, 11, 16);
    gs::plan_info ran;
#if defined(WAVEKIT_EMULATOR)
    emu::reset_counters();
#endif
    if (status s = gemm_fp8_scaled(p, t.args(), nullptr, &ran); !s.ok()) {
      std::fprintf(stderr, "ERROR OCCURRED: %s\n", s.message().c_str());
      state.SkipWithError(s.message().c_str());
      return;
    }
    hipDeviceSynchronize();
#if defined(WAVEKIT_EMULATOR)
    const emu::launch_counters c = emu::accumulated_counters();
#endif
    if (t.check(ran.plan.splits, ran.name.c_str(), ran.plan.config == gs::config_id::pairs) != 0) {
      std::fprintf(stderr, "ERROR OCCURRED: %s differs from the host reference\n", p.str().c_str());
      state.SkipWithError("result differs from the host reference");
      return;
    }
    state.SetLabel(ran.name);
    test::set_predicted(state, gs::model_time(p, ran.plan, arch::current_device_arch().kind));
#if defined(WAVEKIT_EMULATOR)
    for (auto _ : state) {
    }
    const double a = double(m) * k, b = double(n) * k, out = 2.0 * m * n;
    state.counters["splits"] = ran.plan.splits;
    state.counters["global_MB_read"] = double(c.global_bytes_read) / 1e6;
    state.counters["read_vs_once"] = double(c.global_bytes_read) / (a + b + out);
    state.counters["b_reads"] = double(c.bytes_read_from(t.b)) / b;
    state.counters["smfmac"] = double(c.mfma_of("v_smfmac_f32_16x16x64_fp8_fp8"));
    state.counters["mfma_dense"] = double(c.mfma_total()) - double(c.mfma_of("v_smfmac_f32_16x16x64_fp8_fp8"));
    state.counters["lds_bank_conflict_cycles"] = double(c.lds_bank_conflict_cycles);
#else
    test::time_calls(state, [&] { (void)gemm_fp8_scaled(p, t.args(), nullptr); });
    state.counters["TB_per_s"] =
        benchmark::Counter(double(n) * k + double(m) * k + 2.0 * m * n, benchmark::Counter::kIsIterationInvariantRate);
#endif
  });
}

// (N, K) of Llama 3.1 405B's per-layer GEMMs at tensor parallelism 8, each for M in {1, 2, 4, 8,
// 16, 32}.
void llama405b_tp8(benchmark::internal::Benchmark* b) {
  const int pairs[][2] = {{2304, 16384}, {16384, 2048}, {13312, 16384}, {16384, 6656}};
  for (const auto& [n, k] : pairs)
    for (int m : {1, 2, 4, 8, 16, 32}) b->Args({m, n, k});
}

}  // namespace

BENCHMARK(skinny)
    ->Name("llama405b_tp8")
    ->ArgNames({"m", "n", "k"})
    ->Apply(llama405b_tp8)
#if defined(WAVEKIT_EMULATOR)
    ->Iterations(1)
#else
    ->UseManualTime()
#endif
    ->Unit(benchmark::kMicrosecond);

// IREE's M = 8 shapes (8 x 2304 x 16384, 8 x 6656 x 16384, 8 x 13312 x 8192).
BENCHMARK(skinny)
    ->Name("iree_m8")
    ->ArgNames({"m", "n", "k"})
    ->Args({8, 2304, 16384})
    ->Args({8, 6656, 16384})
    ->Args({8, 13312, 8192})
#if defined(WAVEKIT_EMULATOR)
    ->Iterations(1)
#else
    ->UseManualTime()
#endif
    ->Unit(benchmark::kMicrosecond);

WAVEKIT_BENCHMARK_MAIN("shape", 40);
