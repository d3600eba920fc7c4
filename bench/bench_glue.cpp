// The inference glue around the GEMMs: residual + RMSNorm + fp8 (wavekit::rmsnorm_quant) and SwiGLU
// + fp8 (wavekit::swiglu_quant) at the seed's decode shapes, per-tensor and 1x128 scales:
// Llama 3.1 405B at TP8 (hidden 16384, fp16; SwiGLU's d = 53248 / 8 = 6656) and DeepSeek-V3
// (hidden 7168, bf16; d = 18432 / 8 = 2304), tokens 1 to 64; and hf-rocm-kernels' published rows
// (tokens x 16384 fp16 per-tensor, the norm at hidden 16384 and SwiGLU at d = 8192, tokens 1 to
// 2048), which docs/performance.md compares with. Each case is verified first against
// the host reference (bit for bit on the emulator). On a GPU: microseconds per call (operands
// evicted from L2 between calls) and the ideal bytes per second. On the CPU emulator: the bytes
// moved against the ideal (inputs read once, outputs written once): `read_vs_ideal` (the norm's
// weight counted once; it is read once a workgroup, L2 hits on a GPU: `weight_reads`), the
// bytes read counting each byte once (`distinct_read_vs_ideal`: what DRAM serves behind a cache
// holding the weight, 1.000) and `written_vs_ideal`, and no time.
#include <benchmark/benchmark.h>
#include <hip/hip_runtime.h>

#include <cstdio>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "support/device_fp8.hpp"
#include "support/device_upload.hpp"
#include "support/emulator_bench_main.hpp"
#include "support/fp8_rows_check.hpp"
#include "support/gpu_timing.hpp"
#include "support/predicted_counters.hpp"
#include "wavekit/host/reference_rmsnorm_quant.hpp"
#include "wavekit/host/reference_swiglu_quant.hpp"
#include "wavekit/ops/rmsnorm_quant.hpp"
#include "wavekit/ops/rmsnorm_quant/model.hpp"
#include "wavekit/ops/swiglu_quant.hpp"
#include "wavekit/ops/swiglu_quant/model.hpp"

using namespace wavekit;
namespace rq = wavekit::ops::rmsnorm_quant;
namespace sq = wavekit::ops::swiglu_quant;

namespace {

// SwiGLU's expf: the device library's (on the emulator its model) against the reference's host expf.
constexpr int expf_steps = 1;

template <class T>
std::vector<T> random_values(std::size_t n, std::uint32_t seed, float offset = 0.0f) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<T> v(n);
  for (T& e : v) e = saturate_cast<T>(offset + normal(rng));
  return v;
}

scale_granularity scaling_of(benchmark::State& state) {
  return state.range(2) ? scale_granularity::group_1x128 : scale_granularity::tensor;
}

bool failed(benchmark::State& state, const status& s, const test::fp8_rows_diff* d) {
  if (!s.ok()) {
    std::fprintf(stderr, "ERROR OCCURRED: %s\n", s.message().c_str());
    state.SkipWithError(s.message().c_str());
    return true;
  }
  if (d && !d->ok()) {
    std::fprintf(stderr, "ERROR OCCURRED: the result differs from the host reference: %s\n", d->first.c_str());
    state.SkipWithError("result differs from the host reference");
    return true;
  }
  return false;
}

template <class T, class Fp8>
void rmsnorm(benchmark::State& state) {
  const int tokens = int(state.range(0)), hidden = int(state.range(1));
  const rq::problem p{tokens, hidden, scaling_of(state), layout::k_contiguous, rq::residual_mode::add};
  const std::size_t n = std::size_t(tokens) * hidden;
  const auto x = random_values<T>(n, 1), residual = random_values<T>(n, 2), weight = random_values<T>(hidden, 3, 1.0f);
  T *d_x = test::upload(x), *d_res = test::upload(residual), *d_w = test::upload(weight);
  Fp8* d_q = test::upload(std::vector<Fp8>(n));
  float* d_scale = test::upload(std::vector<float>(n / 128 + 1));
  const rq::args<T, Fp8> a{d_x, d_res, d_w, d_q, d_scale, 0.05f, 1e-6f};
#if defined(WAVEKIT_EMULATOR)
  emu::reset_counters();
#endif
  status s = wavekit::rmsnorm_quant(p, a, nullptr);
  hipDeviceSynchronize();
#if defined(WAVEKIT_EMULATOR)
  const emu::launch_counters c = emu::last_launch_counters();
#endif
  test::fp8_rows_diff d;
  if (s.ok()) {
    const auto ref = host::reference_rmsnorm_quant<T, Fp8>(x, residual, weight, tokens, hidden, 1e-6f, p.out_scales,
                                                           0.05f, rq::row_threads);
    std::vector<Fp8> q(n);
    std::vector<float> scales(n / 128);
    hipMemcpy(q.data(), d_q, n, hipMemcpyDeviceToHost);
    hipMemcpy(scales.data(), d_scale, n / 128 * 4, hipMemcpyDeviceToHost);
    d = test::compare_fp8_rows(ref.out, q, scales, p.order);
  }
  const double scales = p.out_scales == scale_granularity::group_1x128 ? double(n) / 128 * 4 : 0.0;
  const double ideal_read = double(n) * 2 * sizeof(T) + hidden * double(sizeof(T));
  const double ideal_written = double(n) * (sizeof(T) + 1) + scales;
  if (!failed(state, s, &d)) {
    state.SetLabel(std::string(std::is_same_v<T, fp16> ? "fp16" : "bf16") + ", " + to_string(p.out_scales));
    test::set_predicted(state, rq::model_time(p, arch::current_device_arch().kind));
#if defined(WAVEKIT_EMULATOR)
    for (auto _ : state) {
    }
    state.counters["read_vs_ideal"] = double(c.global_bytes_read) / ideal_read;
    state.counters["written_vs_ideal"] = double(c.global_bytes_written) / ideal_written;
    state.counters["x_residual_read_once"] =
        double(c.bytes_read_from(d_x) + c.bytes_read_from(d_res)) / (double(n) * 2 * sizeof(T));
    state.counters["weight_reads"] = double(c.bytes_read_from(d_w)) / (hidden * double(sizeof(T)));
    state.counters["distinct_read_vs_ideal"] = double(c.global_bytes_read_distinct) / ideal_read;
#else
    test::time_calls(state, [&] { (void)wavekit::rmsnorm_quant(p, a, nullptr); });
    state.counters["ideal_bytes_per_s"] =
        benchmark::Counter(ideal_read + ideal_written, benchmark::Counter::kIsIterationInvariantRate);
#endif
  }
  hipFree(d_x), hipFree(d_res), hipFree(d_w), hipFree(d_q), hipFree(d_scale);
}

template <class T, class Fp8>
void swiglu(benchmark::State& state) {
  const int tokens = int(state.range(0)), d = int(state.range(1));
  const sq::problem p{tokens, d, scaling_of(state), layout::k_contiguous};
  const std::size_t n = std::size_t(tokens) * d;
  const auto x = random_values<T>(2 * n, 4);
  T* d_x = test::upload(x);
  Fp8* d_q = test::upload(std::vector<Fp8>(n));
  float* d_scale = test::upload(std::vector<float>(n / 128 + 1));
  const sq::args<T, Fp8> a{d_x, d_q, d_scale, 0.02f};
#if defined(WAVEKIT_EMULATOR)
  emu::reset_counters();
#endif
  status s = wavekit::swiglu_quant(p, a, nullptr);
  hipDeviceSynchronize();
#if defined(WAVEKIT_EMULATOR)
  const emu::launch_counters c = emu::last_launch_counters();
#endif
  test::fp8_rows_diff diff;
  if (s.ok()) {
    const auto ref = host::reference_swiglu_quant<T, Fp8>(x, tokens, d, p.out_scales, 0.02f);
    std::vector<Fp8> q(n);
    std::vector<float> scales(n / 128);
    hipMemcpy(q.data(), d_q, n, hipMemcpyDeviceToHost);
    hipMemcpy(scales.data(), d_scale, n / 128 * 4, hipMemcpyDeviceToHost);
    diff = test::compare_fp8_rows(ref.out, q, scales, p.order, expf_steps);
  }
  const double ideal_read = double(n) * 2 * sizeof(T);
  const double ideal_written = double(n) + (p.out_scales == scale_granularity::group_1x128 ? double(n) / 128 * 4 : 0.0);
  if (!failed(state, s, &diff)) {
    state.SetLabel(std::string(std::is_same_v<T, fp16> ? "fp16" : "bf16") + ", " + to_string(p.out_scales));
    test::set_predicted(state, sq::model_time(p, arch::current_device_arch().kind));
#if defined(WAVEKIT_EMULATOR)
    for (auto _ : state) {
    }
    state.counters["read_vs_ideal"] = double(c.global_bytes_read) / ideal_read;
    state.counters["written_vs_ideal"] = double(c.global_bytes_written) / ideal_written;
#else
    test::time_calls(state, [&] { (void)wavekit::swiglu_quant(p, a, nullptr); });
    state.counters["ideal_bytes_per_s"] =
        benchmark::Counter(ideal_read + ideal_written, benchmark::Counter::kIsIterationInvariantRate);
#endif
  }
  hipFree(d_x), hipFree(d_q), hipFree(d_scale);
}

// Llama 405B (hidden 16384, d 6656) and hf-rocm-kernels' rows (hidden 16384, d 8192) in fp16,
// DeepSeek-V3 (hidden 7168, d 2304) in bf16.
void rmsnorm_quant_bench(benchmark::State& state) {
  arch::with_device_fp8([&](auto fp8_format) {
    if (state.range(1) == 16384)
      rmsnorm<fp16, decltype(fp8_format)>(state);
    else
      rmsnorm<bf16, decltype(fp8_format)>(state);
  });
}
void swiglu_quant_bench(benchmark::State& state) {
  arch::with_device_fp8([&](auto fp8_format) {
    if (state.range(1) == 2304)
      swiglu<bf16, decltype(fp8_format)>(state);
    else
      swiglu<fp16, decltype(fp8_format)>(state);
  });
}

// hf-rocm-kernels' MI300X tables (per-tensor fp8, fp16): the rows the seed's decode shapes leave out.
void hf_rmsnorm_rows(benchmark::internal::Benchmark* b) {
  for (int tokens : {128, 256, 512, 1024, 2048}) b->Args({tokens, 16384, 0});
}
void hf_swiglu_rows(benchmark::internal::Benchmark* b) {
  for (int tokens : {1, 16, 64, 128, 256, 512, 1024, 2048}) b->Args({tokens, 8192, 0});
}

}  // namespace

BENCHMARK(rmsnorm_quant_bench)
    ->Name("rmsnorm_quant")
    ->ArgNames({"tokens", "hidden", "1x128"})
    ->ArgsProduct({{1, 8, 16, 32, 64}, {16384, 7168}, {0, 1}})
    ->Apply(hf_rmsnorm_rows)
#if defined(WAVEKIT_EMULATOR)
    ->Iterations(1)
#else
    ->UseManualTime()
#endif
    ->Unit(benchmark::kMicrosecond);

BENCHMARK(swiglu_quant_bench)
    ->Name("swiglu_quant")
    ->ArgNames({"tokens", "d", "1x128"})
    ->ArgsProduct({{1, 8, 16, 32, 64}, {6656, 2304}, {0, 1}})
    ->Apply(hf_swiglu_rows)
#if defined(WAVEKIT_EMULATOR)
    ->Iterations(1)
#else
    ->UseManualTime()
#endif
    ->Unit(benchmark::kMicrosecond);

WAVEKIT_BENCHMARK_MAIN("case", 48);
