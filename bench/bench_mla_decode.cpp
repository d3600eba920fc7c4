// MLA decode (wavekit::mla_decode) over amd-mixed-mla's cases: batch 4, 32, 64 and 256 at KV
// lengths 1024 and 8192, 16 heads, one query per sequence, with a bf16 cache, an fp8 one (the
// device's format, a per-tensor scale), fp8 queries too, and an MXFP4 cache (`fp8`: 0, 1, 2, 3;
// MXFP4 on gfx950 only: a gfx942 device skips them, and bench/CMakeLists.txt's emulated gfx942
// run filters them out); DeepSeek's 128
// heads; and the cases docs/performance.md compares with aiter's published times (bf16 cache:
// PR 2039's 128 heads at 21 and 64 KV rows, PR 3003's 32 heads, 1 sequence of 1024 to 70000
// rows). Each case is verified first
// against the host reference (test/support/mla_case.hpp's bound). On a GPU: microseconds per
// call, operands evicted from L2 between calls. On the CPU emulator: one call, reporting the bytes
// read against the batch's KV rows, queries and outputs (each KV row to be read once per
// workgroup: `read_vs_kv_once`), the plan's splits (or balanced workers), MFMAs and bank conflicts, and no time. The
// emulator needs seconds for the 1024-row cases and minutes for the largest.
#include <benchmark/benchmark.h>
#include <hip/hip_runtime.h>

#include <cstdio>
#include <string>
#include <type_traits>
#include <vector>

#include "support/device_fp8.hpp"
#include "support/emulator_bench_main.hpp"
#include "support/gpu_timing.hpp"
#include "support/mla_case.hpp"
#include "support/predicted_counters.hpp"
#include "wavekit/ops/mla_decode.hpp"
#include "wavekit/ops/mla_decode/model.hpp"

using namespace wavekit;
namespace mla = wavekit::ops::mla_decode;

namespace {

template <class KV, class Q = bf16>
void run(benchmark::State& state) {
  const int batch = int(state.range(0)), kv_len = int(state.range(1)), heads = int(state.range(2));
  test::mla_case<KV, Q> t(heads, std::vector<int>(batch, kv_len), std::vector<int>(batch, 1), 0, 7);
  const mla::split_plan plan = wavekit::mla_decode_plan<KV, Q>(t.p, t.view()).value();
  const auto a = t.args(plan);
#if defined(WAVEKIT_EMULATOR)
  emu::reset_counters();
#endif
  if (status s = wavekit::mla_decode(t.p, t.view(), a, plan, nullptr); !s.ok()) {
    std::fprintf(stderr, "ERROR OCCURRED: %s\n", s.message().c_str());
    state.SkipWithError(s.message().c_str());
    return;
  }
  hipDeviceSynchronize();
  state.SetLabel(mla::config_name(mla::choose_config(t.p, t.view())) + ", " +
                 (plan.balanced() ? std::to_string(plan.workers) + " balanced workers"
                                  : std::to_string(plan.splits) + " splits of " + std::to_string(plan.chunk)));
  test::set_predicted(
      state, planning::predict(mla::model_launches(t.p, t.view(), mla::kv_bits_of<KV>, arch::current_device_arch().kind,
                                                   plan, mla::q_bits_of<Q>),
                               arch::current_device_arch().kind));
#if defined(WAVEKIT_EMULATOR)
  const emu::launch_counters c = emu::accumulated_counters();
#endif
  if (t.check("mla_decode") != 0) {
    std::fprintf(stderr, "ERROR OCCURRED: %s differs from the host reference\n", t.p.str().c_str());
    state.SkipWithError("result differs from the host reference");
    return;
  }
#if defined(WAVEKIT_EMULATOR)
  for (auto _ : state) {
  }
  const double kv_bytes = double(batch) * kv_len * mla::kv_row_bytes(mla::kv_bits_of<KV>);
  const double once = kv_bytes + double(batch) * heads * (mla::qk_dim * sizeof(Q) + mla::v_dim * 2);
  state.counters["splits"] = plan.splits;
  state.counters["workers"] = plan.workers;
  state.counters["global_MB_read"] = double(c.global_bytes_read) / 1e6;
  state.counters["read_vs_kv_once"] = double(c.global_bytes_read) / once;
  state.counters["mfma"] = double(c.mfma_total());
  state.counters["lds_bank_conflict_cycles"] = double(c.lds_bank_conflict_cycles);
#else
  test::time_calls(state, [&] { (void)wavekit::mla_decode(t.p, t.view(), a, plan, nullptr); });
#endif
}

void mla_decode_bench(benchmark::State& state) {
  if (state.range(3) == 0) {
    run<bf16>(state);
  } else if (state.range(3) == 3) {
    if (arch::current_device_arch().kind != arch::target::gfx950) {
      state.SkipWithError("an MXFP4 cache needs gfx950");
      return;
    }
    run<fp4x2_e2m1>(state);
  } else if (state.range(3) == 1) {
    arch::with_device_fp8([&](auto fp8_format) { run<decltype(fp8_format)>(state); });
  } else {
    arch::with_device_fp8([&](auto fp8_format) { run<decltype(fp8_format), decltype(fp8_format)>(state); });
  }
}

// aiter's published decode cases (bf16 cache, 128 and 32 heads) as the performance report models them.
void aiter_cases(benchmark::internal::Benchmark* b) {
  for (int batch : {1, 16, 64, 128, 256}) b->Args({batch, 21, 128, 0});
  b->Args({1, 64, 128, 0});
  for (int kv : {1024, 8192, 32768, 70000}) b->Args({1, kv, 32, 0});
}

}  // namespace

BENCHMARK(mla_decode_bench)
    ->Name("mla_decode")
    ->ArgNames({"batch", "kv", "heads", "fp8"})
    ->ArgsProduct({{4, 32, 64, 256}, {1024, 8192}, {16}, {0, 1}})
    ->Args({4, 1024, 16, 2})
    ->Args({4, 8192, 16, 2})
    ->Args({64, 8192, 16, 2})
    ->Args({256, 8192, 16, 2})
    ->Args({4, 1024, 16, 3})
    ->Args({4, 8192, 16, 3})
    ->Args({64, 8192, 16, 3})
    ->Args({256, 8192, 16, 3})
    ->Args({4, 8192, 128, 0})
    ->Args({4, 8192, 128, 1})
    ->Args({4, 8192, 128, 2})
    ->Apply(aiter_cases)
#if defined(WAVEKIT_EMULATOR)
    ->Iterations(1)
#else
    ->UseManualTime()
#endif
    ->Unit(benchmark::kMicrosecond);

WAVEKIT_BENCHMARK_MAIN("case", 48);
