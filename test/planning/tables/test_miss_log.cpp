// planning/tables/miss_log.hpp: one machine-readable line per missed key, printed once, with the model's
// choice; the environment variable's rule; the cap on the keys remembered.
#include <catch2/catch.hpp>

#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "wavekit/planning/tables/miss_log.hpp"

namespace planning = wavekit::planning;
using wavekit::arch::target;

namespace {

planning::key gemm_key(int m_bucket) {
  return {.op = "gemm_half",
          .arch = target::gfx942,
          .cus = 304,
          .dtypes = "bf16,bf16,bf16",
          .layout = "k_contiguous",
          .m_bucket = m_bucket,
          .n = 4096,
          .k = 4096};
}

}  // namespace

TEST_CASE("the miss line's exact format", "[tuning]") {
  CHECK(planning::miss_line(gemm_key(64), {"decode", 4}) ==
        "wavekit-tuning-miss op=gemm_half arch=gfx942 cus=304 dtypes=bf16,bf16,bf16 layout=k_contiguous m_bucket=64 "
        "n=4096 k=4096 e_local=0 top_k=0 model=decode,4");
  const planning::key moe{.op = "moe",
                          .arch = target::gfx950,
                          .cus = 256,
                          .dtypes = "mxfp4,bf16",
                          .layout = "k_contiguous",
                          .m_bucket = 128,
                          .n = 2048,
                          .k = 7168,
                          .e_local = 32,
                          .top_k = 8};
  CHECK(planning::miss_line(moe, {"medium", 1}) ==
        "wavekit-tuning-miss op=moe arch=gfx950 cus=256 dtypes=mxfp4,bf16 layout=k_contiguous m_bucket=128 n=2048 "
        "k=7168 e_local=32 top_k=8 model=medium,1");
}

TEST_CASE("each key's miss prints once; the model is asked only for a printed line", "[tuning]") {
  std::vector<std::string> lines;
  planning::miss_log log([&](const std::string& line) { lines.push_back(line); });
  int asked = 0;
  auto model = [&] {
    ++asked;
    return planning::value{"small", 2};
  };
  for (int repeat = 0; repeat < 3; ++repeat) {
    log.record(gemm_key(64), model);
    log.record(gemm_key(128), model);
  }
  REQUIRE(lines.size() == 2);
  CHECK(lines[0] == planning::miss_line(gemm_key(64), {"small", 2}));
  CHECK(lines[1] == planning::miss_line(gemm_key(128), {"small", 2}));
  CHECK(asked == 2);
}

TEST_CASE("a log without a sink prints nothing and asks no model", "[tuning]") {
  planning::miss_log log;
  CHECK_FALSE(log.enabled());
  log.record(gemm_key(64), []() -> planning::value {
    FAIL("the model was asked with the log off");
    return {};
  });
  // Turned on later: keys missed while off were not logged, so they print now.
  std::vector<std::string> lines;
  log.set_sink([&](const std::string& line) { lines.push_back(line); });
  CHECK(log.enabled());
  log.record(gemm_key(64), [] { return planning::value{"decode", 1}; });
  CHECK(lines.size() == 1);
}

TEST_CASE("threads missing the same keys print each once", "[tuning]") {
  std::vector<std::string> lines;  // the sink runs outside the log's lock: guard it
  std::mutex guard;
  planning::miss_log log([&](const std::string& line) {
    std::lock_guard lock(guard);
    lines.push_back(line);
  });
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 200; ++i) log.record(gemm_key(1 << (i % 10)), [] { return planning::value{"large", 1}; });
    });
  for (std::thread& t : threads) t.join();
  CHECK(lines.size() == 10);
}

TEST_CASE("the keys remembered stop at the cap: one line says so and later keys print nothing", "[tuning]") {
  std::vector<std::string> lines;
  planning::miss_log log([&](const std::string& line) { lines.push_back(line); }, 3);
  auto model = [] { return planning::value{"large", 1}; };
  for (int repeat = 0; repeat < 2; ++repeat)
    for (int i = 0; i < 6; ++i) log.record(gemm_key(1 << i), model);
  REQUIRE(lines.size() == 4);
  CHECK(lines[2] == planning::miss_line(gemm_key(4), {"large", 1}));
  CHECK(lines[3] == "wavekit-tuning-miss log full: 3 keys logged; later keys print nothing");
  // The process's logs: the default cap, far above a deployment's shapes.
  CHECK(planning::miss_log::default_capacity == 4096);
  std::vector<std::string> full;
  planning::miss_log big([&](const std::string& line) { full.push_back(line); });
  for (int n = 1; n <= 5000; ++n) {  // a sweep over N
    planning::key k = gemm_key(64);
    k.n = n;
    big.record(k, model);
  }
  REQUIRE(full.size() == 4097);
  CHECK(full.back() == "wavekit-tuning-miss log full: 4096 keys logged; later keys print nothing");
}

TEST_CASE("the unusable-entry line's exact format", "[tuning]") {
  CHECK(planning::unusable_line(gemm_key(64), {"decode", 17}, {"decode", 4}, "splits must be in [1, K steps = 16]") ==
        "wavekit-tuning-unusable op=gemm_half arch=gfx942 cus=304 dtypes=bf16,bf16,bf16 layout=k_contiguous "
        "m_bucket=64 n=4096 k=4096 e_local=0 top_k=0 tuned=decode,17 model=decode,4: splits must be in [1, K steps "
        "= 16]");
}

TEST_CASE("WAVEKIT_LOG_TUNING_MISSES asks for the log when set, non-empty and not 0", "[tuning]") {
  CHECK_FALSE(planning::miss_logging_requested(nullptr));
  CHECK_FALSE(planning::miss_logging_requested(""));
  CHECK_FALSE(planning::miss_logging_requested("0"));
  CHECK(planning::miss_logging_requested("1"));
  CHECK(planning::miss_logging_requested("yes"));
  CHECK(planning::miss_logging_requested("00"));
}
