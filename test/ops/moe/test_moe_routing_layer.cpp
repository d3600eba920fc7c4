// Routing straight into the layer with the rows real models produce: logits in rows padded to a
// router GEMM's N tile (logits_stride), DeepSeek-V3's grouped sigmoid top-k with its correction
// bias, and several shared experts appended (n_shared), so a row holds more than 16 choices: the
// sort and the combine take up to moe::max_choices a token. The routing against its reference,
// then the layer against host::reference_moe on the routed rows (test/support/moe_case.hpp's
// bounds); a row past max_choices gets the sort's status.
#include <hip/hip_runtime.h>
#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <vector>

#include "support/moe_case.hpp"
#include "wavekit/host/reference_moe_routing.hpp"
#include "wavekit/ops/moe.hpp"

using namespace wavekit;
namespace moe = wavekit::ops::moe;

TEST_CASE("moe: 16 routed choices and 3 shared experts from padded logits, routing then the layer", "[emu][moe]") {
  const int tokens = 9, routed = 60, stride = 64, top_k = 16, n_shared = 3, row = top_k + n_shared;
  const moe::routing_problem rp{tokens, routed, top_k, stride};
  std::mt19937 rng(11);
  std::normal_distribution<float> n(0.0f, 1.0f);
  std::vector<float> logits(std::size_t(tokens) * stride, 1e4f), bias(routed);  // padding never read
  for (int t = 0; t < tokens; ++t)
    for (int e = 0; e < routed; ++e) logits[std::size_t(t) * stride + e] = n(rng);
  for (float& b : bias) b = 0.1f * n(rng);
  const moe::problem p{tokens, 64, 32, routed + n_shared, row, 0, routed + n_shared, layout::k_contiguous};
  // Every expert gets weights (the routing decides on the device which are used).
  std::vector<int> all_ids;
  for (int i = 0; i < tokens * row; ++i) all_ids.push_back(i % (routed + n_shared));
  test::moe_case<bf16> t(p, all_ids, 12, moe::workspace_bytes(p).value());
  float* d_logits = test::moe_case<bf16>::upload(logits);
  float* d_bias = test::moe_case<bf16>::upload(bias);
  const moe::grouped_sigmoid_topk rule{4, 2, true, 2.5f, d_bias};
  REQUIRE(
      moe_route(rp, rule, moe::routing_args<float>{d_logits, t.d_ids, t.d_weights, routed, n_shared}, nullptr).ok());
  REQUIRE(wavekit::moe(p, t.args(), nullptr).ok());
  REQUIRE(hipDeviceSynchronize() == hipSuccess);
  // The routing's reference rows, then the layer's reference on them.
  const auto want = host::append_shared(host::reference_route(logits, rp, rule, bias), top_k, routed, n_shared);
  std::vector<int> ids(want.ids.size());
  std::vector<float> weights(ids.size());
  hipMemcpy(ids.data(), t.d_ids, ids.size() * 4, hipMemcpyDeviceToHost);
  hipMemcpy(weights.data(), t.d_weights, weights.size() * 4, hipMemcpyDeviceToHost);
  CHECK(ids == want.ids);
  for (std::size_t i = 0; i < ids.size(); ++i)
    CHECK(std::fabs(weights[i] - want.weights[i]) <= 8 * 0x1p-24 * std::fabs(want.weights[i]));
  t.ids = ids, t.weights = weights;
  CHECK(t.check("routed + 3 shared") == 0);
  hipFree(d_logits), hipFree(d_bias);
}

TEST_CASE("moe: rows of up to max_choices ids; one more gets the sort's status", "[emu][moe]") {
  const moe::problem p{5, 32, 16, 40, moe::max_choices, 0, 40, layout::mn_contiguous};
  std::vector<int> ids;
  for (int i = 0; i < p.tokens * p.top_k; ++i) ids.push_back((i * 7) % p.experts);
  test::moe_case<fp16> t(p, ids, 13, moe::workspace_bytes(p).value());
  REQUIRE(wavekit::moe(p, t.args(), nullptr).ok());
  REQUIRE(hipDeviceSynchronize() == hipSuccess);
  CHECK(t.check("32 choices") == 0);
  moe::problem longer = p;
  longer.top_k = moe::max_choices + 1;
  const status s = wavekit::moe(longer, t.args(), nullptr);
  CHECK(s.code() == status_code::bad_shape);
  CHECK_THAT(s.message(), Catch::Contains("top_k must be in [1, 32]"));
  CHECK_THAT(moe::supports<moe::args<fp16>>(longer, arch::target::gfx942).message(),
             Catch::Contains("top_k must be in [1, 32]"));
}
