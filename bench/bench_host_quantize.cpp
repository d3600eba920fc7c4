// Throughput of the host quantizers (they prepare every test's and benchmark's inputs, so their
// speed bounds how large a problem the suite can check). Each benchmark first verifies the
// round trip against the format's error bound and reports it as a counter.
#include <benchmark/benchmark.h>

#include <cmath>
#include <random>
#include <vector>

#include "wavekit/host/quantize_blockscale.hpp"
#include "wavekit/host/quantize_mx.hpp"

namespace {

std::vector<float> normal_values(int rows, int cols) {
  std::vector<float> x(std::size_t(rows) * cols);
  std::mt19937 rng(5);
  std::normal_distribution<float> dist(0.0f, 1.0f);
  for (float& v : x) v = dist(rng);
  return x;
}

template <class Quantize>
void run(benchmark::State& state, Quantize quantize, double bound) {
  const int rows = static_cast<int>(state.range(0)), cols = static_cast<int>(state.range(1));
  const std::vector<float> x = normal_values(rows, cols);
  const std::vector<float> back = wavekit::host::dequantize(quantize(x, rows, cols));
  double amax = 0.0, worst = 0.0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    amax = std::fmax(amax, std::fabs(x[i]));
    worst = std::fmax(worst, std::fabs(double(back[i]) - x[i]));
  }
  state.counters["rel_error"] = worst / amax;
  if (worst / amax > bound) {
    state.SkipWithError("round-trip error above the format's bound");
    return;
  }
  for (auto _ : state) benchmark::DoNotOptimize(quantize(x, rows, cols));
  state.SetItemsProcessed(state.iterations() * std::int64_t(x.size()));
}

void fp8_1x128(benchmark::State& s) {
  run(
      s, [](auto& x, int r, int c) { return wavekit::host::quantize_fp8_1x128<wavekit::fp8_e4m3fnuz>(x, r, c); },
      1.0 / 16);
}
void fp8_128x128(benchmark::State& s) {
  run(
      s, [](auto& x, int r, int c) { return wavekit::host::quantize_fp8_128x128<wavekit::fp8_e4m3fn>(x, r, c); },
      1.0 / 16);
}
void mxfp4(benchmark::State& s) {
  run(s, [](auto& x, int r, int c) { return wavekit::host::quantize_mx<wavekit::fp4_e2m1>(x, r, c); }, 1.0 / 4);
}

}  // namespace

BENCHMARK(fp8_1x128)->Args({1024, 7168})->Unit(benchmark::kMillisecond);
BENCHMARK(fp8_128x128)->Args({1536, 7168})->Unit(benchmark::kMillisecond);
BENCHMARK(mxfp4)->Args({1024, 7168})->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
