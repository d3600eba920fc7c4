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

// Workspace: the tile table and row table, then the gate projection and gated product per row.
struct batched_workspace {
  std::size_t tile_expert, row_index, gate, hidden, bytes;
};
inline batched_workspace plan_batched_workspace(const batched_problem& p, int tile_m, std::size_t element_bytes) {
  const std::size_t rows = std::size_t(p.local_experts) * p.max_tokens;
  auto round = [](std::size_t b) { return (b + 255) / 256 * 256; };
  batched_workspace w;
  w.tile_expert = 0;
  w.row_index = round(4 * rows / tile_m);
  w.gate = w.row_index + round(4 * rows);
  w.hidden = w.gate + round(element_bytes * rows * p.expert_dim);
  w.bytes = w.hidden + round(element_bytes * rows * p.expert_dim);
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

inline result<std::size_t> batched_workspace_bytes(const batched_problem& p, std::size_t element_bytes = 2) {
  if (status s = validate_batched_shape(p); !s.ok()) return s;
  const int tile_m = with_config(choose_batched_config(p), [](auto cfg) { return decltype(cfg)::block_m; });
  return plan_batched_workspace(p, tile_m, element_bytes).bytes;
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

template <class Cfg, class T>
status launch_batched(const batched_problem& p, const batched_args<T>& a, hipStream_t stream) {
  if (status s = validate_batched_shape(p); !s.ok()) return s;
  const std::string what = "moe (batched) " + p.str() + ": ";
  if (p.max_tokens % Cfg::block_m)
    return {status_code::bad_config, what + Cfg::name() + "'s M tile must divide max_tokens"};
  const batched_workspace w = plan_batched_workspace(p, Cfg::block_m, sizeof(T));
  if (status s = check_layer_arguments(what, a.x, {{"counts", a.counts, 4, "int32"}}, a.gate, a.up, a.down, a.out,
                                       a.workspace, a.workspace_bytes, w.bytes);
      !s.ok())
    return s;
  auto* base = static_cast<unsigned char*>(a.workspace);
  int* tile_expert = reinterpret_cast<int*>(base + w.tile_expert);
  int* row_index = reinterpret_cast<int*>(base + w.row_index);
  T* gate = reinterpret_cast<T*>(base + w.gate);
  T* hidden = reinterpret_cast<T*>(base + w.hidden);
  const int rows = p.local_experts * p.max_tokens;
  hipLaunchKernelGGL(moe_batched_layout_kernel<256>, dim3(static_cast<unsigned>(ceil_div(rows, 256))), dim3(256), 0,
                     stream, p, Cfg::block_m, a.counts, tile_expert, row_index);
  const grouped_rows g{tile_expert, rows / Cfg::block_m, rows};
  auto stages = [&]<layout O>() {
    launch_stage<Cfg, T, O, stage::gate>(g, a.x, row_index, rows, a.gate, p.expert_dim, p.hidden,
                                         block::scale_none_args{}, gate, stream);
    launch_stage<Cfg, T, O, stage::up_gated>(g, a.x, row_index, rows, a.up, p.expert_dim, p.hidden,
                                             block::gate_args<T>{gate}, hidden, stream);
    launch_stage<Cfg, T, O, stage::down>(g, hidden, row_index, rows, a.down, p.hidden, p.expert_dim,
                                         block::scale_none_args{}, a.out, stream);
  };
  if (p.weight_order == layout::k_contiguous)
    stages.template operator()<layout::k_contiguous>();
  else
    stages.template operator()<layout::mn_contiguous>();
  if (hipError_t e = hipGetLastError(); e != hipSuccess)
    return {status_code::launch_failed, what + hipGetErrorString(e)};
  return status::success();
}

}  // namespace wavekit::ops::moe
