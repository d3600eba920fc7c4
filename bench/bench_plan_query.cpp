// Host time of the plan queries a one-call API makes before it launches (plain C++, no HIP): the
// tuned tables' lookup and, on a miss, the performance model's search over the op's configs and K
// splits. The first call of a problem searches; the process keeps each query's answer
// (planning/plan_cache.hpp), so the calls after it cost a lookup of the kept answer: the timed loop.
// model_search_us is the search alone (the op's model_plan, never kept): what a problem's first
// call pays, and what every call paid before answers were kept.
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstddef>

#include "wavekit/ops/gemm_fp8_blockscale/plan.hpp"
#include "wavekit/ops/gemm_fp8_scaled/plan.hpp"
#include "wavekit/ops/gemm_half/plan.hpp"
#include "wavekit/ops/gemm_mx/plan.hpp"
#include "wavekit/ops/moe/plan.hpp"

namespace {

using namespace wavekit;
constexpr std::size_t any_workspace = ~std::size_t{0};
constexpr arch::target mi300x = arch::target::gfx942;

template <class Query, class Search>
void run(benchmark::State& state, Query&& query, Search&& search) {
  constexpr int searches = 20;
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < searches; ++i) benchmark::DoNotOptimize(search());
  state.counters["model_search_us"] =
      std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count() / searches;
  for (auto _ : state) benchmark::DoNotOptimize(query());
}

void gemm_half(benchmark::State& state) {
  namespace gh = ops::gemm_half;
  const gh::problem p{int(state.range(0)), 7168, 2048, layout::k_contiguous};
  run(
      state, [&] { return gh::choose_plan(p, any_workspace, mi300x); },
      [&] { return gh::plan_queries::model_plan(p, any_workspace, mi300x); });
}
void gemm_fp8_blockscale(benchmark::State& state) {
  namespace gb = ops::gemm_fp8_blockscale;
  const gb::problem p{int(state.range(0)), 4608, 7168, layout::mn_contiguous};
  run(
      state, [&] { return gb::choose_plan(p, any_workspace, mi300x); },
      [&] { return gb::plan_queries::model_plan(p, any_workspace, mi300x); });
}
void gemm_fp8_scaled(benchmark::State& state) {
  namespace gs = ops::gemm_fp8_scaled;
  const gs::problem p{int(state.range(0)),       13312, 16384, layout::k_contiguous, gs::scale_granularity::row,
                      gs::scale_granularity::row};
  run(
      state, [&] { return gs::choose_plan(p, any_workspace, mi300x); },
      [&] { return gs::plan_queries::model_plan(p, any_workspace, mi300x); });
}
void gemm_mx(benchmark::State& state) {
  namespace gx = ops::gemm_mx;
  const gx::problem p{int(state.range(0)), 7168, 2048, gx::mx_format::mxfp4, gx::a_storage::bf16, gx::b_layout::plain};
  run(
      state, [&] { return gx::choose_plan(p, any_workspace); },
      [&] { return gx::plan_queries::model_plan(p, any_workspace, wavekit::arch::target::gfx950); });
}
void moe(benchmark::State& state) {
  namespace mo = ops::moe;
  const mo::problem p{int(state.range(0)), 7168, 256, 257, 9, 0, 257, layout::k_contiguous};
  run(
      state, [&] { return mo::choose_config(p, mo::weight_format::fp8_blockscale, mi300x); },
      [&] { return mo::model_config(p, mo::weight_format::fp8_blockscale, mi300x); });
}

}  // namespace

BENCHMARK(gemm_half)->ArgName("M")->Arg(16)->Arg(4096)->Unit(benchmark::kMicrosecond);
BENCHMARK(gemm_fp8_blockscale)->ArgName("M")->Arg(16)->Arg(6144)->Unit(benchmark::kMicrosecond);
BENCHMARK(gemm_fp8_scaled)->ArgName("M")->Arg(8)->Arg(512)->Unit(benchmark::kMicrosecond);
BENCHMARK(gemm_mx)->ArgName("M")->Arg(16)->Arg(1024)->Unit(benchmark::kMicrosecond);
BENCHMARK(moe)->ArgName("tokens")->Arg(16)->Arg(4096)->Unit(benchmark::kMicrosecond);

BENCHMARK_MAIN();
