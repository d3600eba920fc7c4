// The MoE layer after routing, host side (plain C++, no HIP):
//
//   out[t] = sum over j < top_k of weights[t][j] * down_e( SiLU(gate_e(x[t])) * up_e(x[t]) ),
//            e = ids[t][j], only for local experts e in [expert_begin, expert_begin + local_experts)
//
// x [tokens][hidden] and out in T (bf16 or fp16); ids int32 and weights fp32 [tokens][top_k] from
// a router (ops/moe/routing.hpp) or the caller (a shared expert is one more id per token with
// weight 1, as in amd-moe-mxfp4's inputs). Expert weights are read in place through device
// tables of pointers indexed by local expert (local expert i is global id expert_begin + i), in
// one of two storage orders:
//   layout::mn_contiguous  gate, up [hidden][expert_dim], down [expert_dim][hidden]
//                          (amd-mixture-of-experts' storage: x @ W)
//   layout::k_contiguous   gate, up [expert_dim][hidden], down [hidden][expert_dim]
//                          (nn.Linear's weight: x @ W^T)
// The contributions of a token are summed in choice order (j = 0, 1, ...) in fp32: the same bits on
// every run. Ids outside [0, experts) contribute nothing (the sort counts them).
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "wavekit/core/layout.hpp"
#include "wavekit/core/numeric_types.hpp"
#include "wavekit/core/status.hpp"
#include "wavekit/ops/moe/sort.hpp"

namespace wavekit::ops::moe {

struct problem {
  int tokens, hidden, expert_dim;
  int experts, top_k;
  int expert_begin, local_experts;
  layout weight_order;
  std::string str() const {
    return std::to_string(tokens) + " tokens, hidden " + std::to_string(hidden) + ", expert dim " +
           std::to_string(expert_dim) + ", top " + std::to_string(top_k) + " of " + std::to_string(experts) +
           " experts (local [" + std::to_string(expert_begin) + ", " + std::to_string(expert_begin + local_experts) +
           ")), weights " + to_string(weight_order);
  }
  sort_problem sort(int tile_m) const { return {tokens, top_k, experts, expert_begin, local_experts, tile_m}; }
};

template <class T>
struct args {
  static_assert(std::is_same_v<T, bf16> || std::is_same_v<T, fp16>, "moe: activations and weights are bf16 or fp16");
  const T* x = nullptr;            // [tokens][hidden]
  const int* ids = nullptr;        // [tokens][top_k]
  const float* weights = nullptr;  // [tokens][top_k]
  const T* const* gate = nullptr;  // [local_experts] device pointers
  const T* const* up = nullptr;    // [local_experts]
  const T* const* down = nullptr;  // [local_experts]
  T* out = nullptr;                // [tokens][hidden], each token's sum over its choices; or null
  void* workspace = nullptr;       // workspace_bytes(problem) bytes, 256-byte aligned
  std::size_t workspace_bytes = 0;
  T* out_unreduced = nullptr;  // [tokens][top_k][hidden], each choice's weighted result (0 where its
                               // expert is not local: the standard EP layout's unreduced output), or
                               // null. At least one of out and out_unreduced.
};

// Where the pipeline keeps its intermediates in the workspace: the sort's outputs, then per sorted
// row the gate projection, the gated product and the down projection (all in T).
struct workspace_layout {
  sort_capacity cap;
  std::size_t counts, offsets, sorted_slots, sorted_tokens, row_index, tile_expert, inverse, invalid_ids;
  std::size_t gate, hidden, down;
  std::size_t bytes;
};

inline workspace_layout plan_workspace(const problem& p, int tile_m, std::size_t element_bytes) {
  workspace_layout w;
  w.cap = capacity(p.sort(tile_m));
  std::size_t at = 0;
  auto take = [&](std::size_t bytes) {
    const std::size_t here = at;
    at += (bytes + 255) / 256 * 256;
    return here;
  };
  const std::size_t slots = std::size_t(p.tokens) * p.top_k, rows = std::size_t(w.cap.rows);
  w.counts = take(4 * std::size_t(p.local_experts));
  w.offsets = take(4 * (std::size_t(p.local_experts) + 1));
  w.sorted_slots = take(4 * rows);
  w.sorted_tokens = take(4 * rows);
  w.row_index = take(4 * rows);
  w.tile_expert = take(4 * std::size_t(w.cap.tiles));
  w.inverse = take(4 * slots);
  w.invalid_ids = take(4);
  w.gate = take(element_bytes * rows * p.expert_dim);
  w.hidden = take(element_bytes * rows * p.expert_dim);
  w.down = take(element_bytes * rows * p.hidden);
  w.bytes = at;
  return w;
}

inline status validate_shape(const problem& p) {
  const std::string what = "moe " + p.str() + ": ";
  if (p.tokens < 0) return {status_code::bad_shape, what + "tokens must be >= 0"};
  if (p.hidden <= 0 || p.hidden % 16)
    return {status_code::bad_shape, what + "hidden must be a positive multiple of 16"};
  if (p.expert_dim <= 0 || p.expert_dim % 16)
    return {status_code::bad_shape, what + "expert_dim must be a positive multiple of 16"};
  if (p.weight_order != layout::k_contiguous && p.weight_order != layout::mn_contiguous)
    return {status_code::bad_shape, what + "weight_order must be layout::k_contiguous or layout::mn_contiguous"};
  constexpr std::size_t limit = std::numeric_limits<std::int32_t>::max();
  const std::size_t slots = std::size_t(p.tokens) * p.top_k;
  if (std::size_t(p.tokens) * p.hidden * 2 > limit || std::size_t(p.hidden) * p.expert_dim * 2 > limit ||
      (slots + std::size_t(p.local_experts) * 256) * std::max(p.hidden, p.expert_dim) * 2 > limit)
    return {status_code::too_large, what + "a tensor exceeds 2^31 - 1 bytes (32-bit buffer offsets)"};
  return status::success();
}

}  // namespace wavekit::ops::moe
