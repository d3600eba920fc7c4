// The block-scaled fp8 GEMM over the 18 amd-fp8-mm benchmark shapes (mn_contiguous, the reference
// problem's order), through wavekit::gemm_fp8_blockscale. Each shape is verified against the host
// reference before it is timed. On a GPU: microseconds per call (L2 flushed between calls by
// overwriting a 512 MiB buffer) and TFLOPS. On the CPU emulator: one call per shape, reporting its
// counters (MFMAs, global bytes against the ideal, barriers, LDS bank conflicts) and the
// emulator's own throughput, and no time: a CPU time says nothing of a GPU's. The emulator does
// about 1 GFLOP/s per core, so a shape takes about 2*M*N*K / (1e9 * cores) seconds plus as long
// again for the host reference: from 4 s (1024x7168x256) to 7 minutes (6144x4608x7168) on 2
// cores, over 20 minutes for all 18; pick shapes with --benchmark_filter
// (docs/gemm-fp8-blockscale.md).
#include <benchmark/benchmark.h>
#include <hip/hip_runtime.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "support/blockscale_case.hpp"
#include "support/emulator_bench_main.hpp"
#include "support/gpu_timing.hpp"
#include "support/predicted_counters.hpp"
#include "wavekit/arch/device.hpp"
#include "wavekit/ops/gemm_fp8_blockscale.hpp"
#include "wavekit/ops/gemm_fp8_blockscale/model.hpp"

using namespace wavekit;
namespace gb = wavekit::ops::gemm_fp8_blockscale;

namespace {

// One shape with the fp8 format of the device (arch::with_device_fp8: asked of the GPU at run
// time, the emulated target's on the emulator).
template <class fp8>
void blockscale_shape(benchmark::State& state) {
  const gb::problem p{static_cast<int>(state.range(0)), static_cast<int>(state.range(1)),
                      static_cast<int>(state.range(2)), layout::mn_contiguous};
  const double flops = 2.0 * p.m * p.n * p.k;
#if defined(WAVEKIT_EMULATOR)
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  std::fprintf(stderr, "emulating %s: about %.0f s on %u cores (emulator and host reference)\n", p.str().c_str(),
               2 * flops / (1e9 * cores), cores);
#endif
  test::blockscale_case<fp8> t(p, 8135, 16);
#if defined(WAVEKIT_EMULATOR)
  emu::reset_counters();
  const auto start = std::chrono::steady_clock::now();
#endif
  gb::plan_info ran;
  if (status s = gemm_fp8_blockscale(p, t.args(), nullptr, &ran); !s.ok()) {
    std::fprintf(stderr, "ERROR OCCURRED: %s\n", s.message().c_str());
    state.SkipWithError(s.message().c_str());
    return;
  }
  state.SetLabel(ran.name);
  test::set_predicted(state, gb::model_time(p, ran.plan, arch::current_device_arch().kind));
#if defined(WAVEKIT_EMULATOR)
  const double emulated_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
#endif
  if (t.check(t.reference(), ran.plan.splits, "bench") != 0) {
    std::fprintf(stderr, "ERROR OCCURRED: %s: result differs from the host reference\n", p.str().c_str());
    state.SkipWithError("result differs from the host reference");
    return;
  }
#if defined(WAVEKIT_EMULATOR)
  const emu::launch_counters c = emu::accumulated_counters();
  for (auto _ : state) {
  }
  // Reads over the bytes of A, B and their scales (each read once): the tiles re-read operands,
  // which a GPU's L2 serves; the emulator counts every kernel-side read.
  const double once = double(p.m) * p.k + double(p.n) * p.k + 4.0 * p.k_groups() * (p.m + p.n_groups());
  state.counters["mfma"] = static_cast<double>(c.mfma_total());
  state.counters["global_MB_read"] = static_cast<double>(c.global_bytes_read) / 1e6;
  state.counters["read_vs_once"] = static_cast<double>(c.global_bytes_read) / once;
  state.counters["global_MB_written"] = static_cast<double>(c.global_bytes_written) / 1e6;
  state.counters["barriers"] = static_cast<double>(c.barriers);
  state.counters["lds_bank_conflict_cycles"] = static_cast<double>(c.lds_bank_conflict_cycles);
  state.counters["emulated_GFLOP_per_s"] = flops / emulated_seconds / 1e9;
#else
  test::time_calls(state, [&] { (void)gemm_fp8_blockscale(p, t.args(), nullptr); });
  state.counters["TFLOPS"] = benchmark::Counter(flops * 1e-12, benchmark::Counter::kIsIterationInvariantRate);
#endif
}

void blockscale(benchmark::State& state) {
  const arch::device_arch device = arch::current_device_arch();
  if (device.kind == arch::target::host) {
    state.SkipWithError(("device '" + device.name + "' is neither gfx942 nor gfx950").c_str());
    return;
  }
  arch::with_device_fp8([&](auto fp8_format) { blockscale_shape<decltype(fp8_format)>(state); });
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

WAVEKIT_BENCHMARK_MAIN("shape", 32);
