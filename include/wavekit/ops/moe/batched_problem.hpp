// The batched expert-parallel MoE layout, host side (plain C++, no HIP): the problem, the call's
// arguments, the workspace, the config choice and the rules a call checks before any launch. The
// kernels and the launch are in ops/moe/batched.hpp, which describes the layout.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "wavekit/core/layout.hpp"
#include "wavekit/core/numeric_types.hpp"
#include "wavekit/core/result.hpp"
#include "wavekit/core/status.hpp"
#include "wavekit/ops/moe/configs.hpp"
#include "wavekit/ops/moe/problem.hpp"

namespace wavekit::ops::moe {

struct batched_problem {
  int local_experts, max_tokens, hidden, expert_dim;
  layout weight_order;
  std::string str() const {
    return std::to_string(local_experts) + " experts x " + std::to_string(max_tokens) + " tokens, hidden " +
           std::to_string(hidden) + ", expert dim " + std::to_string(expert_dim) + ", weights " +
           to_string(weight_order);
  }
};

template <class T>
struct batched_args {
  const T* x = nullptr;            // [local_experts][max_tokens][hidden]
  const int* counts = nullptr;     // [local_experts] in device memory
  const T* const* gate = nullptr;  // [local_experts] device pointers
  const T* const* up = nullptr;
  const T* const* down = nullptr;
  T* out = nullptr;  // [local_experts][max_tokens][hidden]
  void* workspace = nullptr;
  std::size_t workspace_bytes = 0;
};

// fp8 block-scaled expert weights (as in blockscale_args): x in T, quantized 1x128 here, or already
// quantized (x_fp8 with x_scale per 128 columns, [local_experts][max_tokens][hidden/128], or per
// token, [local_experts][max_tokens]).
template <class T, class Fp8>
struct batched_blockscale_args {
  static_assert(std::is_same_v<T, bf16> || std::is_same_v<T, fp16>, "moe: activations and outputs are bf16 or fp16");
  static_assert(std::is_same_v<Fp8, fp8_e4m3fnuz> || std::is_same_v<Fp8, fp8_e4m3fn>,
                "moe: fp8 weights are e4m3fnuz (gfx942) or e4m3fn (gfx950)");
  const T* x = nullptr;  // [local_experts][max_tokens][hidden], or null when x_fp8 is given
  const int* counts = nullptr;
  const Fp8* const* gate = nullptr;
  const Fp8* const* up = nullptr;
  const Fp8* const* down = nullptr;
  const float* const* gate_scale = nullptr;  // [local_experts] device pointers to 128x128 block scales
  const float* const* up_scale = nullptr;
  const float* const* down_scale = nullptr;
  T* out = nullptr;
  void* workspace = nullptr;
  std::size_t workspace_bytes = 0;
  const Fp8* x_fp8 = nullptr;
  const float* x_scale = nullptr;
  scale_granularity x_scales = scale_granularity::group_1x128;
};

// Workspace: the tile table and row table, then the gated product per row (in T); with fp8
// weights also the quantized intermediates.
struct batched_workspace : quantized_intermediates {
  std::size_t tile_expert, row_index, hidden;
  std::size_t bytes;
};
inline batched_workspace plan_batched_workspace(const batched_problem& p, int tile_m, std::size_t element_bytes,
                                                weight_format weights = weight_format::half) {
  const std::size_t rows = std::size_t(p.local_experts) * p.max_tokens;
  workspace_cursor c;
  batched_workspace w;
  w.tile_expert = c.take(4 * rows / tile_m);
  w.row_index = c.take(4 * rows);
  w.hidden = c.take(element_bytes * rows * p.expert_dim);
  if (weights == weight_format::fp8_blockscale) w.take(c, rows, p.hidden, rows, p.expert_dim);
  w.bytes = c.at;
  return w;
}

// The config for a max_tokens: the largest M tile that divides it (tiles never straddle experts).
inline config_id choose_batched_config(const batched_problem& p) {
  return p.max_tokens % 128 == 0 && p.max_tokens >= 256 ? config_id::prefill
         : p.max_tokens % 64 == 0 && p.max_tokens >= 64 ? config_id::medium
                                                        : config_id::decode;
}

inline status validate_batched_shape(const batched_problem& p) {
  const auto what = lazy([&] { return "moe (batched) " + p.str() + ": "; });
  if (p.local_experts < 1) return {status_code::bad_shape, what + "local_experts must be >= 1"};
  if (p.max_tokens < 16 || p.max_tokens % 16)
    return {status_code::bad_shape, what + "max_tokens must be a positive multiple of 16 (the smallest M tile)"};
  if (p.hidden <= 0 || p.hidden % 16 || p.expert_dim <= 0 || p.expert_dim % 16)
    return {status_code::bad_shape, what + "hidden and expert_dim must be positive multiples of 16"};
  if (p.weight_order != layout::k_contiguous && p.weight_order != layout::mn_contiguous)
    return {status_code::bad_shape, what + "weight_order must be layout::k_contiguous or layout::mn_contiguous"};
  const std::size_t rows = std::size_t(p.local_experts) * p.max_tokens;
  if (rows * std::max(p.hidden, p.expert_dim) * 2 > std::size_t(std::numeric_limits<std::int32_t>::max()) ||
      std::size_t(p.hidden) * p.expert_dim * 2 > std::size_t(std::numeric_limits<std::int32_t>::max()))
    return {status_code::too_large, what + "a tensor exceeds 2^31 - 1 bytes (32-bit buffer offsets)"};
  return status::success();
}

inline status validate_batched_blockscale_shape(const batched_problem& p) {
  if (status s = validate_batched_shape(p); !s.ok()) return s;
  return check_scale_blocks("moe (batched) " + p.str() + ": ", p.hidden, p.expert_dim);
}

// The workspace the chosen config needs, for elements of element_bytes (2: bf16 / fp16) and the
// given weights.
inline result<std::size_t> batched_workspace_bytes(const batched_problem& p, std::size_t element_bytes = 2,
                                                   weight_format weights = weight_format::half) {
  if (status s = weights == weight_format::half ? validate_batched_shape(p) : validate_batched_blockscale_shape(p);
      !s.ok())
    return s;
  const int tile_m = block_m_of(choose_batched_config(p));
  return plan_batched_workspace(p, tile_m, element_bytes, weights).bytes;
}

inline status check_batched_tile(text_ref what, const batched_problem& p, int tile_m, const std::string& config) {
  if (p.max_tokens % tile_m) return {status_code::bad_config, what + config + "'s M tile must divide max_tokens"};
  return status::success();
}

}  // namespace wavekit::ops::moe
