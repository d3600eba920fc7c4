// MoE routing, host side: which experts each token goes to and with what weight (plain C++, no
// HIP). One wave per token on the device (ops/moe/routing_kernel.hpp), on warp/warp_topk.hpp.
//
// Inputs: router logits [tokens][experts] (fp32, bf16 or fp16; from a wavekit GEMM x @ W_g^T or
// the caller). Outputs: ids [tokens][top_k] int32 and weights [tokens][top_k] fp32, in selection
// order (best first). Ties go to the lower expert id; a NaN score counts as -Inf.
//
// Rules:
//   softmax_topk          p = softmax(logits) over the experts (fp32); the top_k largest p; weights
//                         p, or p / (sum of the chosen p) with renormalize (amd-mixture-of-experts:
//                         no renormalisation).
//   grouped_sigmoid_topk  DeepSeek-V3/R1 (its published inference code): s = sigmoid(logit);
//                         choice = s + correction_bias[e], for selection only; the experts form
//                         n_group groups of experts / n_group consecutive ids, each scored by the
//                         sum of its two largest choice values; the topk_group best groups stay and
//                         every other expert's choice becomes -Inf; the top_k largest choice values;
//                         weights s of the chosen, divided by their sum with renormalize, then times
//                         routed_scaling_factor. (Hugging Face's port fills masked scores with 0.0
//                         instead of -Inf and adds 1e-20 to the sum; the two differ only when a kept
//                         group's choice values are negative, or for sums near 0.)
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>

#include "wavekit/core/platform.hpp"
#include "wavekit/core/status.hpp"

namespace wavekit::ops::moe {

inline constexpr int max_experts = 512;  // a wave holds 8 scores a lane
inline constexpr int max_top_k = 16;

struct routing_problem {
  int tokens, experts, top_k;
  std::string str() const {
    return std::to_string(tokens) + " tokens, " + std::to_string(experts) + " experts, top " + std::to_string(top_k);
  }
};

struct softmax_topk {
  bool renormalize = false;
};

struct grouped_sigmoid_topk {
  int n_group = 1, topk_group = 1;
  bool renormalize = true;
  float routed_scaling_factor = 1.0f;
  const float* correction_bias = nullptr;  // [experts] fp32, or null for none
};

// With shared_expert >= 0 each token's row holds top_k + 1 choices, the last one that expert
// (DeepSeek's and amd-mixture-of-experts' shared expert, as an extra id) with weight 1.
template <class Logit>
struct routing_args {
  const Logit* logits = nullptr;  // [tokens][experts]
  int* ids = nullptr;             // [tokens][top_k (+ 1)]
  float* weights = nullptr;       // [tokens][top_k (+ 1)]
  int shared_expert = -1;
  WAVEKIT_HOST_DEVICE int row_length(int top_k) const { return top_k + (shared_expert >= 0 ? 1 : 0); }
};

inline status validate_routing_shape(const routing_problem& p, const char* rule) {
  const std::string what = std::string("moe routing (") + rule + ") " + p.str() + ": ";
  if (p.tokens < 0) return {status_code::bad_shape, what + "tokens must be >= 0"};
  if (p.experts < 1 || p.experts > max_experts)
    return {status_code::bad_shape, what + "experts must be in [1, " + std::to_string(max_experts) + "]"};
  if (p.top_k < 1 || p.top_k > max_top_k || p.top_k > p.experts)
    return {status_code::bad_shape, what + "top_k must be in [1, min(" + std::to_string(max_top_k) + ", experts)]"};
  const std::size_t elements = std::size_t(p.tokens) * std::size_t(p.experts);
  if (elements * 4 > std::size_t(std::numeric_limits<std::int32_t>::max()))
    return {status_code::too_large, what + "the logits exceed 2^31 - 1 bytes (32-bit buffer offsets)"};
  return status::success();
}

inline status validate_rule(const routing_problem& p, const softmax_topk&) {
  return validate_routing_shape(p, "softmax top-k");
}

inline status validate_rule(const routing_problem& p, const grouped_sigmoid_topk& r) {
  if (status s = validate_routing_shape(p, "grouped sigmoid top-k"); !s.ok()) return s;
  const std::string what = "moe routing (grouped sigmoid top-k) " + p.str() + ": ";
  if (r.n_group < 1 || r.n_group > 64 || p.experts % r.n_group)
    return {status_code::bad_shape,
            what + "n_group (" + std::to_string(r.n_group) + ") must divide the experts and be in [1, 64]"};
  if (p.experts / r.n_group < 2)
    return {status_code::bad_shape, what + "each group needs at least 2 experts (groups are scored by their top 2)"};
  if (r.topk_group < 1 || r.topk_group > r.n_group)
    return {status_code::bad_shape, what + "topk_group (" + std::to_string(r.topk_group) + ") must be in [1, n_group]"};
  if (p.top_k > r.topk_group * (p.experts / r.n_group))
    return {status_code::bad_shape, what + "top_k exceeds the experts of the topk_group kept groups"};
  if (!(r.routed_scaling_factor == r.routed_scaling_factor) || r.routed_scaling_factor == 0.0f)
    return {status_code::bad_shape, what + "routed_scaling_factor must be a nonzero number"};
  return status::success();
}

template <class Rule, class Logit>
status validate_routing(const routing_problem& p, const Rule& rule, const routing_args<Logit>& a) {
  if (status s = validate_rule(p, rule); !s.ok()) return s;
  if (p.tokens == 0) return status::success();
  const std::string what = "moe routing " + p.str() + ": ";
  return check_pointer_arguments(what, {{"logits", a.logits, sizeof(Logit), "element alignment"},
                                        {"ids", a.ids, 4, "int32"},
                                        {"weights", a.weights, 4, "fp32"}});
}

}  // namespace wavekit::ops::moe
