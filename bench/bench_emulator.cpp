// Emulated throughput of the CPU emulator: how many fp8 MFMA FLOPs per second it executes on a
// matrix-core-bound kernel, and on gemm_fp8_direct (which also loads its operands). Results are
// verified first: the MFMA loop against a closed form, the GEMM against the host reference.
// Counters: GFLOPS emulated (all worker threads) and GFLOPS_per_core.
#include <benchmark/benchmark.h>
#include <hip/hip_runtime.h>

#include <cmath>
#include <random>
#include <thread>
#include <vector>

#include "wavekit/host/reference_gemm.hpp"
#include "wavekit/ops/gemm_fp8_direct/kernel.hpp"

using namespace wavekit;

namespace {

// Each wave runs `iters` MFMAs on register operands: A = B = all 1.0 (fnuz 0x40).
__global__ void mfma_chain(float* out, int iters) {
  floatx16 acc = {};
  const long ones = 0x4040404040404040L;
  for (int i = 0; i < iters; ++i) acc = __builtin_amdgcn_mfma_f32_32x32x16_fp8_fp8(ones, ones, acc, 0, 0, 0);
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc[0];
}

void report(benchmark::State& state, double flop_per_iteration) {
  const double cores = std::max(1u, std::thread::hardware_concurrency());
  state.counters["GFLOPS"] =
      benchmark::Counter(flop_per_iteration * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["GFLOPS_per_core"] =
      benchmark::Counter(flop_per_iteration * 1e-9 / cores, benchmark::Counter::kIsIterationInvariantRate);
}

void mfma_bound(benchmark::State& state) {
  const int blocks = 16, threads = 256, iters = 64;
  float* out;
  hipMalloc(&out, blocks * threads * sizeof(float));
  hipLaunchKernelGGL(mfma_chain, dim3(blocks), dim3(threads), 0, nullptr, out, iters);
  if (hipGetLastError() != hipSuccess || out[0] != 16.0f * iters) state.SkipWithError("wrong MFMA result");
  for (auto _ : state) hipLaunchKernelGGL(mfma_chain, dim3(blocks), dim3(threads), 0, nullptr, out, iters);
  report(state, 2.0 * 32 * 32 * 16 * iters * (threads / 64) * blocks);
  hipFree(out);
}

void gemm_direct(benchmark::State& state) {
  const int m = static_cast<int>(state.range(0)), n = static_cast<int>(state.range(1)),
            k = static_cast<int>(state.range(2));
  std::mt19937 rng(7);
  std::normal_distribution<float> dist(0.0f, 1.0f);
  fp8_e4m3fnuz *a, *b;
  float* c;
  hipMalloc(&a, std::size_t(m) * k), hipMalloc(&b, std::size_t(n) * k), hipMalloc(&c, sizeof(float) * m * n);
  for (std::size_t i = 0; i < std::size_t(m) * k; ++i) a[i] = saturate_cast<fp8_e4m3fnuz>(dist(rng));
  for (std::size_t i = 0; i < std::size_t(n) * k; ++i) b[i] = saturate_cast<fp8_e4m3fnuz>(dist(rng));
  const ops::gemm_fp8_direct::op<fp8_e4m3fnuz>::args args{a, b, c, m, n, k};
  if (!ops::gemm_fp8_direct::launch<fp8_e4m3fnuz>(args, nullptr).ok()) state.SkipWithError("launch failed");
  auto av = [&](int i, int kk) { return double(to_float(a[std::size_t(i) * k + kk])); };
  auto bv = [&](int j, int kk) { return double(to_float(b[std::size_t(j) * k + kk])); };
  const std::vector<double> ref = host::reference_gemm_nt(m, n, k, av, bv);
  double worst = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) worst = std::fmax(worst, std::fabs(c[i] - ref[i]));
  state.counters["max_abs_error"] = worst;
  if (worst > 1e-2) state.SkipWithError("GEMM result differs from the reference");
  for (auto _ : state) {
    const status s = ops::gemm_fp8_direct::launch<fp8_e4m3fnuz>(args, nullptr);
    if (!s.ok()) state.SkipWithError(s.message().c_str());
  }
  report(state, 2.0 * m * n * k);
  hipFree(a), hipFree(b), hipFree(c);
}

}  // namespace

BENCHMARK(mfma_bound)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(gemm_direct)->Args({256, 256, 1024})->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_MAIN();
