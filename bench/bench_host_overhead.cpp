// Host time of each one-call API beyond its launches: validation, the plan (a warm plan cache: the
// process keeps each query's answer, planning/plan_cache.hpp), the cached device facts
// (arch::current_device_arch) and the kernel arguments, on decode-sized problems. The target is at
// most 1 us a call beside decode kernels of about 5 us.
//
// On the emulator the calls run inside emu::host_only_launches: every launch is checked and counted
// but runs no thread, so what is timed is host code alone. The cost of a launch itself is an empty
// kernel's launch in the same mode; beyond_launch_us = call_us - launches * launch_us. The counters
// are host times of this machine's CPU (the same host code the GPU build runs), not device times.
// On a GPU the calls are enqueued without synchronising in the timed loop (call_us, launch_us).
#include <benchmark/benchmark.h>
#include <hip/hip_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <vector>

#include "wavekit/ops/gemm_fp8_blockscale.hpp"
#include "wavekit/ops/gemm_fp8_scaled.hpp"
#include "wavekit/ops/gemm_half.hpp"
#include "wavekit/ops/mla_decode.hpp"
#include "wavekit/ops/moe.hpp"
#include "wavekit/ops/rmsnorm_quant.hpp"
#include "wavekit/ops/swiglu_quant.hpp"

namespace {

using namespace wavekit;
using clock_type = std::chrono::steady_clock;

__global__ void empty_kernel(int) {}

double microseconds_since(clock_type::time_point start) {
  return std::chrono::duration<double, std::micro>(clock_type::now() - start).count();
}

// Device memory the calls point into. On the emulator no kernel runs, so it is never read; it is
// allocated (and zeroed) all the same, so that every call passes its validation as a real one does.
class arena {
 public:
  template <class T>
  T* get(std::size_t count) {
    void* p = nullptr;
    const std::size_t bytes = std::max<std::size_t>(count * sizeof(T), 256);
    if (hipMalloc(&p, bytes) != hipSuccess || hipMemset(p, 0, bytes) != hipSuccess) return nullptr;
    blocks_.push_back(p);
    return static_cast<T*>(p);
  }
  ~arena() {
    for (void* p : blocks_) (void)hipFree(p);
  }

 private:
  std::vector<void*> blocks_;
};

// The launch itself: an empty kernel's, as the calls launch theirs.
double launch_us() {
  constexpr int launches = 2000;
  const auto start = clock_type::now();
  for (int i = 0; i < launches; ++i) hipLaunchKernelGGL(empty_kernel, dim3(1), dim3(64), 0, nullptr, i);
  const double us = microseconds_since(start) / launches;
  (void)hipDeviceSynchronize();
  return us;
}

template <class Call>
void time_call(benchmark::State& state, Call&& call) {
#if defined(WAVEKIT_EMULATOR)
  emu::host_only_launches host_only;
  emu::reset_counters();
#endif
  const status first = call();  // fills the plan cache
  if (!first.ok()) {
    state.SkipWithError(first.message().c_str());
    return;
  }
#if defined(WAVEKIT_EMULATOR)
  const double launches = double(emu::accumulated_counters().launches);
#endif
  const double one_launch_us = launch_us();
  std::int64_t calls = 0;
  const auto start = clock_type::now();
  for (auto _ : state) {
    const status s = call();
    benchmark::DoNotOptimize(s);
    ++calls;
  }
  const double call_us = microseconds_since(start) / double(std::max<std::int64_t>(calls, 1));
  (void)hipDeviceSynchronize();
  state.counters["call_us"] = call_us;
  state.counters["launch_us"] = one_launch_us;
#if defined(WAVEKIT_EMULATOR)
  state.counters["launches"] = launches;
  state.counters["beyond_launch_us"] = call_us - launches * one_launch_us;
#endif
}

void gemm_half_bf16(benchmark::State& state) {
  namespace gh = ops::gemm_half;
  arena m;
  const gh::problem p{16, 7168, 2048, layout::k_contiguous};
  using Args = gh::args<bf16, bf16>;
  const std::size_t ws = gemm_half_workspace_bytes<Args>(p).value();
  const Args a{m.get<bf16>(std::size_t(16) * 2048), m.get<bf16>(std::size_t(7168) * 2048),
               m.get<bf16>(std::size_t(16) * 7168), m.get<char>(ws), ws};
  time_call(state, [&] { return gemm_half(p, a, nullptr); });
}

void gemm_fp8_blockscale_decode(benchmark::State& state) {
  namespace gb = ops::gemm_fp8_blockscale;
  arch::with_device_fp8([&](auto fp8_format) {
    using Fp8 = decltype(fp8_format);
    arena m;
    const gb::problem p{16, 7168, 2048, layout::k_contiguous};
    using Args = gb::args<Fp8>;
    const std::size_t ws = gemm_fp8_blockscale_workspace_bytes<Args>(p).value();
    const Args a{m.get<Fp8>(std::size_t(16) * 2048),
                 m.get<Fp8>(std::size_t(7168) * 2048),
                 m.get<float>(std::size_t(16) * 16),
                 m.get<float>(std::size_t(56) * 16),
                 m.get<bf16>(std::size_t(16) * 7168),
                 m.get<char>(ws),
                 ws};
    time_call(state, [&] { return gemm_fp8_blockscale(p, a, nullptr); });
  });
}

void gemm_fp8_scaled_skinny(benchmark::State& state) {
  namespace gs = ops::gemm_fp8_scaled;
  arch::with_device_fp8([&](auto fp8_format) {
    using Fp8 = decltype(fp8_format);
    arena m;
    const gs::problem p{4, 7168, 2048, layout::k_contiguous, gs::scale_granularity::row, gs::scale_granularity::tensor};
    using Args = gs::args<Fp8, bf16>;
    const std::size_t ws = gemm_fp8_scaled_workspace_bytes<Args>(p).value();
    const Args a{m.get<Fp8>(std::size_t(4) * 2048),
                 m.get<Fp8>(std::size_t(7168) * 2048),
                 m.get<float>(4),
                 m.get<float>(1),
                 m.get<bf16>(std::size_t(4) * 7168),
                 m.get<char>(ws),
                 ws};
    time_call(state, [&] { return gemm_fp8_scaled(p, a, nullptr); });
  });
}

void moe_decode_bf16(benchmark::State& state) {
  namespace moe = ops::moe;
  arena m;
  const int tokens = 16, hidden = 2048, dim = 256, experts = 64, top_k = 8;
  const moe::problem p{tokens, hidden, dim, experts, top_k, 0, experts, layout::mn_contiguous};
  using Args = moe::args<bf16>;
  const std::size_t ws = moe_workspace_bytes<Args>(p).value();
  bf16* weights = m.get<bf16>(std::size_t(3) * experts * hidden * dim);
  std::vector<const bf16*> gate(experts), up(experts), down(experts);
  for (int e = 0; e < experts; ++e) {
    gate[e] = weights + std::size_t(3 * e) * hidden * dim;
    up[e] = gate[e] + std::size_t(hidden) * dim;
    down[e] = up[e] + std::size_t(hidden) * dim;
  }
  auto table = [&](const std::vector<const bf16*>& host) {
    const bf16** d = m.get<const bf16*>(host.size());
    (void)hipMemcpy(d, host.data(), host.size() * sizeof(bf16*), hipMemcpyHostToDevice);
    return d;
  };
  const Args a{m.get<bf16>(std::size_t(tokens) * hidden),
               m.get<int>(std::size_t(tokens) * top_k),
               m.get<float>(std::size_t(tokens) * top_k),
               table(gate),
               table(up),
               table(down),
               m.get<bf16>(std::size_t(tokens) * hidden),
               m.get<char>(ws),
               ws};
  time_call(state, [&] { return wavekit::moe(p, a, nullptr); });
}

void mla_decode_bf16(benchmark::State& state) {
  namespace mla = ops::mla_decode;
  arena m;
  const int batch = 32, heads = 16, kv_len = 1024;
  std::vector<int> qo(batch + 1), kv(batch + 1);
  for (int b = 0; b <= batch; ++b) qo[b] = b, kv[b] = b * kv_len;
  const mla::problem p{batch, heads, mla::kv_layout::ragged, 1, batch * kv_len, 0, 1.0f / std::sqrt(576.0f)};
  const mla::sequences_view s{qo, kv, {}, {}};
  const mla::split_plan plan = mla_decode_plan(p, s).value();
  const std::size_t ws = mla::workspace_bytes(p, s, plan).value();
  int* d_qo = m.get<int>(qo.size());
  int* d_kv = m.get<int>(kv.size());
  (void)hipMemcpy(d_qo, qo.data(), qo.size() * sizeof(int), hipMemcpyHostToDevice);
  (void)hipMemcpy(d_kv, kv.data(), kv.size() * sizeof(int), hipMemcpyHostToDevice);
  const mla::args<bf16> a{m.get<bf16>(std::size_t(batch) * heads * 576),
                          m.get<bf16>(std::size_t(batch) * kv_len * 576),
                          d_qo,
                          d_kv,
                          nullptr,
                          nullptr,
                          m.get<bf16>(std::size_t(batch) * heads * 512),
                          nullptr,
                          m.get<char>(ws),
                          ws};
  time_call(state, [&] { return mla_decode(p, s, a, plan, nullptr); });
}

void rmsnorm_quant_decode(benchmark::State& state) {
  namespace rq = ops::rmsnorm_quant;
  arch::with_device_fp8([&](auto fp8_format) {
    using Fp8 = decltype(fp8_format);
    arena m;
    const int tokens = 16, hidden = 7168;
    const rq::problem p{tokens, hidden, scale_granularity::group_1x128, layout::k_contiguous, rq::residual_mode::add};
    const rq::args<bf16, Fp8> a{m.get<bf16>(std::size_t(tokens) * hidden),
                                m.get<bf16>(std::size_t(tokens) * hidden),
                                m.get<bf16>(hidden),
                                m.get<Fp8>(std::size_t(tokens) * hidden),
                                m.get<float>(std::size_t(tokens) * hidden / 128),
                                1.0f,
                                1e-6f};
    time_call(state, [&] { return rmsnorm_quant(p, a, nullptr); });
  });
}

void swiglu_quant_decode(benchmark::State& state) {
  namespace sq = ops::swiglu_quant;
  arch::with_device_fp8([&](auto fp8_format) {
    using Fp8 = decltype(fp8_format);
    arena m;
    const int tokens = 16, d = 2048;
    const sq::problem p{tokens, d, scale_granularity::group_1x128, layout::mn_contiguous};
    const sq::args<bf16, Fp8> a{m.get<bf16>(std::size_t(tokens) * 2 * d), m.get<Fp8>(std::size_t(tokens) * d),
                                m.get<float>(std::size_t(tokens) * d / 128)};
    time_call(state, [&] { return swiglu_quant(p, a, nullptr); });
  });
}

}  // namespace

BENCHMARK(gemm_half_bf16);
BENCHMARK(gemm_fp8_blockscale_decode);
BENCHMARK(gemm_fp8_scaled_skinny);
BENCHMARK(moe_decode_bf16);
BENCHMARK(mla_decode_bf16);
BENCHMARK(rmsnorm_quant_decode);
BENCHMARK(swiglu_quant_decode);

BENCHMARK_MAIN();
