// MoE decode traffic on the emulator's counters: a decode-size batch of DeepSeek-V3's shape
// (16 tokens, 256 routed experts + 1 shared, top-8 + shared, hidden 7168, expert dim 256, bf16)
// must read each active expert's weights from memory once: global bytes read <= 1.1 x (the
// weights of the experts with tokens + the activations + the output). The output is checked
// against the host reference too. Full tier only (it is the largest MoE case).
#include <hip/hip_runtime.h>
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <random>
#include <vector>

#include "support/moe_case.hpp"
#include "wavekit/ops/moe.hpp"

using namespace wavekit;
namespace moe = wavekit::ops::moe;

TEST_CASE("moe: a decode batch reads each active expert's weights once", "[emu][moe]") {
  const int tokens = 16, routed = 256, top_k = 8;
  const moe::problem p{tokens, 7168, 256, routed + 1, top_k + 1, 0, routed + 1, layout::mn_contiguous};
  std::mt19937 rng(31);
  std::vector<int> all(routed), ids;
  std::iota(all.begin(), all.end(), 0);
  for (int t = 0; t < tokens; ++t) {
    std::shuffle(all.begin(), all.end(), rng);
    ids.insert(ids.end(), all.begin(), all.begin() + top_k);
    ids.push_back(routed);  // the shared expert
  }
  test::moe_case<bf16> t(p, ids, 3, moe::workspace_bytes(p).value());
  std::string ran;
#if defined(WAVEKIT_EMULATOR)
  emu::reset_counters();
#endif
  REQUIRE(wavekit::moe(p, t.args(), nullptr, &ran).ok());
  REQUIRE(hipDeviceSynchronize() == hipSuccess);
  INFO(ran);
  CHECK(ran == moe::config_decode::name());
  CHECK(t.check(ran.c_str()) == 0);
#if defined(WAVEKIT_EMULATOR)
  const double read = double(emu::accumulated_counters().global_bytes_read);
  const double ideal = double(t.active_weight_bytes()) + 2.0 * 2 * tokens * p.hidden;
  std::printf("moe decode traffic: %.1f MB read, ideal %.1f MB, ratio %.3f\n", read / 1e6, ideal / 1e6, read / ideal);
  CHECK(read <= 1.1 * ideal);
#endif
}
