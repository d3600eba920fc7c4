// The process's registry as the environment builds it: WAVEKIT_TUNING_FILES's tables merged over
// the shipped ones in order (a bad file skipped, its status kept), WAVEKIT_LOG_TUNING_MISSES's
// lines on stderr, once per key. One test in its own binary: the variables must be set before the
// registry's first use.
#include <fcntl.h>
#include <unistd.h>
#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "wavekit/ops/gemm_fp8_blockscale/plan.hpp"
#include "wavekit/planning/tables/registry.hpp"

namespace planning = wavekit::planning;
namespace gb = wavekit::ops::gemm_fp8_blockscale;
using wavekit::layout;
using wavekit::arch::target;

namespace {

const std::string header = "op arch cus dtypes layout m_bucket n k e_local top_k config splits\n";

planning::key key(int m, int n, int k) {
  return gb::plan_queries::tuning_key(gb::problem{m, n, k, layout::mn_contiguous}, target::gfx942, 304);
}

// What f() writes to stderr (file descriptor 2 redirected to a file meanwhile).
template <class F>
std::string stderr_of(F&& f) {
  const char* path = "test_tuning_environment.stderr";
  std::fflush(stderr);
  const int saved = dup(2);
  const int file = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  dup2(file, 2);
  close(file);
  f();
  std::fflush(stderr);
  dup2(saved, 2);
  close(saved);
  std::stringstream text;
  text << std::ifstream(path).rdbuf();
  std::remove(path);
  return text.str();
}

}  // namespace

TEST_CASE("tables and the miss log from the environment", "[tuning]") {
  std::ofstream("env_first.txt") << header
                                 << "gemm_fp8_blockscale gfx942 304 e4m3fnuz,e4m3fnuz,bf16 mn_contiguous 1024 1536 "
                                    "7168 0 0 narrow 2\n"
                                    "gemm_fp8_blockscale gfx942 304 e4m3fnuz,e4m3fnuz,bf16 mn_contiguous 1024 3072 "
                                    "1536 0 0 small 1\n";
  std::ofstream("env_bad.txt") << header << "gemm_fp8_blockscale gfx942 304 x mn_contiguous 1000 1 1 0 0 large 1\n";
  std::ofstream("env_second.txt") << header
                                  << "gemm_fp8_blockscale gfx942 304 e4m3fnuz,e4m3fnuz,bf16 mn_contiguous 1024 1536 "
                                     "7168 0 0 medium 4\n";
  REQUIRE(setenv(planning::tables_variable, "env_first.txt:env_bad.txt::env_second.txt", 1) == 0);
  REQUIRE(setenv(planning::miss_log_variable, "1", 1) == 0);

  // The registry is built here, by the first lookup: the bad file's status goes to stderr.
  const std::string build = stderr_of([] { (void)planning::find(key(1024, 1536, 7168)); });
  CHECK(build ==
        "wavekit: WAVEKIT_TUNING_FILES: table not used: env_bad.txt:2: m_bucket must be a power of two, M rounded up "
        "(got 1000)\n");
  CHECK(planning::environment_tables_status().message() ==
        "env_bad.txt:2: m_bucket must be a power of two, M rounded up (got 1000)");

  CHECK(planning::find(key(1024, 1536, 7168)) == planning::value{"medium", 4});  // the later file wins
  CHECK(planning::find(key(1024, 3072, 1536)) == planning::value{"small", 1});   // the first file's own
  CHECK(planning::find(key(1024, 576, 7168)) == planning::value{"small", 4});    // shipped, kept

  const std::string misses = stderr_of([] {
    for (int i = 0; i < 3; ++i) {
      (void)planning::find(key(32, 1536, 7168), [] { return planning::value{"small", 8}; });
      (void)planning::find(key(64, 1536, 7168), [] { return planning::value{"narrow", 4}; });
      (void)planning::find(key(1024, 1536, 7168), [] { return planning::value{"large", 1}; });  // a hit
    }
  });
  CHECK(misses ==
        "wavekit-tuning-miss op=gemm_fp8_blockscale arch=gfx942 cus=304 dtypes=e4m3fnuz,e4m3fnuz,bf16 "
        "layout=mn_contiguous m_bucket=32 n=1536 k=7168 e_local=0 top_k=0 model=small,8\n"
        "wavekit-tuning-miss op=gemm_fp8_blockscale arch=gfx942 cus=304 dtypes=e4m3fnuz,e4m3fnuz,bf16 "
        "layout=mn_contiguous m_bucket=64 n=1536 k=7168 e_local=0 top_k=0 model=narrow,4\n");

  for (const char* f : {"env_first.txt", "env_bad.txt", "env_second.txt"}) std::remove(f);
}
