// The MoE layer (wavekit::moe) over the reference problems' configurations: amd-mixture-of-experts
// (2025: fp16, weights [d_hidden, d_expert] as stored, top-4 + 1 shared expert) and the shapes of
// amd-moe-mxfp4 (2026: top-8 + shared; with bf16 weights in moe_layer, and in the problem's own
// form, MXFP4 weights pre-shuffled, in moe_layer_mxfp4, which needs gfx950: bench_moe_gfx950
// on the emulator).
// Each configuration is verified first: 16 tokens spread over the batch against the host reference.
// moe_layer_fp8 runs fp8 block-scaled expert weights (DeepSeek-V3's) over the same kind of shapes.
// On a GPU: microseconds per call, operands evicted from L2 between calls. On the CPU emulator:
// one call, reporting the bytes read against the weights of the experts that had tokens (each is
// to be read once: the ratio `read_vs_weights_once`), MFMAs and bank conflicts, and no time. The
// emulator does about 0.16 G multiply-adds per second on bf16/fp16 MFMAs: the E = 257, d_expert 256
// decode batch takes about a minute, the prefill configurations hours; pick with --benchmark_filter.
// Every case also prints the performance model's time for the config that ran over its routing,
// with the calibrated interval (predicted_us, predicted_low_us, predicted_high_us).
#include <benchmark/benchmark.h>
#include <hip/hip_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "support/emulator_bench_main.hpp"
#include "support/gpu_timing.hpp"
#include "support/moe_blockscale_case.hpp"
#include "support/moe_case.hpp"
#include "support/moe_mx_case.hpp"
#include "support/predicted_counters.hpp"
#include "wavekit/ops/moe.hpp"

using namespace wavekit;
namespace moe = wavekit::ops::moe;

namespace {

// One call of the layer (the emulator's counters reset first), labelled with the config that ran,
// with the model's prediction for that config over this routing (its calibrated interval beside
// it); nothing (the benchmark skipped with the status) when it refuses.
template <class Args>
std::optional<std::string> run_once(benchmark::State& state, const moe::problem& p, const Args& a,
                                    moe::weight_format weights, const std::vector<int>& ids) {
#if defined(WAVEKIT_EMULATOR)
  emu::reset_counters();
#endif
  moe::plan_info ran;
  if (status s = wavekit::moe(p, a, nullptr, &ran); !s.ok()) {
    std::fprintf(stderr, "ERROR OCCURRED: %s\n", s.message().c_str());
    state.SkipWithError(s.message().c_str());
    return std::nullopt;
  }
  hipDeviceSynchronize();
  state.SetLabel(ran.name);
  test::set_predicted(
      state, moe::model_time(p, weights, ran.config, moe::expert_rows(p, ids), arch::current_device_arch().kind));
  return ran.name;
}

#if defined(WAVEKIT_EMULATOR)
// On the emulator: one call's counters, the bytes read against the active experts' weights (each
// to be read once) with x read and the output written once.
void report_counters(benchmark::State& state, const emu::launch_counters& c, const std::vector<int>& ids,
                     std::size_t weight_bytes, int tokens, int hidden) {
  for (auto _ : state) {
  }
  const double activations = 2.0 * 2 * double(tokens) * hidden;
  state.counters["active_experts"] = double(std::set<int>(ids.begin(), ids.end()).size());
  state.counters["global_MB_read"] = double(c.global_bytes_read) / 1e6;
  state.counters["read_vs_weights_once"] = double(c.global_bytes_read) / (double(weight_bytes) + activations);
  state.counters["mfma"] = double(c.mfma_total());
  state.counters["lds_bank_conflict_cycles"] = double(c.lds_bank_conflict_cycles);
}
#endif

// Arguments: tokens, hidden, expert dim, routed experts, top-k (a shared expert is added), dtype
// (0 fp16, 1 bf16).
template <class T>
void moe_config(benchmark::State& state) {
  const int tokens = int(state.range(0)), hidden = int(state.range(1)), dim = int(state.range(2));
  const int routed = int(state.range(3)), top_k = int(state.range(4));
  const moe::problem p{tokens, hidden, dim, routed + 1, top_k + 1, 0, routed + 1, layout::mn_contiguous};
  const std::vector<int> ids = test::random_ids_with_shared(tokens, top_k, routed, 7);
  test::moe_case<T> t(p, ids, 11, moe::workspace_bytes(p).value());
  if (!run_once(state, p, t.args(), moe::weight_format::half, ids)) return;
#if defined(WAVEKIT_EMULATOR)
  const emu::launch_counters c = emu::accumulated_counters();
#endif
  // Verify 16 tokens spread over the batch (each token's result depends on its row only).
  const int sampled = std::min(tokens, 16);
  moe::problem q = p;
  q.tokens = sampled;
  std::vector<T> xs;
  std::vector<int> ids_s;
  std::vector<float> weights_s;
  std::vector<int> rows;
  for (int i = 0; i < sampled; ++i) {
    const int token = int(std::int64_t(i) * tokens / sampled);
    rows.push_back(token);
    xs.insert(xs.end(), t.x.begin() + std::size_t(token) * hidden, t.x.begin() + std::size_t(token + 1) * hidden);
    ids_s.insert(ids_s.end(), ids.begin() + std::size_t(token) * (top_k + 1),
                 ids.begin() + std::size_t(token + 1) * (top_k + 1));
    weights_s.insert(weights_s.end(), t.weights.begin() + std::size_t(token) * (top_k + 1),
                     t.weights.begin() + std::size_t(token + 1) * (top_k + 1));
  }
  const auto ref = host::reference_moe(q, xs, ids_s, weights_s, t.w);
  const std::vector<T> got = t.output();
  const double ulp = std::is_same_v<T, bf16> ? 0x1p-7 : 0x1p-10;
  for (int i = 0; i < sampled; ++i)
    for (int col = 0; col < hidden; ++col) {
      const std::size_t r = std::size_t(i) * hidden + col;
      const double g = widen_to_float(got[std::size_t(rows[i]) * hidden + col]), e = ref.out[r];
      const double bound = (3 * ulp + (hidden + dim) * 0x1p-23) * ref.magnitude[r] + 2 * ulp * std::fabs(e);
      if (!(std::fabs(g - e) <= bound)) {
        std::fprintf(stderr, "ERROR OCCURRED: %s: token %d column %d differs from the host reference\n",
                     p.str().c_str(), rows[i], col);
        state.SkipWithError("result differs from the host reference");
        return;
      }
    }
#if defined(WAVEKIT_EMULATOR)
  report_counters(state, c, ids, t.active_weight_bytes(), tokens, hidden);
#else
  test::time_calls(state, [&] { (void)wavekit::moe(p, t.args(), nullptr); });
#endif
}

void moe_layer(benchmark::State& state) {
  if (state.range(5) == 0)
    moe_config<fp16>(state);
  else
    moe_config<bf16>(state);
}

// fp8 block-scaled expert weights (DeepSeek-V3's storage: nn.Linear order, 128x128 fp32 scales;
// x in bf16, quantized 1x128 inside), top-k + 1 shared expert. Verified in full first
// (test/support/moe_blockscale_case.hpp's three checks). Arguments: tokens, hidden, expert dim,
// routed experts, top-k.
void moe_layer_fp8(benchmark::State& state) {
  arch::with_device_fp8([&](auto fp8_format) {
    using fp8 = decltype(fp8_format);
    const int tokens = int(state.range(0)), hidden = int(state.range(1)), dim = int(state.range(2));
    const int routed = int(state.range(3)), top_k = int(state.range(4));
    const moe::problem p{tokens, hidden, dim, routed + 1, top_k + 1, 0, routed + 1, layout::k_contiguous};
    const std::vector<int> ids = test::random_ids_with_shared(tokens, top_k, routed, 7);
    const std::size_t workspace = moe::workspace_bytes(p, 2, moe::weight_format::fp8_blockscale).value();
    test::moe_blockscale_case<bf16, fp8> t(p, ids, 11, workspace);
    const std::optional<std::string> ran = run_once(state, p, t.args(), moe::weight_format::fp8_blockscale, ids);
    if (!ran) return;
#if defined(WAVEKIT_EMULATOR)
    const emu::launch_counters c = emu::accumulated_counters();
#endif
    const int tile_m = moe::blockscale::with_config(
        moe::choose_blockscale_config(p, arch::current_device_arch().kind, workspace),  // the call's plan
        [](auto cfg) { return decltype(cfg)::block_m; });
    if (t.check_standard(tile_m, ran->c_str()) != 0) {
      std::fprintf(stderr, "ERROR OCCURRED: %s differs from the host reference\n", p.str().c_str());
      state.SkipWithError("result differs from the host reference");
      return;
    }
#if defined(WAVEKIT_EMULATOR)
    report_counters(state, c, ids, t.active_weight_bytes(), tokens, hidden);
#else
    test::time_calls(state, [&] { (void)wavekit::moe(p, t.args(), nullptr); });
#endif
  });
}

// MXFP4 expert weights in amd-moe-mxfp4's form (gfx950: nn.Linear order, a fused [gate; up] and
// the scales pre-shuffled by aiter's layouts; x in bf16, quantized to MXFP4 inside), top-k + 1
// shared expert, aiter's published time beside each benchmark shape (`aiter_us`, 0 for the test
// shapes). Verified in full first (test/support/moe_mx_case.hpp's three checks); on the emulator
// also the times the weights were read (`weight_reads`: bytes read from their buffers over their
// bytes). Arguments: tokens, hidden, expert dim, routed experts, top-k, aiter's ns.
void moe_layer_mxfp4(benchmark::State& state) {
  if (arch::current_device_arch().kind != arch::target::gfx950) {
    state.SkipWithError("MXFP4 weights need gfx950 (run bench_moe_gfx950 on the emulator)");
    return;
  }
  const int tokens = int(state.range(0)), hidden = int(state.range(1)), dim = int(state.range(2));
  const int routed = int(state.range(3)), top_k = int(state.range(4));
  const moe::problem p{tokens, hidden, dim, routed + 1, top_k + 1, 0, routed + 1, layout::k_contiguous};
  const std::vector<int> ids = test::random_ids_with_shared(tokens, top_k, routed, 7);
  test::moe_mx_case<bf16> t(p, ids, 11, moe::workspace_bytes(p, 2, moe::weight_format::mxfp4).value(), true);
  state.counters["aiter_us"] = double(state.range(5)) / 1000.0;
  const std::optional<std::string> ran = run_once(state, p, t.args(), moe::weight_format::mxfp4, ids);
  if (!ran) return;
#if defined(WAVEKIT_EMULATOR)
  const emu::launch_counters c = emu::accumulated_counters();
#endif
  const int tile_m = moe::with_config(moe::choose_config(p, moe::weight_format::mxfp4),
                                      [](auto cfg) { return decltype(cfg)::block_m; });
  if (t.check(tile_m, ran->c_str()) != 0) {
    std::fprintf(stderr, "ERROR OCCURRED: %s differs from the host reference\n", p.str().c_str());
    state.SkipWithError("result differs from the host reference");
    return;
  }
#if defined(WAVEKIT_EMULATOR)
  report_counters(state, c, ids, t.weight_bytes(), tokens, hidden);
  state.counters["weight_reads"] = t.weight_reads(c);
#else
  test::time_calls(state, [&] { (void)wavekit::moe(p, t.args(), nullptr); });
#endif
}

}  // namespace

BENCHMARK(moe_layer)
    ->ArgNames({"tokens", "hidden", "dim", "E", "k", "bf16"})
    // A small configuration the test suite runs to keep this binary working.
    ->Args({16, 1024, 256, 32, 8, 1})
    // amd-moe-mxfp4 (2026) shapes, bf16: benchmarks, then tests.
    ->Args({16, 7168, 256, 256, 8, 1})
    ->Args({128, 7168, 256, 256, 8, 1})
    ->Args({512, 7168, 256, 256, 8, 1})
    ->Args({16, 7168, 512, 32, 8, 1})
    ->Args({128, 7168, 512, 32, 8, 1})
    ->Args({512, 7168, 512, 32, 8, 1})
    ->Args({512, 7168, 2048, 32, 8, 1})
    ->Args({8, 4096, 1024, 256, 8, 1})
    ->Args({32, 7168, 2048, 32, 8, 1})
    ->Args({128, 4096, 1536, 64, 6, 1})
    // amd-mixture-of-experts (2025), fp16, top-4 + shared: tests, then benchmarks (tokens = bs * seq).
    ->Args({512, 7168, 2048, 4, 4, 0})
    ->Args({1024, 7168, 2048, 8, 4, 0})
    ->Args({8192, 7168, 2048, 8, 4, 0})
    ->Args({2048, 7168, 2048, 32, 4, 0})
    ->Args({8192, 7168, 2048, 32, 4, 0})
#if defined(WAVEKIT_EMULATOR)
    ->Iterations(1)
#else
    ->UseManualTime()
#endif
    ->Unit(benchmark::kMicrosecond);

BENCHMARK(moe_layer_fp8)
    ->ArgNames({"tokens", "hidden", "dim", "E", "k"})
    // A small configuration the test suite runs to keep this binary working.
    ->Args({16, 1024, 256, 32, 8})
    // DeepSeek-V3 / R1 experts (256 routed + 1 shared, top-8, hidden 7168, expert dim 2048; 256 per
    // rank of an 8-way expert-dim split) at decode and prefill batch sizes, then amd-moe-mxfp4's
    // shapes with fp8 block-scaled weights.
    ->Args({16, 7168, 256, 256, 8})
    ->Args({128, 7168, 256, 256, 8})
    ->Args({512, 7168, 256, 256, 8})
    ->Args({16, 7168, 2048, 256, 8})
    ->Args({16, 7168, 512, 32, 8})
    ->Args({128, 7168, 512, 32, 8})
    ->Args({512, 7168, 2048, 32, 8})
    ->Args({8, 4096, 1024, 256, 8})
    ->Args({128, 4096, 1536, 64, 6})
#if defined(WAVEKIT_EMULATOR)
    ->Iterations(1)
#else
    ->UseManualTime()
#endif
    ->Unit(benchmark::kMicrosecond);

BENCHMARK(moe_layer_mxfp4)
    ->ArgNames({"tokens", "hidden", "dim", "E", "k", "aiter_ns"})
    // A small configuration the test suite runs to keep this path working.
    ->Args({16, 1024, 256, 32, 8, 0})
    // amd-moe-mxfp4: benchmarks (aiter's times from task.yml), then tests.
    ->Args({16, 7168, 256, 256, 8, 152700})
    ->Args({128, 7168, 256, 256, 8, 239000})
    ->Args({512, 7168, 256, 256, 8, 336500})
    ->Args({16, 7168, 512, 32, 8, 106200})
    ->Args({128, 7168, 512, 32, 8, 141100})
    ->Args({512, 7168, 512, 32, 8, 225000})
    ->Args({512, 7168, 2048, 32, 8, 380400})
    ->Args({8, 4096, 1024, 256, 8, 0})
    ->Args({32, 7168, 2048, 32, 8, 0})
    ->Args({128, 4096, 1536, 64, 6, 0})
#if defined(WAVEKIT_EMULATOR)
    ->Iterations(1)
#else
    ->UseManualTime()
#endif
    ->Unit(benchmark::kMicrosecond);

WAVEKIT_BENCHMARK_MAIN("configuration", 52);
