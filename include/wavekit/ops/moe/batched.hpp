// The MoE experts in the batched expert-parallel layout (what a dispatch library's low-latency
// all-to-all hands over): x [local_experts][max_tokens][hidden], row i of expert e a token when
// i < counts[e] (counts in device memory, never read on the host), and the output in the same
// layout, out[e][i] = down_e(SiLU(gate_e(x[e][i])) * up_e(x[e][i])) for i < counts[e] (rows at
// or past the count are unspecified: the library's combine does not read them, and it applies the
// routing weights itself). No sort: a small kernel turns the counts into the grouped GEMMs' tile
// table and row table; input rows past a count are never read, tiles past it cost nothing.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <hip/hip_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "wavekit/arch/codegen_targets.hpp"
#include "wavekit/core/layout.hpp"
#include "wavekit/core/math.hpp"
#include "wavekit/core/status.hpp"
#include "wavekit/ops/moe/batched_problem.hpp"
#include "wavekit/ops/moe/configs.hpp"
#include "wavekit/ops/moe/kernel.hpp"

namespace wavekit::ops::moe {

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

template <class Cfg, class T>
status launch_batched(const batched_problem& p, const batched_args<T>& a, hipStream_t stream) {
  if (status s = validate_batched_shape(p); !s.ok()) return s;
  const auto what = lazy([&] { return "moe (batched) " + p.str() + ": "; });
  if (status s = check_batched_tile(what, p, Cfg::block_m, Cfg::name()); !s.ok()) return s;
  const batched_workspace w = plan_batched_workspace(p, Cfg::block_m, sizeof(T));
  if (status s = check_layer_arguments(what, {"x", a.x, 16, "16-byte vector loads"}, {{"counts", a.counts, 4, "int32"}},
                                       a.gate, a.up, a.down, a.out, a.workspace, a.workspace_bytes, w.bytes);
      !s.ok())
    return s;
  const workspace_view ws{static_cast<unsigned char*>(a.workspace)};
  int *tile_expert = ws.at<int>(w.tile_expert), *row_index = ws.at<int>(w.row_index);
  T* hidden = ws.at<T>(w.hidden);
  const int rows = p.local_experts * p.max_tokens;
  launch_batched_layout(p, Cfg::block_m, a.counts, tile_expert, row_index, stream);
  const grouped_rows g{tile_expert, rows / Cfg::block_m, rows};
  with_weight_order(p.weight_order, [&]<layout O>() {
    launch_stage<Cfg, T, T, O, stage::gate_up>(g, a.x, row_index, rows, 0, a.gate, 2 * p.expert_dim, p.hidden,
                                               block::gate_up_args<block::scale_none_args>{}, hidden, stream, a.up);
    launch_stage<Cfg, T, T, O, stage::down>(g, static_cast<const T*>(hidden), row_index, rows, 0, a.down, p.hidden,
                                            p.expert_dim, block::scale_none_args{}, a.out, stream);
  });
  return launch_status(what);
}

// The batched layout over fp8 block-scaled weights: rows in use quantized 1x128 (x unless it
// arrives quantized, and the gated product), then the same two grouped GEMMs on fp8 tiles.
template <class Cfg, class T, class Fp8>
status launch_batched(const batched_problem& p, const batched_blockscale_args<T, Fp8>& a, hipStream_t stream) {
  if (status s = validate_batched_blockscale_shape(p); !s.ok()) return s;
  const auto what = lazy([&] { return "moe (batched) " + p.str() + ": "; });
  if (status s = check_batched_tile(what, p, Cfg::block_m, Cfg::name()); !s.ok()) return s;
  const batched_workspace w = plan_batched_workspace(p, Cfg::block_m, sizeof(T), weight_format::fp8_blockscale);
  pointer_argument x_argument{};
  if (status s = check_blockscale_arguments(what, a.x, a.x_fp8, a.x_scale, a.x_scales, a.gate_scale, a.up_scale,
                                            a.down_scale, x_argument);
      !s.ok())
    return s;
  if (status s = check_layer_arguments(what, x_argument, {{"counts", a.counts, 4, "int32"}}, a.gate, a.up, a.down,
                                       a.out, a.workspace, a.workspace_bytes, w.bytes);
      !s.ok())
    return s;
  const workspace_view ws{static_cast<unsigned char*>(a.workspace)};
  int *tile_expert = ws.at<int>(w.tile_expert), *row_index = ws.at<int>(w.row_index);
  T* hidden = ws.at<T>(w.hidden);
  Fp8* hidden_fp8 = ws.at<Fp8>(w.hidden_fp8);
  float* hidden_scale = ws.at<float>(w.hidden_scale);
  const int rows = p.local_experts * p.max_tokens;
  launch_batched_layout(p, Cfg::block_m, a.counts, tile_expert, row_index, stream);
  const auto [x, x_scale, per_token, x_ld] =
      quantize_or_take(a.x, a.x_fp8, a.x_scale, a.x_scales, rows, p.hidden, 0, row_index, w, ws, stream);
  const grouped_rows g{tile_expert, rows / Cfg::block_m, rows};
  using scales = block::grouped_group_scale_args;
  with_weight_order(p.weight_order, [&]<layout O>() {
    launch_stage<Cfg, T, Fp8, O, stage::gate_up>(
        g, x, row_index, rows, x_ld, a.gate, 2 * p.expert_dim, p.hidden,
        block::gate_up_args<scales>{{x_scale, a.gate_scale, row_index, rows, per_token},
                                    {x_scale, a.up_scale, row_index, rows, per_token}},
        hidden, stream, a.up);
    launch_quantize(static_cast<const T*>(hidden), rows, p.expert_dim, 0, row_index, hidden_fp8, hidden_scale, stream);
    launch_stage<Cfg, T, Fp8, O, stage::down>(
        g, static_cast<const Fp8*>(hidden_fp8), row_index, rows, 0, a.down, p.hidden, p.expert_dim,
        scales{hidden_scale, a.down_scale, row_index, rows, false}, a.out, stream);
  });
  return launch_status(what);
}

}  // namespace wavekit::ops::moe
