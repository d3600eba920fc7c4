// The amd-mixture-of-experts (2025) test configuration at full size on the emulator: fp16,
// d_hidden 7168, d_expert 2048, 4 routed experts + 1 shared, top-4, batch 1 x seq 512, weights
// stored as the reference stores them ([d_hidden][d_expert] for gate and up, [d_expert][d_hidden]
// for down), against the multithreaded host reference; the reference problem's tolerance
// (rtol = atol = 1e-2) as well as the bound of test/support/moe_case.hpp. 113 G multiply-adds:
// about 12 minutes on the emulator, so full tier only, gfx942 only. The problem's two other test
// configurations (E 8 + shared: batch 2 x seq 512, batch 1 x seq 8192) run at their token counts
// with d_hidden and d_expert reduced (4 G multiply-adds each).
#include <hip/hip_runtime.h>
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <vector>

#include "support/moe_case.hpp"
#include "wavekit/ops/moe.hpp"

using namespace wavekit;
namespace moe = wavekit::ops::moe;

TEST_CASE("moe: amd-mixture-of-experts at full size (E 4 + shared, seq 512, 7168 x 2048)", "[emu][moe]") {
  const int tokens = 512, routed = 4, top_k = 4;
  const moe::problem p{tokens, 7168, 2048, routed + 1, top_k + 1, 0, routed + 1, layout::mn_contiguous};
  std::vector<int> ids;
  for (int t = 0; t < tokens; ++t) {  // top-4 of 4: every routed expert, in a token-dependent order
    std::vector<int> order(routed);
    std::iota(order.begin(), order.end(), 0);
    std::rotate(order.begin(), order.begin() + t % routed, order.end());
    ids.insert(ids.end(), order.begin(), order.end());
    ids.push_back(routed);  // the shared expert
  }
  test::moe_case<fp16> t(p, ids, 2025, moe::workspace_bytes(p).value());
  moe::plan_info ran;
  REQUIRE(wavekit::moe(p, t.args(), nullptr, &ran).ok());
  REQUIRE(hipDeviceSynchronize() == hipSuccess);
  INFO(ran.name);
  const auto ref = t.reference();
  CHECK(t.check_against(ref, ran.name.c_str()) == 0);
  // The reference problem's own tolerance.
  const std::vector<fp16> got = t.output();
  int outside = 0;
  for (std::size_t i = 0; i < got.size(); ++i)
    outside += !(std::fabs(double(widen_to_float(got[i])) - ref.out[i]) <= 1e-2 + 1e-2 * std::fabs(ref.out[i]));
  CHECK(outside == 0);
}

TEST_CASE("moe: amd-mixture-of-experts' E 8 configurations at their token counts, smaller d_hidden, d_expert",
          "[emu][moe]") {
  const int routed = 8, top_k = 4;
  const int shapes[][3] = {{2 * 512, 1024, 256}, {8192, 256, 128}};  // tokens, d_hidden, d_expert
  for (const auto& shape : shapes) {
    const int tokens = shape[0];
    const moe::problem p{tokens, shape[1], shape[2], routed + 1, top_k + 1, 0, routed + 1, layout::mn_contiguous};
    std::mt19937 rng(tokens);
    std::vector<int> order(routed), ids;
    std::iota(order.begin(), order.end(), 0);
    for (int t = 0; t < tokens; ++t) {  // top-4 of 8, then the shared expert
      std::shuffle(order.begin(), order.end(), rng);
      ids.insert(ids.end(), order.begin(), order.begin() + top_k);
      ids.push_back(routed);
    }
    test::moe_case<fp16> t(p, ids, 2026, moe::workspace_bytes(p).value());
    moe::plan_info ran;
    REQUIRE(wavekit::moe(p, t.args(), nullptr, &ran).ok());
    REQUIRE(hipDeviceSynchronize() == hipSuccess);
    INFO(ran.name << " on " << p.str());
    CHECK(t.check(ran.name.c_str()) == 0);
  }
}
