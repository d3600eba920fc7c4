// planning/plan_cache.hpp: a query's plan is computed once and kept; a merged table, a full cache
// or another query computes afresh; an op's plan query answers a newly loaded entry at once.
#include <catch2/catch.hpp>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "support/tuned_entry.hpp"
#include "wavekit/ops/gemm_half/plan.hpp"
#include "wavekit/planning/plan_cache.hpp"

namespace planning = wavekit::planning;
using wavekit::arch::target;

TEST_CASE("the plan cache computes each query once and keeps it", "[tuning]") {
  planning::plan_cache<int> cache;
  int computed = 0;
  auto compute = [&](int answer) {
    return [&computed, answer] {
      ++computed;
      return answer;
    };
  };
  const planning::query a("op", target::gfx942, "bf16", 0, {1, 2, 3}), b("op", target::gfx942, "bf16", 0, {1, 2, 4});
  CHECK(a.str() == "op gfx942 bf16 0 1 2 3");
  CHECK(cache.get(a, compute(7)) == 7);
  CHECK(cache.get(a, compute(8)) == 7);  // kept
  CHECK(computed == 1);
  CHECK(cache.get(b, compute(9)) == 9);
  CHECK(computed == 2);
  // Every field counts: target, dtypes, workspace.
  CHECK(planning::query("op", target::gfx950, "bf16", 0, {1, 2, 3}) != a);
  CHECK(planning::query("op", target::gfx942, "fp16", 0, {1, 2, 3}) != a);
  CHECK(planning::query("op", target::gfx942, "bf16", 1, {1, 2, 3}) != a);
  CHECK(planning::query("op2", target::gfx942, "bf16", 0, {1, 2, 3}) != a);
  // The fields' count counts too: {1, 2} then 0 is not {1, 2, 0}.
  CHECK(planning::query("op", target::gfx942, "bf16", 0, {1, 2}) !=
        planning::query("op", target::gfx942, "bf16", 0, {1, 2, 0}));
  CHECK(planning::query("op", target::gfx942, "bf16", 0, {1, 2, 3}) == a);
  CHECK(planning::query("op", target::gfx942, "bf16", 0, {1, 2, 3}).hash() == a.hash());

  // A merged table may change answers: everything is computed afresh.
  const planning::key unrelated{.op = "plan_cache_test",
                                .arch = target::gfx942,
                                .cus = 304,
                                .dtypes = "bf16",
                                .layout = "k_contiguous",
                                .m_bucket = 1,
                                .n = 1,
                                .k = 1};
  wavekit::test::load_tuned_entry(unrelated, {"any", 1}, "test_plan_cache_entry.txt");
  CHECK(cache.get(a, compute(10)) == 10);
  CHECK(computed == 3);

  // A full cache starts over.
  for (std::size_t i = 0; i < planning::plan_cache<int>::capacity; ++i)
    (void)cache.get(planning::query("fill", target::gfx942, "bf16", 0, {static_cast<long long>(i)}), compute(0));
  const int before = computed;
  CHECK(cache.get(a, compute(11)) == 11);
  CHECK(computed == before + 1);
}

TEST_CASE("an op's plan query answers a table loaded after it was asked", "[tuning]") {
  namespace gh = wavekit::ops::gemm_half;
  const gh::problem p{40, 2048, 4096, wavekit::layout::k_contiguous};
  const target t = target::gfx950;
  const gh::plan model = gh::choose_plan(p, ~std::size_t{0}, t);
  CHECK(gh::choose_plan(p, ~std::size_t{0}, t).config == model.config);  // kept
  const gh::plan tuned{model.config == gh::config_id::large ? gh::config_id::small : gh::config_id::large, 1};
  wavekit::test::load_tuned_entry(
      gh::plan_queries::tuning_key(p, t, 256, gh::tuning_dtypes<wavekit::bf16, wavekit::bf16>()),
      gh::plan_queries::tuning_value(tuned), "test_plan_cache_gemm_half.txt");
  const gh::plan after = gh::choose_plan(p, ~std::size_t{0}, t);
  CHECK(after.config == tuned.config);
  CHECK(after.splits == 1);
}

TEST_CASE("the plan cache from many threads", "[tuning]") {
  planning::plan_cache<int> cache;
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int w = 0; w < 8; ++w)
    threads.emplace_back([&, w] {
      for (int i = 0; i < 2000; ++i) {
        const int q = (i * 7 + w) % 64;
        if (cache.get(planning::query("q", target::gfx942, "bf16", 0, {q}), [q] { return q * q; }) != q * q) ++wrong;
      }
    });
  for (std::thread& th : threads) th.join();
  CHECK(wrong == 0);
}
