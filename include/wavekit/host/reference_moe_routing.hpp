// Host references of the MoE routing rules (ops/moe/routing.hpp states them), in double precision,
// written from their definitions: softmax then top-k; DeepSeek-V3's grouped sigmoid top-k. Ties go
// to the lower expert id, as on the device.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <numeric>
#include <vector>

#include "wavekit/ops/moe/routing.hpp"

namespace wavekit::host {

struct routing_result {
  std::vector<int> ids;         // [tokens][top_k], best first
  std::vector<double> weights;  // [tokens][top_k]
};

namespace detail {
// The k best of `score` (larger first, equal scores by lower index), -Inf entries included last.
inline std::vector<int> top_indices(const std::vector<double>& score, int k) {
  std::vector<int> order(score.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return score[a] > score[b]; });
  order.resize(static_cast<std::size_t>(k));
  return order;
}
}  // namespace detail

// logits: [tokens][experts] as fp32 values.
inline routing_result reference_route(const std::vector<float>& logits, const ops::moe::routing_problem& p,
                                      const ops::moe::softmax_topk& rule) {
  routing_result r;
  for (int t = 0; t < p.tokens; ++t) {
    const float* row = logits.data() + std::size_t(t) * p.experts;
    const double top = *std::max_element(row, row + p.experts);
    std::vector<double> prob(static_cast<std::size_t>(p.experts));
    double sum = 0.0;
    for (int e = 0; e < p.experts; ++e) sum += prob[e] = std::exp(double(row[e]) - top);
    for (double& x : prob) x /= sum;
    const std::vector<int> chosen = detail::top_indices(prob, p.top_k);
    double chosen_sum = 0.0;
    for (int e : chosen) chosen_sum += prob[e];
    for (int e : chosen) r.ids.push_back(e), r.weights.push_back(rule.renormalize ? prob[e] / chosen_sum : prob[e]);
  }
  return r;
}

// bias: the correction bias values ([experts]) or empty for none.
inline routing_result reference_route(const std::vector<float>& logits, const ops::moe::routing_problem& p,
                                      const ops::moe::grouped_sigmoid_topk& rule, const std::vector<float>& bias) {
  routing_result r;
  const int group_size = p.experts / rule.n_group;
  for (int t = 0; t < p.tokens; ++t) {
    const float* row = logits.data() + std::size_t(t) * p.experts;
    std::vector<double> s(static_cast<std::size_t>(p.experts)), choice(s.size());
    for (int e = 0; e < p.experts; ++e) {
      s[e] = 1.0 / (1.0 + std::exp(-double(row[e])));
      choice[e] = s[e] + (bias.empty() ? 0.0 : double(bias[e]));
    }
    std::vector<double> group_score(static_cast<std::size_t>(rule.n_group));
    for (int g = 0; g < rule.n_group; ++g) {
      std::vector<double> in_group(choice.begin() + g * group_size, choice.begin() + (g + 1) * group_size);
      const std::vector<int> best2 = detail::top_indices(in_group, 2);
      group_score[g] = in_group[best2[0]] + in_group[best2[1]];
    }
    const std::vector<int> kept = detail::top_indices(group_score, rule.topk_group);
    std::vector<double> masked(s.size(), -INFINITY);
    for (int g : kept)
      for (int e = g * group_size; e < (g + 1) * group_size; ++e) masked[e] = choice[e];
    const std::vector<int> chosen = detail::top_indices(masked, p.top_k);
    double chosen_sum = 0.0;
    for (int e : chosen) chosen_sum += s[e];
    for (int e : chosen)
      r.ids.push_back(e),
          r.weights.push_back((rule.renormalize ? s[e] / chosen_sum : s[e]) * rule.routed_scaling_factor);
  }
  return r;
}

}  // namespace wavekit::host
