// MoE routing (ops/moe/routing_kernel.hpp) against the host references written from the rules'
// definitions (host/reference_moe_routing.hpp): softmax top-k with and without renormalisation,
// DeepSeek-V3's grouped sigmoid top-k with and without a correction bias, fp32 / bf16 / fp16
// logits, expert counts on both sides of each 64-expert register step up to 512, k up to 16; ties
// to the lower id; every bad input's status before any launch.
//
// Random logits make exact ties improbable, so ids must match exactly; weights agree to a few fp32
// roundings (exp, a sum of at most 512 terms in a fixed butterfly, one division, one product).
#include <hip/hip_runtime.h>
#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "wavekit/core/float_codec.hpp"
#include "wavekit/core/half_convert.hpp"
#include "wavekit/host/reference_moe_routing.hpp"
#include "wavekit/ops/moe/routing_kernel.hpp"

using namespace wavekit;
namespace moe = wavekit::ops::moe;

namespace {

template <class T>
struct device_buffer {
  T* p = nullptr;
  explicit device_buffer(std::size_t n) { hipMalloc(&p, std::max<std::size_t>(n, 1) * sizeof(T)); }
  ~device_buffer() { hipFree(p); }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;
};

// Logits stored as Logit, and their fp32 values (what the reference routes).
template <class Logit>
std::vector<float> random_logits(int tokens, int experts, std::uint32_t seed, std::vector<Logit>& stored) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> n(0.0f, 2.0f);
  std::vector<float> values(std::size_t(tokens) * experts);
  stored.resize(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    if constexpr (std::is_same_v<Logit, float>)
      stored[i] = n(rng);
    else
      stored[i] = saturate_cast<Logit>(n(rng));
    values[i] = widen_to_float(stored[i]);
  }
  return values;
}

template <class Rule, class Logit>
void check_rule(const moe::routing_problem& p, const Rule& rule, const std::vector<Logit>& logits,
                const host::routing_result& want) {
  device_buffer<Logit> d_logits(logits.size());
  device_buffer<int> d_ids(std::size_t(p.tokens) * p.top_k);
  device_buffer<float> d_weights(std::size_t(p.tokens) * p.top_k);
  hipMemcpy(d_logits.p, logits.data(), logits.size() * sizeof(Logit), hipMemcpyHostToDevice);
  const status s = moe::route(p, rule, moe::routing_args<Logit>{d_logits.p, d_ids.p, d_weights.p}, nullptr);
  INFO(p.str() << ": " << s.message());
  REQUIRE(s.ok());
  REQUIRE(hipDeviceSynchronize() == hipSuccess);
  std::vector<int> ids(std::size_t(p.tokens) * p.top_k);
  std::vector<float> weights(ids.size());
  hipMemcpy(ids.data(), d_ids.p, ids.size() * sizeof(int), hipMemcpyDeviceToHost);
  hipMemcpy(weights.data(), d_weights.p, weights.size() * sizeof(float), hipMemcpyDeviceToHost);
  int bad = 0;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const double w = want.weights[i], bound = 8 * 0x1p-24 * std::fabs(w) + 0x1p-40;
    if ((ids[i] != want.ids[i] || !(std::fabs(weights[i] - w) <= bound)) && bad++ < 5)
      FAIL_CHECK("token " << i / p.top_k << " choice " << i % p.top_k << ": expert " << ids[i] << " weight "
                          << weights[i] << ", reference expert " << want.ids[i] << " weight " << w);
  }
  CHECK(bad == 0);
}

}  // namespace

TEMPLATE_TEST_CASE("moe routing: softmax top-k against the reference", "[emu][moe]", float, bf16, fp16) {
  for (int experts : {4, 8, 32, 63, 64, 65, 128, 257, 512})
    for (int k : {1, 4, 9, 16}) {
      if (k > experts) continue;
      for (bool renormalize : {false, true}) {
        const moe::routing_problem p{37, experts, k};
        std::vector<TestType> logits;
        const auto values = random_logits(p.tokens, experts, static_cast<std::uint32_t>(experts * 31 + k), logits);
        const moe::softmax_topk rule{renormalize};
        check_rule(p, rule, logits, host::reference_route(values, p, rule));
      }
    }
}

TEMPLATE_TEST_CASE("moe routing: DeepSeek-V3 grouped sigmoid top-k against the reference", "[emu][moe]", float, bf16) {
  struct grouping {
    int experts, n_group, topk_group, k;
  };
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> small(-0.5f, 0.5f);
  for (const grouping g : {grouping{256, 8, 4, 8}, grouping{64, 4, 2, 6}, grouping{160, 5, 3, 16},
                           grouping{512, 64, 8, 8}, grouping{32, 1, 1, 4}, grouping{4, 2, 1, 2}})
    for (bool with_bias : {false, true}) {
      const moe::routing_problem p{29, g.experts, g.k};
      std::vector<TestType> logits;
      const auto values = random_logits(p.tokens, g.experts, static_cast<std::uint32_t>(g.experts + g.k), logits);
      std::vector<float> bias;
      if (with_bias)
        for (int e = 0; e < g.experts; ++e) bias.push_back(small(rng));
      device_buffer<float> d_bias(bias.size());
      hipMemcpy(d_bias.p, bias.data(), bias.size() * sizeof(float), hipMemcpyHostToDevice);
      const moe::grouped_sigmoid_topk rule{g.n_group, g.topk_group, true, 2.5f, with_bias ? d_bias.p : nullptr};
      INFO("n_group " << g.n_group << ", topk_group " << g.topk_group << (with_bias ? ", bias" : ""));
      check_rule(p, rule, logits, host::reference_route(values, p, rule, bias));
    }
}

TEST_CASE("moe routing: the bias steers the choice, the weights stay the sigmoid scores", "[emu][moe]") {
  // Expert 3 has the lowest score but a bias that makes it the first choice; its weight is its own
  // sigmoid score (0.5 for logit 0), renormalised among the chosen and scaled.
  const moe::routing_problem p{1, 4, 2};
  const std::vector<float> logits{2.0f, 1.0f, 1.5f, 0.0f}, bias{0.0f, 0.0f, 0.0f, 10.0f};
  device_buffer<float> d_bias(4);
  hipMemcpy(d_bias.p, bias.data(), 16, hipMemcpyHostToDevice);
  const moe::grouped_sigmoid_topk rule{1, 1, true, 1.0f, d_bias.p};
  const auto want = host::reference_route(logits, p, rule, bias);
  REQUIRE(want.ids == std::vector<int>{3, 0});
  check_rule(p, rule, logits, want);
}

TEST_CASE("moe routing: a shared expert rides as one more choice with weight 1", "[emu][moe]") {
  const moe::routing_problem p{21, 32, 4};
  std::vector<float> logits;
  const auto values = random_logits(p.tokens, p.experts, 77, logits);
  const auto want = host::reference_route(values, p, moe::softmax_topk{});
  device_buffer<float> d_logits(logits.size());
  device_buffer<int> d_ids(std::size_t(p.tokens) * 5);
  device_buffer<float> d_weights(std::size_t(p.tokens) * 5);
  hipMemcpy(d_logits.p, logits.data(), logits.size() * 4, hipMemcpyHostToDevice);
  moe::routing_args<float> a{d_logits.p, d_ids.p, d_weights.p, /*shared_expert=*/32};
  REQUIRE(moe::route(p, moe::softmax_topk{}, a, nullptr).ok());
  REQUIRE(hipDeviceSynchronize() == hipSuccess);
  std::vector<int> ids(std::size_t(p.tokens) * 5);
  std::vector<float> weights(ids.size());
  hipMemcpy(ids.data(), d_ids.p, ids.size() * 4, hipMemcpyDeviceToHost);
  hipMemcpy(weights.data(), d_weights.p, weights.size() * 4, hipMemcpyDeviceToHost);
  for (int t = 0; t < p.tokens; ++t) {
    for (int j = 0; j < 4; ++j) {
      CHECK(ids[t * 5 + j] == want.ids[t * 4 + j]);
      CHECK(std::fabs(weights[t * 5 + j] - want.weights[t * 4 + j]) <= 8 * 0x1p-24 * want.weights[t * 4 + j]);
    }
    CHECK(ids[t * 5 + 4] == 32);
    CHECK(weights[t * 5 + 4] == 1.0f);
  }
}

TEST_CASE("moe routing: equal scores go to the lower expert id", "[emu][moe]") {
  const moe::routing_problem p{3, 130, 16};
  const std::vector<float> logits(std::size_t(3) * 130, 0.25f);
  const auto want = host::reference_route(logits, p, moe::softmax_topk{});
  for (int j = 0; j < 16; ++j) REQUIRE(want.ids[j] == j);
  check_rule(p, moe::softmax_topk{}, logits, want);
  check_rule(p, moe::grouped_sigmoid_topk{2, 1, false, 1.0f, nullptr}, logits,
             host::reference_route(logits, p, moe::grouped_sigmoid_topk{2, 1, false, 1.0f, nullptr}, {}));
}

TEST_CASE("moe routing: every bad input gets its status before any launch", "[emu][moe]") {
  device_buffer<float> logits(64 * 8);
  device_buffer<int> ids(64 * 8);
  device_buffer<float> weights(64 * 8);
  const moe::routing_args<float> good{logits.p, ids.p, weights.p};
  auto softmax = [&](moe::routing_problem p, moe::routing_args<float> a = {}) {
    return moe::route(p, moe::softmax_topk{}, a.logits ? a : good, nullptr);
  };
  CHECK(softmax({8, 64, 4}).ok());
  CHECK(softmax({0, 64, 4}, {nullptr, nullptr, nullptr}).ok());  // nothing to route, nothing read
  CHECK(softmax({8, 0, 1}).message() ==
        "moe routing (softmax top-k) 8 tokens, 0 experts, top 1: experts must be in [1, 512]");
  CHECK(softmax({8, 513, 4}).code() == status_code::bad_shape);
  CHECK(softmax({8, 64, 17}).message() ==
        "moe routing (softmax top-k) 8 tokens, 64 experts, top 17: top_k must be in [1, min(16, experts)]");
  CHECK(softmax({8, 4, 5}).code() == status_code::bad_shape);
  CHECK(softmax({8, 64, 0}).code() == status_code::bad_shape);
  CHECK(softmax({-1, 64, 4}).code() == status_code::bad_shape);
  CHECK(softmax({1 << 22, 512, 4}).code() == status_code::too_large);
  CHECK(softmax({8, 64, 4}, {logits.p, nullptr, weights.p}).message() ==
        "moe routing 8 tokens, 64 experts, top 4: argument ids is null");
  CHECK(
      softmax({8, 64, 4}, {logits.p, ids.p, reinterpret_cast<float*>(reinterpret_cast<char*>(weights.p) + 2)}).code() ==
      status_code::bad_alignment);
  auto grouped = [&](moe::routing_problem p, moe::grouped_sigmoid_topk r) { return moe::route(p, r, good, nullptr); };
  CHECK(grouped({8, 64, 4}, {8, 4, true, 1.0f, nullptr}).ok());
  CHECK(grouped({8, 64, 4}, {7, 4, true, 1.0f, nullptr}).message() ==
        "moe routing (grouped sigmoid top-k) 8 tokens, 64 experts, top 4: n_group (7) must divide the experts and be "
        "in [1, 64]");
  CHECK(grouped({8, 64, 4}, {64, 4, true, 1.0f, nullptr}).code() == status_code::bad_shape);  // groups of 1
  CHECK(grouped({8, 64, 4}, {8, 9, true, 1.0f, nullptr}).code() == status_code::bad_shape);
  CHECK(grouped({8, 64, 16}, {8, 1, true, 1.0f, nullptr}).message() ==
        "moe routing (grouped sigmoid top-k) 8 tokens, 64 experts, top 16: top_k exceeds the experts of the "
        "topk_group kept groups");
  CHECK(grouped({8, 64, 4}, {8, 4, true, 0.0f, nullptr}).code() == status_code::bad_shape);
  CHECK(grouped({8, 64, 4}, {8, 4, true, 1.0f, reinterpret_cast<const float*>(reinterpret_cast<char*>(logits.p) + 1)})
            .code() == status_code::bad_alignment);
}
