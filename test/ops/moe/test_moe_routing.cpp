// MoE routing (ops/moe/routing_kernel.hpp) against the host references written from the rules'
// definitions (host/reference_moe_routing.hpp): softmax top-k with and without renormalisation,
// DeepSeek-V3's grouped sigmoid top-k with and without a correction bias (groups by their top-2 sum
// with one, by their maximum without), fp32 / bf16 / fp16 logits, expert counts on both sides of
// each 64-expert register step up to 512, k up to 16; logits in padded rows (logits_stride); one or
// several shared experts; NaN and infinite logits under every rule; ties to the lower id; every bad
// input's status before any launch.
//
// Random logits make exact ties improbable, so ids must match exactly; weights agree to a few fp32
// roundings (exp, a sum of at most 512 terms in a fixed butterfly, one division, one product).
#include <hip/hip_runtime.h>
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "wavekit/core/float_codec.hpp"
#include "wavekit/core/half_convert.hpp"
#include "wavekit/host/reference_moe_routing.hpp"
#include "wavekit/ops/moe/routing_kernel.hpp"
#include "wavekit/ops/moe/supports.hpp"

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

struct routed {
  std::vector<int> ids;
  std::vector<float> weights;
};

// Routes on the device; rows of a.row_length(p.top_k) (a's pointers are replaced by the buffers').
// x stored as Logit (round to nearest even; NaN and infinities kept).
template <class Logit>
Logit to_logit(float x) {
  if constexpr (std::is_same_v<Logit, float>)
    return x;
  else
    return Logit::from_bits(half_bits_rne<Logit>(x));
}

template <class Rule, class Logit>
routed route_on_device(const moe::routing_problem& p, const Rule& rule, const std::vector<Logit>& logits,
                       moe::routing_args<Logit> a = {}) {
  const std::size_t slots = std::size_t(p.tokens) * a.row_length(p.top_k);
  device_buffer<Logit> d_logits(logits.size());
  device_buffer<int> d_ids(slots);
  device_buffer<float> d_weights(slots);
  hipMemcpy(d_logits.p, logits.data(), logits.size() * sizeof(Logit), hipMemcpyHostToDevice);
  a.logits = d_logits.p, a.ids = d_ids.p, a.weights = d_weights.p;
  const status s = moe::route(p, rule, a, nullptr);
  INFO(p.str() << ": " << s.message());
  REQUIRE(s.ok());
  REQUIRE(hipDeviceSynchronize() == hipSuccess);
  routed r{std::vector<int>(slots), std::vector<float>(slots)};
  hipMemcpy(r.ids.data(), d_ids.p, slots * sizeof(int), hipMemcpyDeviceToHost);
  hipMemcpy(r.weights.data(), d_weights.p, slots * sizeof(float), hipMemcpyDeviceToHost);
  return r;
}

// want: the reference's rows, as long as a's.
template <class Rule, class Logit>
void check_rule(const moe::routing_problem& p, const Rule& rule, const std::vector<Logit>& logits,
                const host::routing_result& want, moe::routing_args<Logit> a = {}) {
  const routed got = route_on_device(p, rule, logits, a);
  const int row = a.row_length(p.top_k);
  REQUIRE(want.ids.size() == got.ids.size());
  int bad = 0;
  for (std::size_t i = 0; i < got.ids.size(); ++i) {
    const double w = want.weights[i], bound = 8 * 0x1p-24 * std::fabs(w) + 0x1p-40;
    if ((got.ids[i] != want.ids[i] || !(std::fabs(got.weights[i] - w) <= bound)) && bad++ < 5)
      FAIL_CHECK("token " << i / row << " choice " << i % row << ": expert " << got.ids[i] << " weight "
                          << got.weights[i] << ", reference expert " << want.ids[i] << " weight " << w);
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
  // Groups of one expert (64 of 64) only without a bias: with one, a group's score needs two.
  for (const grouping g :
       {grouping{256, 8, 4, 8}, grouping{64, 4, 2, 6}, grouping{160, 5, 3, 16}, grouping{512, 64, 8, 8},
        grouping{32, 1, 1, 4}, grouping{4, 2, 1, 2}, grouping{64, 64, 8, 8}})
    for (bool with_bias : {false, true}) {
      if (with_bias && g.experts / g.n_group < 2) continue;
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

TEST_CASE("moe routing: DeepSeek-V3 scores a group by its maximum without a bias, its top-2 sum with one",
          "[emu][moe]") {
  // Two groups of 4: group 0 has the single best expert (sigmoid(5) = 0.9933) and three poor ones
  // (0.0067), group 1 four good ones (sigmoid(2) = 0.8808). By the maximum group 0 wins (experts 0
  // and 1, the lower id among its equal three); by the top-2 sum (1.0 against 1.76) group 1 does.
  // An all-zero bias changes no choice value, only which of the published code's cases applies.
  const moe::routing_problem p{1, 8, 2};
  const std::vector<float> logits{5.0f, -5.0f, -5.0f, -5.0f, 2.0f, 2.0f, 2.0f, 2.0f}, zeros(8, 0.0f);
  device_buffer<float> d_zeros(8);
  hipMemcpy(d_zeros.p, zeros.data(), 32, hipMemcpyHostToDevice);
  const moe::grouped_sigmoid_topk no_bias{2, 1, true, 1.0f, nullptr}, bias{2, 1, true, 1.0f, d_zeros.p};
  const auto by_max = host::reference_route(logits, p, no_bias, {});
  const auto by_top2 = host::reference_route(logits, p, bias, zeros);
  REQUIRE(by_max.ids == std::vector<int>{0, 1});
  REQUIRE(by_top2.ids == std::vector<int>{4, 5});
  check_rule(p, no_bias, logits, by_max);
  check_rule(p, bias, logits, by_top2);
}

TEST_CASE("moe routing: shared experts ride as more choices with weight 1", "[emu][moe]") {
  const moe::routing_problem p{21, 32, 4};
  std::vector<float> logits;
  const auto values = random_logits(p.tokens, p.experts, 77, logits);
  const auto want = host::reference_route(values, p, moe::softmax_topk{});
  for (int n_shared : {1, 2, 3, moe::max_shared_experts}) {
    INFO(n_shared << " shared experts");
    const auto rows = host::append_shared(want, p.top_k, 32, n_shared);
    REQUIRE(rows.ids.size() == std::size_t(p.tokens) * (4 + n_shared));
    REQUIRE(rows.ids[4 + n_shared - 1] == 32 + n_shared - 1);
    check_rule(p, moe::softmax_topk{}, logits, rows, moe::routing_args<float>{{}, {}, {}, 32, n_shared});
  }
  // The largest row: 16 routed choices and 16 shared (grouped rule, ids past the routed ones).
  const moe::routing_problem wide{5, 256, moe::max_top_k};
  const auto wide_values = random_logits(wide.tokens, wide.experts, 78, logits);
  const moe::grouped_sigmoid_topk rule{8, 4, true, 2.5f, nullptr};
  check_rule(
      wide, rule, logits,
      host::append_shared(host::reference_route(wide_values, wide, rule, {}), wide.top_k, 256, moe::max_shared_experts),
      moe::routing_args<float>{{}, {}, {}, 256, moe::max_shared_experts});
}

TEMPLATE_TEST_CASE("moe routing: logits in padded rows (logits_stride), as a router GEMM writes them", "[emu][moe]",
                   float, bf16) {
  // Experts not a multiple of 16 in rows padded to the next (a GEMM's N tile) or further; the
  // padding holds values that would win (or poison a row) if it were read.
  for (const auto& [experts, stride] : {std::pair{60, 64}, std::pair{200, 208}, std::pair{8, 16}, std::pair{257, 300}})
    for (int rule_index : {0, 1}) {
      const moe::routing_problem packed{19, experts, std::min(8, experts / 2)};
      moe::routing_problem p = packed;
      p.logits_stride = stride;
      std::vector<TestType> stored;
      const auto values = random_logits(p.tokens, stride, static_cast<std::uint32_t>(experts), stored);
      std::vector<float> padded_values = values;
      for (int t = 0; t < p.tokens; ++t)
        for (int e = experts; e < stride; ++e) {
          const float poison = (e % 2) ? 1000.0f : std::numeric_limits<float>::quiet_NaN();
          stored[std::size_t(t) * stride + e] = to_logit<TestType>(poison);
          padded_values[std::size_t(t) * stride + e] = widen_to_float(stored[std::size_t(t) * stride + e]);
        }
      // The same logits packed: the padded call must route them identically.
      std::vector<float> packed_values;
      for (int t = 0; t < p.tokens; ++t)
        packed_values.insert(packed_values.end(), values.begin() + std::size_t(t) * stride,
                             values.begin() + std::size_t(t) * stride + experts);
      INFO(experts << " experts in rows of " << stride << (rule_index ? ", grouped" : ", softmax"));
      if (rule_index == 0) {
        const auto want = host::reference_route(padded_values, p, moe::softmax_topk{true});
        CHECK(want.ids == host::reference_route(packed_values, packed, moe::softmax_topk{true}).ids);
        check_rule(p, moe::softmax_topk{true}, stored, want);
      } else {
        const int groups = experts % 4 == 0 ? 4 : 1;
        const moe::grouped_sigmoid_topk rule{groups, groups == 4 ? 2 : 1, true, 1.0f, nullptr};
        const auto want = host::reference_route(padded_values, p, rule, {});
        CHECK(want.ids == host::reference_route(packed_values, packed, rule, {}).ids);
        check_rule(p, rule, stored, want);
      }
    }
}

TEMPLATE_TEST_CASE("moe routing: NaN logits count as -Inf under every rule, infinite ones take their limit",
                   "[emu][moe]", float, bf16) {
  // Rows of 70 experts (two register slots a lane): one NaN, NaNs in the two best experts' places,
  // a NaN beside a +Inf, every logit NaN, every logit -Inf, two +Inf, and a row half NaN.
  const int experts = 70, k = 6;
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  std::vector<TestType> stored;
  auto values = random_logits(7, experts, 5, stored);
  auto row = [&](int t) { return values.begin() + std::size_t(t) * experts; };
  row(0)[3] = nan;
  const auto best = std::max_element(row(1), row(1) + experts);
  *best = nan, row(1)[(best - row(1) + 1) % experts] = nan;
  row(2)[10] = nan, row(2)[65] = inf;
  std::fill(row(3), row(3) + experts, nan);
  std::fill(row(4), row(4) + experts, -inf);
  row(5)[7] = inf, row(5)[66] = inf;
  for (int e = 0; e < experts; e += 2) row(6)[e] = nan;
  for (std::size_t i = 0; i < values.size(); ++i) stored[i] = to_logit<TestType>(values[i]);
  const moe::routing_problem p{7, experts, k};
  std::vector<float> bias(experts);
  for (int e = 0; e < experts; ++e) bias[e] = 0.01f * float(e % 7);
  device_buffer<float> d_bias(experts);
  hipMemcpy(d_bias.p, bias.data(), bias.size() * 4, hipMemcpyHostToDevice);
  for (bool renormalize : {false, true}) {
    INFO((renormalize ? "renormalised" : "not renormalised"));
    const moe::softmax_topk softmax{renormalize};
    const auto want = host::reference_route(values, p, softmax);
    for (double w : want.weights) REQUIRE(std::isfinite(w));
    // One NaN changes no other expert's weight: row 0 is the row without expert 3.
    std::vector<float> without = values;
    without[3] = -inf;
    CHECK(host::reference_route(without, p, softmax).weights == want.weights);
    // Every logit NaN or -Inf: the limit is uniform, ids 0 .. k - 1.
    for (int t : {3, 4})
      for (int j = 0; j < k; ++j) {
        CHECK(want.ids[t * k + j] == j);
        CHECK(want.weights[t * k + j] == (renormalize ? 1.0 / k : 1.0 / experts));
      }
    // Two +Inf share the probability; a NaN beside a +Inf is no +Inf.
    CHECK(want.ids[5 * k] == 7);
    CHECK(want.ids[5 * k + 1] == 66);
    CHECK(want.weights[5 * k] == 0.5);
    CHECK(want.ids[2 * k] == 65);
    CHECK(want.weights[2 * k] == 1.0);
    check_rule(p, softmax, stored, want);
  }
  for (const moe::grouped_sigmoid_topk& rule :
       {moe::grouped_sigmoid_topk{1, 1, true, 2.5f, nullptr}, moe::grouped_sigmoid_topk{5, 2, true, 2.5f, nullptr},
        moe::grouped_sigmoid_topk{5, 2, true, 2.5f, d_bias.p},
        moe::grouped_sigmoid_topk{5, 3, false, 1.0f, d_bias.p}}) {
    INFO("grouped: n_group " << rule.n_group << (rule.correction_bias ? ", bias" : ""));
    const std::vector<float> no_bias;
    const auto want = host::reference_route(values, p, rule, rule.correction_bias ? bias : no_bias);
    for (double w : want.weights) REQUIRE(std::isfinite(w));
    // Without a bias the NaN experts (sigmoid 0) come last: row 1 never takes its NaN places.
    if (!rule.correction_bias)
      for (int j = 0; j < k; ++j) CHECK(std::isfinite(values[std::size_t(1) * experts + want.ids[k + j]]));
    // An all-NaN row: every chosen score is 0, so the weights stay 0 (no 0 / 0).
    for (int j = 0; j < k; ++j) CHECK(want.weights[3 * k + j] == 0.0);
    check_rule(p, rule, stored, want);
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
  // Groups of 1: a group's maximum without a bias; with one, the top-2 sum needs 2 (n_group 1: no grouping).
  CHECK(grouped({8, 64, 4}, {64, 4, true, 1.0f, nullptr}).ok());
  CHECK(grouped({8, 64, 4}, {64, 4, true, 1.0f, weights.p}).message() ==
        "moe routing (grouped sigmoid top-k) 8 tokens, 64 experts, top 4: with a correction bias each group needs at "
        "least 2 experts (groups are scored by the sum of their top 2)");
  CHECK(grouped({8, 1, 1}, {1, 1, true, 1.0f, weights.p}).ok());
  CHECK(grouped({8, 64, 4}, {8, 9, true, 1.0f, nullptr}).code() == status_code::bad_shape);
  CHECK(grouped({8, 64, 16}, {8, 1, true, 1.0f, nullptr}).message() ==
        "moe routing (grouped sigmoid top-k) 8 tokens, 64 experts, top 16: top_k exceeds the experts of the "
        "topk_group kept groups");
  CHECK(grouped({8, 64, 4}, {8, 4, true, 0.0f, nullptr}).code() == status_code::bad_shape);
  CHECK(grouped({8, 64, 4}, {8, 4, true, std::numeric_limits<float>::infinity(), nullptr}).message() ==
        "moe routing (grouped sigmoid top-k) 8 tokens, 64 experts, top 4: routed_scaling_factor (inf) must be finite "
        "and nonzero");
  CHECK(grouped({8, 64, 4}, {8, 4, true, -std::numeric_limits<float>::infinity(), nullptr}).code() ==
        status_code::bad_shape);
  CHECK(grouped({8, 64, 4}, {8, 4, true, std::numeric_limits<float>::quiet_NaN(), nullptr}).code() ==
        status_code::bad_shape);
  CHECK(grouped({8, 64, 4}, {8, 4, true, 1.0f, reinterpret_cast<const float*>(reinterpret_cast<char*>(logits.p) + 1)})
            .code() == status_code::bad_alignment);
  // Padded logits: a stride below the experts, negative, or one whose rows pass 32-bit offsets
  // (computed in 64 bits: no overflow with a huge stride).
  CHECK(softmax({8, 60, 4, 64}).ok());
  CHECK(softmax({8, 60, 4, 59}).message() ==
        "moe routing (softmax top-k) 8 tokens, 60 experts, top 4, logits_stride 59: logits_stride (59) must be 0 (rows "
        "packed) or at least experts");
  CHECK(softmax({8, 60, 4, -64}).code() == status_code::bad_shape);
  CHECK(softmax({1 << 20, 8, 4, 513}).code() == status_code::too_large);
  CHECK(moe::validate_rule({1 << 20, 8, 4, 512}, moe::softmax_topk{}).ok());  // 2^31 - 2016 bytes
  CHECK(softmax({2, 8, 4, std::int64_t{1} << 40}).code() == status_code::too_large);
  CHECK(softmax({std::numeric_limits<int>::max(), 8, 4, std::int64_t{1} << 61}).code() == status_code::too_large);
  CHECK(moe::supports({8, 60, 4, 59}, moe::softmax_topk{}, arch::target::gfx942).message() ==
        softmax({8, 60, 4, 59}).message());
  // Shared experts: 1 to 16 of them, only with shared_expert set, their last id an int32.
  auto shared = [&](int first, int n) {
    return moe::route({8, 64, 4}, moe::softmax_topk{}, moe::routing_args<float>{logits.p, ids.p, weights.p, first, n},
                      nullptr);
  };
  CHECK(shared(64, 16).ok());
  CHECK(shared(64, 0).message() == "moe routing 8 tokens, 64 experts, top 4: argument n_shared (0) must be in [1, 16]");
  CHECK(shared(64, 17).code() == status_code::bad_shape);
  CHECK(shared(-1, 2).message() ==
        "moe routing 8 tokens, 64 experts, top 4: argument n_shared (2) counts the shared experts from shared_expert, "
        "which is -1 (none)");
  CHECK(shared(std::numeric_limits<int>::max(), 2).message() ==
        "moe routing 8 tokens, 64 experts, top 4: arguments shared_expert + n_shared - 1 (the last shared id) must fit "
        "int32");
  CHECK(shared(std::numeric_limits<int>::max(), 1).ok());
}
