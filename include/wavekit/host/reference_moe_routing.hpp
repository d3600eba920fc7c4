// Host references of the MoE routing rules (ops/moe/routing.hpp states them), in double precision,
// written from their definitions: softmax then top-k; DeepSeek-V3's grouped sigmoid top-k (groups
// by their top-2 sum with a correction bias, by their maximum without). Ties go to the lower expert
// id, as on the device; NaN logits count as -Inf, softmax of an infinite maximum is its limit, and
// a zero sum is not renormalised (routing.hpp's rules for non-finite logits).
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <numeric>
#include <vector>

#include "wavekit/ops/moe/routing.hpp"

namespace wavekit::host {

struct routing_result {
  std::vector<int> ids;         // [tokens][top_k], best first (with append_shared: then the shared)
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

// Token t's logits as doubles, NaN as -Inf.
inline std::vector<double> logits_of(const std::vector<float>& logits, const ops::moe::routing_problem& p, int t) {
  std::vector<double> row(static_cast<std::size_t>(p.experts));
  for (int e = 0; e < p.experts; ++e) {
    const double x = logits[std::size_t(t) * static_cast<std::size_t>(p.row_stride()) + std::size_t(e)];
    row[e] = std::isnan(x) ? -INFINITY : x;
  }
  return row;
}
}  // namespace detail

// logits: [tokens][p.row_stride()] as fp32 values (the first p.experts of each row are read).
inline routing_result reference_route(const std::vector<float>& logits, const ops::moe::routing_problem& p,
                                      const ops::moe::softmax_topk& rule) {
  routing_result r;
  for (int t = 0; t < p.tokens; ++t) {
    const std::vector<double> row = detail::logits_of(logits, p, t);
    const double top = *std::max_element(row.begin(), row.end());
    std::vector<double> prob(static_cast<std::size_t>(p.experts));
    double sum = 0.0;
    for (int e = 0; e < p.experts; ++e)  // an infinite maximum: the limit, shared by the experts at it
      sum += prob[e] = std::isinf(top) ? (row[e] == top ? 1.0 : 0.0) : std::exp(row[e] - top);
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
    const std::vector<double> row = detail::logits_of(logits, p, t);
    std::vector<double> s(static_cast<std::size_t>(p.experts)), choice(s.size());
    for (int e = 0; e < p.experts; ++e) {
      s[e] = 1.0 / (1.0 + std::exp(-row[e]));
      choice[e] = s[e] + (bias.empty() ? 0.0 : double(bias[e]));
    }
    std::vector<double> masked = choice;
    if (rule.n_group > 1) {
      // A group's score: the sum of its top 2 with a correction bias, its maximum without one.
      std::vector<double> group_score(static_cast<std::size_t>(rule.n_group));
      for (int g = 0; g < rule.n_group; ++g) {
        std::vector<double> in_group(choice.begin() + g * group_size, choice.begin() + (g + 1) * group_size);
        const std::vector<int> best = detail::top_indices(in_group, bias.empty() ? 1 : 2);
        group_score[g] = bias.empty() ? in_group[best[0]] : in_group[best[0]] + in_group[best[1]];
      }
      const std::vector<int> kept = detail::top_indices(group_score, rule.topk_group);
      masked.assign(s.size(), -INFINITY);
      for (int g : kept)
        for (int e = g * group_size; e < (g + 1) * group_size; ++e) masked[e] = choice[e];
    }
    const std::vector<int> chosen = detail::top_indices(masked, p.top_k);
    double chosen_sum = 0.0;
    for (int e : chosen) chosen_sum += s[e];
    const bool divide = rule.renormalize && chosen_sum > 0.0;  // a zero sum keeps weights 0
    for (int e : chosen)
      r.ids.push_back(e), r.weights.push_back((divide ? s[e] / chosen_sum : s[e]) * rule.routed_scaling_factor);
  }
  return r;
}

// The rows the router writes with shared experts: each token's top_k choices of r, then ids
// shared_expert .. shared_expert + n_shared - 1 with weight 1.
inline routing_result append_shared(const routing_result& r, int top_k, int shared_expert, int n_shared) {
  routing_result out;
  for (std::size_t t = 0; t < r.ids.size() / std::size_t(top_k); ++t) {
    for (int j = 0; j < top_k; ++j)
      out.ids.push_back(r.ids[t * top_k + j]), out.weights.push_back(r.weights[t * top_k + j]);
    for (int i = 0; i < n_shared; ++i) out.ids.push_back(shared_expert + i), out.weights.push_back(1.0);
  }
  return out;
}

}  // namespace wavekit::host
