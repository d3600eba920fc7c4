// The MXFP4 GEMM in amd-mxfp4-mm's form (wavekit::gemm_mx: A bf16 quantized as each tile loads, B
// and its scales pre-shuffled by aiter's layouts) over the problem's 4 test and 6 benchmark shapes,
// each verified first against the exact product of the host quantizer's MXFP4 of A and B
// (test/support/gemm_mx_case.hpp's bound). Beside each, aiter's published time for the benchmark
// shapes (`aiter_us`, shared/reference/problems.md; 0 where none was published). On a GPU:
// microseconds per call, operands evicted from L2 between calls. On the CPU emulator (gfx950): one
// call, reporting the bytes read against every operand read once and against the design (B once,
// A once per N tile), MFMAs and bank conflicts, and no time.
#include <benchmark/benchmark.h>
#include <hip/hip_runtime.h>

#include <cstdio>
#include <string>

#include "support/emulator_bench_main.hpp"
#include "support/gemm_mx_case.hpp"
#include "support/gpu_timing.hpp"
#include "wavekit/ops/gemm_mx.hpp"

using namespace wavekit;
namespace gx = wavekit::ops::gemm_mx;

namespace {

void mxfp4_gemm(benchmark::State& state) {
  const int m = int(state.range(0)), n = int(state.range(1)), k = int(state.range(2));
  const gx::problem p{m, n, k, gx::mx_format::mxfp4, gx::a_storage::bf16, gx::b_layout::preshuffled};
  test::gemm_mx_quantizing_a_case<bf16, bf16> t(p, 7, 16);
  gx::plan_info ran;
#if defined(WAVEKIT_EMULATOR)
  emu::reset_counters();
#endif
  if (status s = gemm_mx(p, t.args(), nullptr, &ran); !s.ok()) {
    std::fprintf(stderr, "ERROR OCCURRED: %s\n", s.message().c_str());
    state.SkipWithError(s.message().c_str());
    return;
  }
  hipDeviceSynchronize();
#if defined(WAVEKIT_EMULATOR)
  const emu::launch_counters c = emu::accumulated_counters();
#endif
  if (t.check(ran.plan.splits, ran.name.c_str()) != 0) {
    std::fprintf(stderr, "ERROR OCCURRED: %s differs from the host reference\n", p.str().c_str());
    state.SkipWithError("result differs from the host reference");
    return;
  }
  state.SetLabel(ran.name);
  state.counters["aiter_us"] = double(state.range(3)) / 1000.0;
#if defined(WAVEKIT_EMULATOR)
  for (auto _ : state) {
  }
  const double a_bytes = double(m) * k * 2, b_bytes = double(n) * k / 2 + double(n) * k / 32;
  const block::gemm_tile_facts f = gx::facts(ran.plan.config);
  const double partials = ran.plan.splits > 1 ? double(ran.plan.splits) * m * n * 4 : 0.0;
  state.counters["splits"] = ran.plan.splits;
  state.counters["global_MB_read"] = double(c.global_bytes_read) / 1e6;
  state.counters["read_vs_operands_once"] = double(c.global_bytes_read) / (a_bytes + b_bytes);
  state.counters["read_vs_b_once_a_per_n_tile"] =
      double(c.global_bytes_read) / (b_bytes + (n + f.block_n - 1) / f.block_n * a_bytes + partials);
  state.counters["mfma"] = double(c.mfma_total());
  state.counters["lds_bank_conflict_cycles"] = double(c.lds_bank_conflict_cycles);
#else
  test::time_calls(state, [&] { (void)gemm_mx(p, t.args(), nullptr); });
#endif
}

}  // namespace

// (M, N, K, aiter's time in ns: the benchmark shapes' published times; 0 for the test shapes).
BENCHMARK(mxfp4_gemm)
    ->Name("mxfp4_gemm")
    ->ArgNames({"m", "n", "k", "aiter_ns"})
    ->Args({8, 2112, 7168, 0})
    ->Args({16, 3072, 1536, 0})
    ->Args({64, 3072, 1536, 0})
    ->Args({256, 2880, 512, 0})
    ->Args({4, 2880, 512, 8198})
    ->Args({16, 2112, 7168, 20873})
    ->Args({32, 4096, 512, 9462})
    ->Args({32, 2880, 512, 9173})
    ->Args({64, 7168, 2048, 12738})
    ->Args({256, 3072, 1536, 12219})
#if defined(WAVEKIT_EMULATOR)
    ->Iterations(1)
#else
    ->UseManualTime()
#endif
    ->Unit(benchmark::kMicrosecond);

WAVEKIT_BENCHMARK_MAIN("case", 48);
