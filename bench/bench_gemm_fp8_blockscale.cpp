// The block-scaled fp8 GEMM over the 18 amd-fp8-mm benchmark shapes (mn_contiguous, the reference
// problem's order), through wavekit::gemm_fp8_blockscale. Each shape is verified against the host
// reference before it is timed. On a GPU: microseconds per call (L2 flushed between calls by
// overwriting a 512 MiB buffer) and TFLOPS. On the CPU emulator: one call, with its counters.
#include <benchmark/benchmark.h>
#include <hip/hip_runtime.h>

#include <cmath>
#include <string>

#include "support/blockscale_case.hpp"
#include "wavekit/arch/target.hpp"
#include "wavekit/config/gemm_fp8_blockscale.hpp"

using namespace wavekit;
using fp8 = std::conditional_t<arch::current_target == arch::target::gfx950, fp8_e4m3fn, fp8_e4m3fnuz>;

namespace {

void blockscale(benchmark::State& state) {
  const gemm_fp8_blockscale_problem p{static_cast<int>(state.range(0)), static_cast<int>(state.range(1)),
                                      static_cast<int>(state.range(2)), layout::mn_contiguous};
  test::blockscale_case<fp8> t(p, 8135, 16);
  state.SetLabel(gemm_fp8_blockscale_plan_name(p, t.workspace_bytes));
#if defined(WAVEKIT_EMULATOR)
  emu::reset_counters();
#endif
  if (status s = gemm_fp8_blockscale(p, t.args(), nullptr); !s.ok()) {
    state.SkipWithError(s.message().c_str());
    return;
  }
  const int splits = config::choose_blockscale_plan(p, t.workspace_bytes).splits;
  if (t.check(t.reference(), splits, "bench") != 0) {
    state.SkipWithError("result differs from the host reference");
    return;
  }
#if defined(WAVEKIT_EMULATOR)
  const emu::launch_counters c = emu::accumulated_counters();
  for (auto _ : state) {
  }
  state.counters["mfma"] = static_cast<double>(c.mfma_total());
  state.counters["global_MB_read"] = static_cast<double>(c.global_bytes_read) / 1e6;
  state.counters["global_MB_written"] = static_cast<double>(c.global_bytes_written) / 1e6;
  state.counters["barriers"] = static_cast<double>(c.barriers);
  state.counters["lds_bank_conflict_cycles"] = static_cast<double>(c.lds_bank_conflict_cycles);
#else
  void* flush = nullptr;
  const std::size_t flush_bytes = std::size_t(512) << 20;
  hipMalloc(&flush, flush_bytes);
  hipEvent_t start, stop;
  hipEventCreate(&start), hipEventCreate(&stop);
  for (auto _ : state) {
    hipMemsetAsync(flush, 0, flush_bytes, nullptr);  // evict the operands from L2 and MALL
    hipEventRecord(start, nullptr);
    (void)gemm_fp8_blockscale(p, t.args(), nullptr);
    hipEventRecord(stop, nullptr);
    hipEventSynchronize(stop);
    float ms = 0;
    hipEventElapsedTime(&ms, start, stop);
    state.SetIterationTime(ms / 1e3);
  }
  state.counters["TFLOPS"] = benchmark::Counter(2e-12 * p.m * p.n * p.k, benchmark::Counter::kIsIterationInvariantRate);
  hipEventDestroy(start), hipEventDestroy(stop), hipFree(flush);
#endif
}

}  // namespace

BENCHMARK(blockscale)
    ->ArgNames({"M", "N", "K"})
    ->Args({1024, 1536, 7168})
    ->Args({1024, 3072, 1536})
    ->Args({1024, 576, 7168})
    ->Args({1024, 7168, 256})
    ->Args({1024, 7168, 2048})
    ->Args({1024, 4608, 7168})
    ->Args({1024, 7168, 2304})
    ->Args({1024, 512, 7168})
    ->Args({1024, 4096, 512})
    ->Args({6144, 1536, 7168})
    ->Args({6144, 3072, 1536})
    ->Args({6144, 576, 7168})
    ->Args({6144, 7168, 256})
    ->Args({6144, 7168, 2048})
    ->Args({6144, 4608, 7168})
    ->Args({6144, 7168, 2304})
    ->Args({6144, 512, 7168})
    ->Args({6144, 4096, 512})
#if defined(WAVEKIT_EMULATOR)
    ->Iterations(1)
#else
    ->UseManualTime()
#endif
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_MAIN();
