// planning/tables/registry.hpp: tables merged over the shipped ones (the same key replaced, the rest kept),
// a bad table merged not at all, the process's registry and its miss log.
#include <catch2/catch.hpp>

#include <atomic>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "wavekit/arch/device_facts.hpp"
#include "wavekit/ops/gemm_fp8_blockscale/plan.hpp"
#include "wavekit/planning/tables/registry.hpp"

namespace planning = wavekit::planning;
namespace gb = wavekit::ops::gemm_fp8_blockscale;
using wavekit::layout;
using wavekit::arch::target;

namespace {

const std::string header = "op arch cus dtypes layout m_bucket n k e_local top_k config splits\n";

// The key of a shipped blockscale shape on the MI300X.
planning::key shipped_key(int m, int n, int k) {
  return gb::plan_queries::tuning_key(gb::problem{m, n, k, layout::mn_contiguous}, target::gfx942, 304);
}

planning::registry shipped_registry() {
  planning::registry r;
  for (const planning::shipped_table& t : planning::shipped_tables) REQUIRE(r.merge_text(t.text, t.source).ok());
  return r;
}

std::string write_file(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
  return path;
}

}  // namespace

TEST_CASE("the shipped tables parse and hold the blockscale op's 18 shapes on both targets", "[tuning]") {
  const planning::registry r = shipped_registry();
  int blockscale[2] = {0, 0};
  for (const planning::entry& e : r.entries()) {
    if (e.key.op != gb::plan_queries::tuning_op) continue;
    ++blockscale[e.key.arch == target::gfx950];
    CHECK(e.key.cus == wavekit::arch::facts_for(e.key.arch).compute_units);
    CHECK(e.key.dtypes == gb::tuning_dtypes(e.key.arch));
    CHECK(gb::plan_queries::tuned_plan(e.value));  // names one of the op's configs
    CHECK((e.value.splits == 1 || e.key.k / 128 / e.value.splits >= 4));
  }
  CHECK(blockscale[0] == 18);
  CHECK(blockscale[1] == 18);
  // The amd-fp8-mm benchmark shapes (docs/gemm-fp8-blockscale.md) at both M, and on both targets
  // the model's plan (what the emulator build's tuner wrote: tuning/gemm_fp8_blockscale.txt).
  const int nk[][2] = {{1536, 7168}, {3072, 1536}, {576, 7168}, {7168, 256}, {7168, 2048},
                       {4608, 7168}, {7168, 2304}, {512, 7168}, {4096, 512}};
  for (target t : {target::gfx942, target::gfx950})
    for (int m : {1024, 6144})
      for (const auto& [n, k] : nk) {
        const gb::problem p{m, n, k, layout::mn_contiguous};
        INFO(wavekit::arch::to_string(t) << " " << m << "x" << n << "x" << k);
        const auto v = r.find(gb::plan_queries::tuning_key(p, t, wavekit::arch::facts_for(t).compute_units));
        REQUIRE(v);
        CHECK(*v == gb::plan_queries::tuning_value(gb::plan_queries::model_plan(p, ~std::size_t{0}, t)));
      }
  CHECK(r.find(shipped_key(1024, 1536, 7168)) == planning::value{"decode", 1});
  CHECK(r.find(shipped_key(1024, 576, 7168)) == planning::value{"small", 4});
  // M in the same bucket finds the same entry; another bucket or order none.
  CHECK(r.find(shipped_key(1008, 576, 7168)) == planning::value{"small", 4});
  CHECK_FALSE(r.find(shipped_key(512, 576, 7168)));
  CHECK_FALSE(
      r.find(gb::plan_queries::tuning_key(gb::problem{1024, 576, 7168, layout::k_contiguous}, target::gfx942, 304)));
  CHECK(r.find(gb::plan_queries::tuning_key(gb::problem{1024, 576, 7168, layout::mn_contiguous}, target::gfx950,
                                            256)) == planning::value{"narrow", 8});
}

TEST_CASE("a user table replaces the entries of its keys and keeps every other", "[tuning]") {
  planning::registry r = shipped_registry();
  const std::size_t shipped = r.entries().size();
  const std::string user = header +
                           "gemm_fp8_blockscale gfx942 304 e4m3fnuz,e4m3fnuz,bf16 mn_contiguous 1024 1536 7168 0 0 "
                           "narrow 2\n"
                           "gemm_half gfx942 304 bf16,bf16,bf16 k_contiguous 16 4096 4096 0 0 decode 8\n";
  REQUIRE(r.merge_text(user, "user.txt").ok());
  CHECK(r.entries().size() == shipped + 1);
  CHECK(r.find(shipped_key(1024, 1536, 7168)) == planning::value{"narrow", 2});  // replaced
  CHECK(r.find(shipped_key(1024, 3072, 1536)) == planning::value{"decode", 1});  // kept
  CHECK(r.find(shipped_key(6144, 4608, 7168)) == planning::value{"narrow", 1});  // kept
  const planning::key half{.op = "gemm_half",
                           .cus = 304,
                           .dtypes = "bf16,bf16,bf16",
                           .layout = "k_contiguous",
                           .m_bucket = 16,
                           .n = 4096,
                           .k = 4096};
  CHECK(r.find(half) == planning::value{"decode", 8});  // added

  // A later table wins over an earlier one.
  REQUIRE(
      r.merge_text(header + "gemm_half gfx942 304 bf16,bf16,bf16 k_contiguous 16 4096 4096 0 0 small 2\n", "later.txt")
          .ok());
  CHECK(r.find(half) == planning::value{"small", 2});
}

TEST_CASE("a table with a bad line merges nothing", "[tuning]") {
  planning::registry r = shipped_registry();
  const std::size_t shipped = r.entries().size();
  const std::string bad = header +
                          "gemm_fp8_blockscale gfx942 304 e4m3fnuz,e4m3fnuz,bf16 mn_contiguous 1024 1536 7168 0 0 "
                          "narrow 2\n"
                          "gemm_half gfx942 304 bf16,bf16,bf16 k_contiguous 17 4096 4096 0 0 decode 8\n";
  const wavekit::status s = r.merge_text(bad, "bad.txt");
  REQUIRE_FALSE(s.ok());
  CHECK(s.message() == "bad.txt:3: m_bucket must be a power of two, M rounded up (got 17)");
  CHECK(r.entries().size() == shipped);
  CHECK(r.find(shipped_key(1024, 1536, 7168)) == planning::value{"decode", 1});
}

TEST_CASE("the path list of WAVEKIT_TUNING_FILES", "[tuning]") {
  CHECK(planning::split_path_list("") == std::vector<std::string>{});
  CHECK(planning::split_path_list("a.txt") == std::vector<std::string>{"a.txt"});
  CHECK(planning::split_path_list("/x/a.txt:b.txt") == std::vector<std::string>{"/x/a.txt", "b.txt"});
  CHECK(planning::split_path_list(":a.txt::b.txt:") == std::vector<std::string>{"a.txt", "b.txt"});
}

TEST_CASE("the process's registry: shipped tables, load_file over them", "[tuning]") {
  // This binary's environment names no table files (test_tuning_environment tests those).
  CHECK(planning::environment_tables_status().ok());
  CHECK(planning::find(shipped_key(1024, 7168, 256)) == planning::value{"narrow", 1});

  const std::string path = write_file("test_registry_user.txt",
                                      header +
                                          "gemm_fp8_blockscale gfx942 304 e4m3fnuz,e4m3fnuz,bf16 mn_contiguous 1024 "
                                          "7168 2048 0 0 medium 2\n");
  REQUIRE(planning::load_file(path).ok());
  CHECK(planning::find(shipped_key(1024, 7168, 2048)) == planning::value{"medium", 2});
  CHECK(planning::find(shipped_key(1024, 7168, 256)) == planning::value{"narrow", 1});

  const wavekit::status missing = planning::load_file("no/such/user.txt");
  CHECK(missing.message() == "no/such/user.txt: cannot open the tuning table");
  std::remove(path.c_str());
}

TEST_CASE("the process's miss log: a sink set in code, each key once", "[tuning]") {
  std::vector<std::string> lines;
  planning::set_miss_sink([&](const std::string& line) { lines.push_back(line); });
  const planning::key miss = shipped_key(64, 7168, 2048);
  int asked = 0;
  auto model = [&] {
    ++asked;
    return planning::value{"narrow", 4};
  };
  CHECK_FALSE(planning::find(miss, model));
  CHECK_FALSE(planning::find(miss, model));
  CHECK(planning::find(shipped_key(1024, 7168, 256), model) == planning::value{"narrow", 1});  // a hit logs nothing
  planning::set_miss_sink({});
  REQUIRE(lines.size() == 1);
  CHECK(lines[0] ==
        "wavekit-tuning-miss op=gemm_fp8_blockscale arch=gfx942 cus=304 dtypes=e4m3fnuz,e4m3fnuz,bf16 "
        "layout=mn_contiguous m_bucket=64 n=7168 k=2048 e_local=0 top_k=0 model=narrow,4");
  CHECK(asked == 1);
}

TEST_CASE("lookups and loads from many threads", "[tuning]") {
  planning::registry r = shipped_registry();
  std::atomic<int> failures{0};  // Catch2's assertions are not thread-safe: count, check after
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 100; ++i) {
        const bool ok = t == 0 ? r.merge_text(header + "gemm_half gfx942 304 bf16,bf16,bf16 k_contiguous 16 16 " +
                                                  std::to_string(16 * (i + 1)) + " 0 0 decode 1\n",
                                              "loop.txt")
                                     .ok()
                               : r.find(shipped_key(1024, 3072, 1536)) == planning::value{"decode", 1};
        if (!ok) ++failures;
      }
    });
  for (std::thread& t : threads) t.join();
  CHECK(failures == 0);
  CHECK(r.entries().size() == shipped_registry().entries().size() + 100);
}
