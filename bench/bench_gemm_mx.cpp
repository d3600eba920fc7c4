// The MX GEMM over its reference problems, each case verified first against the exact product of
// its quantized operands (test/support/gemm_mx_case.hpp's bound):
//   mxfp4_gemm: amd-mxfp4-mm's form (A bf16 quantized as each tile loads, B and its scales
//     pre-shuffled by aiter's layouts) over the problem's 4 test and 6 benchmark shapes, with
//     aiter's published time beside each benchmark shape (`aiter_us`, shared/reference/problems.md;
//     0 where none was published);
//   mxfp8_decode: aiter PR #3783's dense MXFP8 shapes (15 (K, N) pairs of MiniMax-M3 per GPU, M 1
//     to 64; the PR publishes speedups, no times), through the dispatch (GEMV or MFMAs).
// On a GPU: microseconds per call, operands evicted from L2 between calls. On the CPU emulator
// (gfx950): one call, reporting the bytes read against every operand read once and against the
// design (B once, A once per N tile, the split-K partials), B's bytes read per B byte, MFMAs and
// bank conflicts, and no time.
#include <benchmark/benchmark.h>
#include <hip/hip_runtime.h>

#include <cstdio>
#include <string>

#include "support/emulator_bench_main.hpp"
#include "support/gemm_mx_case.hpp"
#include "support/gpu_timing.hpp"
#include "support/predicted_counters.hpp"
#include "wavekit/ops/gemm_mx.hpp"
#include "wavekit/ops/gemm_mx/model.hpp"

using namespace wavekit;
namespace gx = wavekit::ops::gemm_mx;

namespace {

// One verified call of problem p through the one-call API, and its counters or times.
template <class Case>
void run_case(benchmark::State& state, const gx::problem& p, double a_bytes) {
  Case t(p, 7, 16);
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
  test::set_predicted(state, gx::model_time(p, ran.plan));
#if defined(WAVEKIT_EMULATOR)
  for (auto _ : state) {
  }
  const double b_data = double(p.n) * p.k * gx::element_bits(p.format) / 8, b_bytes = b_data + double(p.n) * p.k / 32;
  const int block_n = gx::plan_block_n(ran.plan);
  const double partials = ran.plan.splits > 1 ? double(ran.plan.splits) * p.m * p.n * 4 : 0.0;
  state.counters["splits"] = ran.plan.splits;
  state.counters["global_MB_read"] = double(c.global_bytes_read) / 1e6;
  state.counters["read_vs_operands_once"] = double(c.global_bytes_read) / (a_bytes + b_bytes);
  state.counters["read_vs_b_once_a_per_n_tile"] =
      double(c.global_bytes_read) / (b_bytes + (p.n + block_n - 1) / block_n * a_bytes + partials);
  state.counters["b_reads"] = double(c.bytes_read_from(t.b)) / b_data;
  state.counters["mfma"] = double(c.mfma_total());
  state.counters["lds_bank_conflict_cycles"] = double(c.lds_bank_conflict_cycles);
#else
  test::time_calls(state, [&] { (void)gemm_mx(p, t.args(), nullptr); });
#endif
}

void mxfp4_gemm(benchmark::State& state) {
  const int m = int(state.range(0)), n = int(state.range(1)), k = int(state.range(2));
  const gx::problem p{m, n, k, gx::mx_format::mxfp4, gx::a_storage::bf16, gx::b_layout::preshuffled};
  state.counters["aiter_us"] = double(state.range(3)) / 1000.0;
  run_case<test::gemm_mx_quantizing_a_case<bf16, bf16>>(state, p, double(m) * k * 2);
}

void mxfp8_decode(benchmark::State& state) {
  const int m = int(state.range(0)), n = int(state.range(1)), k = int(state.range(2));
  const gx::problem p{m, n, k, gx::mx_format::mxfp8, gx::a_storage::mx, gx::b_layout::plain};
  run_case<test::gemm_mx_case<fp8_e4m3fn, bf16>>(state, p, double(m) * k * (1 + 1.0 / 32));
}

// PR #3783's dense (K, N) pairs, each for M in {1, 2, 4, 8, 16, 32, 64}.
void pr3783_dense_shapes(benchmark::internal::Benchmark* b) {
  const int pairs[][2] = {{6144, 2304}, {2048, 6144}, {6144, 1536}, {1536, 6144}, {6144, 1152},
                          {6144, 768},  {1024, 6144}, {768, 6144},  {6144, 9216}, {6144, 6144},
                          {8192, 6144}, {6144, 4608}, {6144, 3072}, {4096, 6144}, {3072, 6144}};
  for (const auto& [k, n] : pairs)
    for (int m : {1, 2, 4, 8, 16, 32, 64}) b->Args({m, n, k});
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

BENCHMARK(mxfp8_decode)
    ->Name("mxfp8_decode")
    ->ArgNames({"m", "n", "k"})
    ->Apply(pr3783_dense_shapes)
#if defined(WAVEKIT_EMULATOR)
    ->Iterations(1)
#else
    ->UseManualTime()
#endif
    ->Unit(benchmark::kMicrosecond);

WAVEKIT_BENCHMARK_MAIN("case", 48);
