// MoE routing, host side: which experts each token goes to and with what weight (plain C++, no
// HIP). One wave per token on the device (ops/moe/routing_kernel.hpp), on warp/warp_topk.hpp.
//
// Inputs: router logits [tokens][logits_stride] (fp32, bf16 or fp16; the first `experts` of each
// row are read, so a router GEMM's output padded to a whole N tile routes as it is). Outputs: ids
// [tokens][row_length] int32 and weights [tokens][row_length] fp32, the routed choices in
// selection order (best first), then the shared experts. Ties go to the lower expert id.
//
// Rules:
//   softmax_topk          p = softmax(logits) over the experts (fp32); the top_k largest p; weights
//                         p, or p / (sum of the chosen p) with renormalize (amd-mixture-of-experts:
//                         no renormalisation).
//   grouped_sigmoid_topk  DeepSeek-V3/R1 (its published inference code, model.py's Gate):
//                         s = sigmoid(logit); choice = s + correction_bias[e], for selection only;
//                         the experts form n_group groups of experts / n_group consecutive ids, each
//                         scored by the sum of its two largest choice values with a correction bias,
//                         by its largest choice value without one (the published code's two cases);
//                         the topk_group best groups stay and every other expert's choice becomes
//                         -Inf (n_group 1: no grouping); the top_k largest choice values; weights s
//                         of the chosen, divided by their sum with renormalize, then times
//                         routed_scaling_factor. (Hugging Face's port fills masked scores with 0.0
//                         instead of -Inf and adds 1e-20 to the sum; the two differ only when a kept
//                         group's choice values are negative, or for sums near 0.)
//
// Non-finite logits, under every rule: a NaN logit counts as -Inf (its expert's softmax p and
// sigmoid s are 0; it is chosen only after every expert with a larger score, by the lower id among
// equals), so one NaN changes no other expert's weight. When the largest logit of a row is
// infinite (+Inf, or -Inf because every logit is -Inf or NaN) softmax takes its limit: the experts
// holding it share the probability equally (an all-NaN row routes to ids 0 .. top_k - 1 with
// weights 1 / experts). Renormalisation divides by the chosen weights' sum only when it is
// positive: chosen sigmoid scores that are all 0 (logits of -Inf or NaN, or below about -88 in fp32)
// keep weights 0 where the published code would divide 0 by 0.
//
// Shared experts: with shared_expert >= 0 each row ends with n_shared more ids, shared_expert,
// shared_expert + 1, ..., each with weight 1 (DeepSeek's and amd-mixture-of-experts' shared
// expert, and models with several). A model whose shared MLP is one wider MLP (DeepSeek-V3's
// shared_experts: intermediate n_shared_experts * moe_inter_dim) maps onto n_shared experts of the
// routed experts' expert_dim: shared expert i takes rows [i * expert_dim, (i + 1) * expert_dim) of
// the wide gate and up weights and the same columns of down. The sum is the same in exact
// arithmetic; the layer rounds each expert's weighted down projection to the activation type before
// its fp32 combine, so n_shared partial results are rounded where the wide MLP rounds one (docs/
// moe.md, "Routing").
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>

#include "wavekit/core/platform.hpp"
#include "wavekit/core/status.hpp"
#include "wavekit/ops/moe/sort.hpp"

namespace wavekit::ops::moe {

inline constexpr int max_experts = 512;  // a wave holds 8 scores a lane
inline constexpr int max_top_k = 16;
inline constexpr int max_shared_experts = 16;  // a row's ids are written by one lane each
static_assert(max_top_k + max_shared_experts <= max_choices, "moe routing: a row must fit the layer's sort");

struct routing_problem {
  int tokens, experts, top_k;
  std::int64_t logits_stride = 0;  // elements from one token's logits to the next; 0: experts (packed)
  WAVEKIT_HOST_DEVICE std::int64_t row_stride() const { return logits_stride ? logits_stride : experts; }
  std::string str() const {
    return std::to_string(tokens) + " tokens, " + std::to_string(experts) + " experts, top " + std::to_string(top_k) +
           (logits_stride ? ", logits_stride " + std::to_string(logits_stride) : std::string());
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

// With shared_expert >= 0 each token's row holds top_k + n_shared choices, the last n_shared the
// ids shared_expert .. shared_expert + n_shared - 1 with weight 1 (the header comment).
template <class Logit>
struct routing_args {
  const Logit* logits = nullptr;  // [tokens][logits_stride]
  int* ids = nullptr;             // [tokens][row_length(top_k)]
  float* weights = nullptr;       // [tokens][row_length(top_k)]
  int shared_expert = -1;         // the first shared expert's id, or -1 for none
  int n_shared = 1;               // shared experts, 1 to max_shared_experts (with shared_expert >= 0)
  WAVEKIT_HOST_DEVICE int row_length(int top_k) const { return top_k + (shared_expert >= 0 ? n_shared : 0); }
};

inline status validate_routing_shape(const routing_problem& p, const char* rule) {
  const auto what = lazy([&] { return std::string("moe routing (") + rule + ") " + p.str() + ": "; });
  if (p.tokens < 0) return {status_code::bad_shape, what + "tokens must be >= 0"};
  if (p.experts < 1 || p.experts > max_experts)
    return {status_code::bad_shape, what + "experts must be in [1, " + std::to_string(max_experts) + "]"};
  if (p.top_k < 1 || p.top_k > max_top_k || p.top_k > p.experts)
    return {status_code::bad_shape, what + "top_k must be in [1, min(" + std::to_string(max_top_k) + ", experts)]"};
  if (p.logits_stride != 0 && p.logits_stride < p.experts)
    return {status_code::bad_shape, what + "logits_stride (" + std::to_string(p.logits_stride) +
                                        ") must be 0 (rows packed) or at least experts"};
  // The logits' span in bytes of the widest logit, in 64 bits (the stride alone first: no overflow).
  constexpr std::int64_t limit = std::numeric_limits<std::int32_t>::max();
  if (p.row_stride() > limit / 4 ||
      (p.tokens > 0 && ((std::int64_t(p.tokens) - 1) * p.row_stride() + p.experts) * 4 > limit))
    return {status_code::too_large, what + "the logits exceed 2^31 - 1 bytes (32-bit buffer offsets)"};
  return status::success();
}

inline status validate_rule(const routing_problem& p, const softmax_topk&) {
  return validate_routing_shape(p, "softmax top-k");
}

inline status validate_rule(const routing_problem& p, const grouped_sigmoid_topk& r) {
  if (status s = validate_routing_shape(p, "grouped sigmoid top-k"); !s.ok()) return s;
  const auto what = lazy([&] { return "moe routing (grouped sigmoid top-k) " + p.str() + ": "; });
  if (r.n_group < 1 || r.n_group > 64 || p.experts % r.n_group)
    return {status_code::bad_shape,
            what + "n_group (" + std::to_string(r.n_group) + ") must divide the experts and be in [1, 64]"};
  if (r.correction_bias && r.n_group > 1 && p.experts / r.n_group < 2)
    return {status_code::bad_shape, what +
                                        "with a correction bias each group needs at least 2 experts (groups are "
                                        "scored by the sum of their top 2)"};
  if (r.topk_group < 1 || r.topk_group > r.n_group)
    return {status_code::bad_shape, what + "topk_group (" + std::to_string(r.topk_group) + ") must be in [1, n_group]"};
  if (p.top_k > r.topk_group * (p.experts / r.n_group))
    return {status_code::bad_shape, what + "top_k exceeds the experts of the topk_group kept groups"};
  if (!std::isfinite(r.routed_scaling_factor) || r.routed_scaling_factor == 0.0f)
    return {status_code::bad_shape, what + "routed_scaling_factor (" + std::to_string(r.routed_scaling_factor) +
                                        ") must be finite and nonzero"};
  return status::success();
}

template <class Rule, class Logit>
status validate_routing(const routing_problem& p, const Rule& rule, const routing_args<Logit>& a) {
  if (status s = validate_rule(p, rule); !s.ok()) return s;
  const auto what = lazy([&] { return "moe routing " + p.str() + ": "; });
  if (a.shared_expert >= 0 && (a.n_shared < 1 || a.n_shared > max_shared_experts))
    return {status_code::bad_shape, what + "argument n_shared (" + std::to_string(a.n_shared) + ") must be in [1, " +
                                        std::to_string(max_shared_experts) + "]"};
  if (a.shared_expert < 0 && a.n_shared != 1)
    return {status_code::bad_shape, what + "argument n_shared (" + std::to_string(a.n_shared) +
                                        ") counts the shared experts from shared_expert, which is -1 (none)"};
  if (a.shared_expert >= 0 && std::int64_t(a.shared_expert) + a.n_shared - 1 > std::numeric_limits<std::int32_t>::max())
    return {status_code::bad_shape,
            what + "arguments shared_expert + n_shared - 1 (the last shared id) must fit int32"};
  if (p.tokens == 0) return status::success();
  return check_pointer_arguments(what, {{"logits", a.logits, sizeof(Logit), "element alignment"},
                                        {"ids", a.ids, 4, "int32"},
                                        {"weights", a.weights, 4, "fp32"}});
}

}  // namespace wavekit::ops::moe
