// The MoE experts in the batched expert-parallel layout (what a dispatch library's low-latency
// all-to-all hands over): x [local_experts][max_tokens][hidden], row i of expert e a token when
// i < counts[e] (counts in device memory, never read on the host), and the output in the same
// layout, out[e][i] = down_e(SiLU(gate_e(x[e][i])) * up_e(x[e][i])) for i < counts[e] (rows at
// or past the count are unspecified: the library's combine does not read them, and it applies the
// routing weights itself). No sort: a small kernel turns the counts into the grouped GEMMs' tile
// table and row table; input rows past a count are never read, tiles past it cost nothing.
#pragma once

#include <hip/hip_runtime.h>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>

#include "wavekit/arch/codegen_targets.hpp"
#include "wavekit/core/layout.hpp"
#include "wavekit/core/math.hpp"
#include "wavekit/core/result.hpp"
#include "wavekit/core/status.hpp"
#include "wavekit/ops/moe/configs.hpp"
#include "wavekit/ops/moe/kernel.hpp"

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
  activation_scaling x_scaling = activation_scaling::per_128;
};

// Workspace: the tile table and row table, then the gate projection and gated product per row;
// with fp8 weights also the quantized intermediates.
struct batched_workspace : quantized_intermediates {
  std::size_t tile_expert, row_index, gate, hidden;
  std::size_t bytes;
};
inline batched_workspace plan_batched_workspace(const batched_problem& p, int tile_m, std::size_t element_bytes,
                                                weight_format weights = weight_format::half) {
  const std::size_t rows = std::size_t(p.local_experts) * p.max_tokens;
  workspace_cursor c;
  batched_workspace w;
  w.tile_expert = c.take(4 * rows / tile_m);
  w.row_index = c.take(4 * rows);
  w.gate = c.take(element_bytes * rows * p.expert_dim);
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
  const std::string what = "moe (batched) " + p.str() + ": ";
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
  const int tile_m = with_config(choose_batched_config(p), [](auto cfg) { return decltype(cfg)::block_m; });
  return plan_batched_workspace(p, tile_m, element_bytes, weights).bytes;
}

// Row r = e * max_tokens + i: r where i < counts[e] (clamped to max_tokens), else -1; tile q of
// expert e: e where it holds a row in use, else -1.
template <int Threads = 256>
__global__ __launch_bounds__(Threads) void moe_batched_layout_kernel(batched_problem p, int tile_m, const int* counts,
                                                                     int* tile_expert, int* row_index) {
  arch::declare_codegen_targets<0, 8>();
  const int r = static_cast<int>(blockIdx.x) * Threads + static_cast<int>(threadIdx.x);
  if (r >= p.local_experts * p.max_tokens) return;
  const int e = r / p.max_tokens, i = r % p.max_tokens;
  const int count = counts[e];
  row_index[r] = i < count ? r : -1;
  if (i % tile_m == 0) tile_expert[r / tile_m] = i < count ? e : -1;
}

// The tile and row tables from the counts.
inline void launch_batched_layout(const batched_problem& p, int tile_m, const int* counts, int* tile_expert,
                                  int* row_index, hipStream_t stream) {
  const int rows = p.local_experts * p.max_tokens;
  hipLaunchKernelGGL(moe_batched_layout_kernel<256>, dim3(static_cast<unsigned>(ceil_div(rows, 256))), dim3(256), 0,
                     stream, p, tile_m, counts, tile_expert, row_index);
}

inline status check_batched_tile(const std::string& what, const batched_problem& p, int tile_m,
                                 const std::string& config) {
  if (p.max_tokens % tile_m) return {status_code::bad_config, what + config + "'s M tile must divide max_tokens"};
  return status::success();
}

template <class Cfg, class T>
status launch_batched(const batched_problem& p, const batched_args<T>& a, hipStream_t stream) {
  if (status s = validate_batched_shape(p); !s.ok()) return s;
  const std::string what = "moe (batched) " + p.str() + ": ";
  if (status s = check_batched_tile(what, p, Cfg::block_m, Cfg::name()); !s.ok()) return s;
  const batched_workspace w = plan_batched_workspace(p, Cfg::block_m, sizeof(T));
  if (status s = check_layer_arguments(what, {"x", a.x, 16, "16-byte vector loads"}, {{"counts", a.counts, 4, "int32"}},
                                       a.gate, a.up, a.down, a.out, a.workspace, a.workspace_bytes, w.bytes);
      !s.ok())
    return s;
  const workspace_view ws{static_cast<unsigned char*>(a.workspace)};
  int *tile_expert = ws.at<int>(w.tile_expert), *row_index = ws.at<int>(w.row_index);
  T *gate = ws.at<T>(w.gate), *hidden = ws.at<T>(w.hidden);
  const int rows = p.local_experts * p.max_tokens;
  launch_batched_layout(p, Cfg::block_m, a.counts, tile_expert, row_index, stream);
  const grouped_rows g{tile_expert, rows / Cfg::block_m, rows};
  with_weight_order(p.weight_order, [&]<layout O>() {
    launch_stage<Cfg, T, T, O, stage::gate>(g, a.x, row_index, rows, a.gate, p.expert_dim, p.hidden,
                                            block::scale_none_args{}, gate, stream);
    launch_stage<Cfg, T, T, O, stage::up_gated>(g, a.x, row_index, rows, a.up, p.expert_dim, p.hidden,
                                                block::gate_args<block::scale_none_args, T>{{}, gate}, hidden, stream);
    launch_stage<Cfg, T, T, O, stage::down>(g, static_cast<const T*>(hidden), row_index, rows, a.down, p.hidden,
                                            p.expert_dim, block::scale_none_args{}, a.out, stream);
  });
  return launch_status(what);
}

// The batched layout over fp8 block-scaled weights: rows in use quantized 1x128 (x unless it
// arrives quantized, and the gated product), then the same three grouped GEMMs on fp8 tiles.
template <class Cfg, class T, class Fp8>
status launch_batched(const batched_problem& p, const batched_blockscale_args<T, Fp8>& a, hipStream_t stream) {
  if (status s = validate_batched_blockscale_shape(p); !s.ok()) return s;
  const std::string what = "moe (batched) " + p.str() + ": ";
  if (status s = check_batched_tile(what, p, Cfg::block_m, Cfg::name()); !s.ok()) return s;
  const batched_workspace w = plan_batched_workspace(p, Cfg::block_m, sizeof(T), weight_format::fp8_blockscale);
  pointer_argument x_argument{};
  if (status s = check_blockscale_arguments(what, a.x, a.x_fp8, a.x_scale, a.x_scaling, a.gate_scale, a.up_scale,
                                            a.down_scale, x_argument);
      !s.ok())
    return s;
  if (status s = check_layer_arguments(what, x_argument, {{"counts", a.counts, 4, "int32"}}, a.gate, a.up, a.down,
                                       a.out, a.workspace, a.workspace_bytes, w.bytes);
      !s.ok())
    return s;
  const workspace_view ws{static_cast<unsigned char*>(a.workspace)};
  int *tile_expert = ws.at<int>(w.tile_expert), *row_index = ws.at<int>(w.row_index);
  T *gate = ws.at<T>(w.gate), *hidden = ws.at<T>(w.hidden);
  Fp8* hidden_fp8 = ws.at<Fp8>(w.hidden_fp8);
  float* hidden_scale = ws.at<float>(w.hidden_scale);
  const int rows = p.local_experts * p.max_tokens;
  launch_batched_layout(p, Cfg::block_m, a.counts, tile_expert, row_index, stream);
  const auto [x, x_scale, per_token] =
      quantize_or_take(a.x, a.x_fp8, a.x_scale, a.x_scaling, rows, p.hidden, row_index, w, ws, stream);
  const grouped_rows g{tile_expert, rows / Cfg::block_m, rows};
  using scales = block::grouped_group_scale_args;
  with_weight_order(p.weight_order, [&]<layout O>() {
    launch_stage<Cfg, T, Fp8, O, stage::gate>(g, x, row_index, rows, a.gate, p.expert_dim, p.hidden,
                                              scales{x_scale, a.gate_scale, row_index, rows, per_token}, gate, stream);
    launch_stage<Cfg, T, Fp8, O, stage::up_gated>(
        g, x, row_index, rows, a.up, p.expert_dim, p.hidden,
        block::gate_args<scales, T>{{x_scale, a.up_scale, row_index, rows, per_token}, gate}, hidden, stream);
    launch_quantize(static_cast<const T*>(hidden), rows, p.expert_dim, row_index, hidden_fp8, hidden_scale, stream);
    launch_stage<Cfg, T, Fp8, O, stage::down>(g, static_cast<const Fp8*>(hidden_fp8), row_index, rows, a.down, p.hidden,
                                              p.expert_dim, scales{hidden_scale, a.down_scale, row_index, rows, false},
                                              a.out, stream);
  });
  return launch_status(what);
}

}  // namespace wavekit::ops::moe
