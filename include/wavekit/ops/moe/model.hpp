// The performance model's view of the MoE layer (planning/model/launch_time.hpp): its launches for a config,
// a weight format and the rows each local expert gets, with the codegen figures of each kernel on
// the target, and the model's time for them.
//
//   sort             one workgroup of 16 waves over the ids
//   quantize x       fp8 block-scaled and MX weights only
//   gate and up      one grouped GEMM over the gate and up weights side by side: N = 2 x
//                    expert_dim (block/gate_up_pair.hpp), K = hidden, over every expert's M tiles;
//                    it stores expert_dim columns of the gated product
//   quantize h       fp8 block-scaled and MX weights only, the rows in use
//   down weighted    grouped GEMM: N = hidden, K = expert_dim, fp32 rows
//   combine          each token's fp32 slots summed
//
// A grouped GEMM is the sum of each expert's tiled GEMM (planning::gemm_launches over its rows) as one
// launch: each M tile of an expert reads all of the expert's weights, so DRAM serves the weights of
// the experts with rows once and the activations once. Blocks of the grid past the rows in use
// return after one table read and are left out.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "wavekit/arch/target.hpp"
#include "wavekit/ops/moe/configs.hpp"
#include "wavekit/ops/moe/configs_blockscale.hpp"
#include "wavekit/ops/moe/configs_mx.hpp"
#include "wavekit/ops/moe/problem.hpp"
#include "wavekit/planning/model/gemm_work.hpp"
#include "wavekit/planning/model/launch_time.hpp"
#include "wavekit/planning/model/profiles.hpp"

namespace wavekit::ops::moe {

// The op's codegen instances (planning/instances.hpp): the grouped GEMM of a config and stage over
// bf16 / fp16 weights or, with `fp8`, fp8 block-scaled ones (moe_fp8; the MX GEMMs are one
// hand-written instance, moe_mx).
inline constexpr const planning::instance_family& codegen_family = planning::family_named("moe");
inline std::string codegen_instance(bool fp8, config_id id, const char* stage) {
  return planning::instance_name(fp8 ? planning::family_named("moe_fp8") : codegen_family, config_id_name(id), stage);
}

// fp8 block-scaled weights: the config of the same name (the two lists share names and M tiles).
inline blockscale::config_id blockscale_config_of(config_id id) {
  switch (id) {
    case config_id::decode: return blockscale::config_id::decode;
    case config_id::medium: return blockscale::config_id::medium;
    case config_id::prefill: break;
  }
  return blockscale::config_id::prefill;
}

// Rows each local expert gets from ids [tokens][top_k] (the sort's counts).
inline std::vector<int> expert_rows(const problem& p, std::span<const int> ids) {
  std::vector<int> rows(std::size_t(std::max(0, p.local_experts)), 0);
  for (int id : ids)
    if (id >= p.expert_begin && std::int64_t{id} < std::int64_t{p.expert_begin} + p.local_experts)
      ++rows[std::size_t(id - p.expert_begin)];
  return rows;
}

// Tokens with at least one local expert in ids [tokens][top_k]: the rows of x the gate and up
// projections read (all of them without expert parallelism).
inline int local_tokens(const problem& p, std::span<const int> ids) {
  int n = 0;
  for (int t = 0; t < p.tokens; ++t)
    for (int j = 0; j < p.top_k; ++j) {
      const int id = ids[std::size_t(t) * p.top_k + j];
      if (id >= p.expert_begin && std::int64_t{id} < std::int64_t{p.expert_begin} + p.local_experts) {
        ++n;
        break;
      }
    }
  return n;
}

// Rows under even routing, what a plan made before the ids are known assumes: the slots spread
// over all experts, each local expert with its share (rounded up).
inline std::vector<int> even_expert_rows(const problem& p) {
  const int share = p.experts > 0 ? int(std::ceil(double(p.tokens) * p.top_k / p.experts)) : 0;
  return std::vector<int>(std::size_t(std::max(0, p.local_experts)), std::min(share, p.tokens));
}

namespace model_detail {

// What a grouped GEMM's operands cost, and the kernel it runs.
struct grouped_stage {
  int n, k;
  planning::gemm_tile tile;
  planning::gemm_operands operands;  // as the K loop loads them (planning/model/gemm_work.hpp), A's rows gathered
  double a_bytes_once;               // per element of A, its scales included: what DRAM serves
  double b_scales_once;              // per expert: the block scales of its weights
  const planning::kernel_profile* profile;
};

// What the epilogue reads beyond C's stores: nothing; a row index and a routing weight per row
// (down, weighted: block/epilogue_fused.hpp's gathered_row_weights).
enum class epilogue_reads { none, row_weights };

// One grouped GEMM over `rows` per expert, its A rows gathered from a_rows_once distinct rows.
// Every tile of an expert's rows, padding rows included, stores its C rows: out_columns of
// out_bytes each (N, or N / 2 for the gate and up pair).
inline planning::launch_work grouped_gemm(const char* what, const grouped_stage& s, std::span<const int> rows,
                                          double a_rows_once, epilogue_reads reads, double out_columns,
                                          double out_bytes) {
  planning::launch_work w;
  w.profile = s.profile;
  w.what = what;
  w.waves_per_workgroup = s.tile.threads / 64;
  double rows_in_use = 0, padded_rows = 0;
  planning::launch_work e;
  int e_rows = 0;  // the rows e is for: experts with as many rows cost the same
  for (int r : rows) {
    if (r == 0) continue;
    if (r != e_rows) {
      e = planning::gemm_launches(r, s.n, s.k, s.tile, s.operands, 1, s.profile, nullptr)[0];
      e_rows = r;
    }
    w.workgroups += e.workgroups;
    w.loaded_bytes += e.loaded_bytes;
    w.loop_iterations_per_wave = e.loop_iterations_per_wave;
    w.lds_bytes_per_workgroup = e.lds_bytes_per_workgroup;
    w.dram_read_bytes += double(s.n) * s.k * (s.operands.b_bytes + s.operands.b_scale_bytes) + s.b_scales_once;
    rows_in_use += r;
    padded_rows += std::ceil(double(r) / s.tile.block_m) * s.tile.block_m;
  }
  w.dram_read_bytes += a_rows_once * s.k * s.a_bytes_once;
  const double tiles_n = std::ceil(double(s.n) / s.tile.block_n), waves_n = s.tile.block_n / s.tile.wave_n;
  if (reads == epilogue_reads::row_weights) {
    // Each wave loads its rows' slots (padding rows too) and the weights of the slots.
    w.loaded_bytes += tiles_n * waves_n * 4 * (padded_rows + rows_in_use);
    w.dram_read_bytes += 4 * (padded_rows + rows_in_use);
  }
  w.written_bytes = padded_rows * out_columns * out_bytes;
  return w;
}

// A kernel of 256 threads over rows x cols, 8 values a lane, reading 16-bit values and writing
// `out_bytes` per value.
inline planning::launch_work quantize(const char* what, const planning::kernel_profile* profile, double rows, int cols,
                                      double out_bytes) {
  planning::launch_work w;
  w.profile = profile;
  w.what = what;
  w.workgroups = std::ceil(rows * cols / 8 / 256);
  w.waves_per_workgroup = 4;
  w.loaded_bytes = w.dram_read_bytes = rows * cols * 2.0;
  w.written_bytes = rows * cols * out_bytes;
  return w;
}

}  // namespace model_detail

// The launches of the layer over weights `weights` with config `id` (for MX weights the gemm_mx
// config of the same M tile; MXFP4 pre-shuffled), `rows` per local expert, on target t. The gate
// and up projections read x's rows of `tokens_here` tokens (local_tokens; -1: every token, as
// without expert parallelism).
inline std::vector<planning::launch_work> model_launches(const problem& p, weight_format weights, config_id id,
                                                         std::span<const int> rows, arch::target t,
                                                         int tokens_here = -1) {
  using model_detail::grouped_stage;
  const bool mx = weights == weight_format::mxfp4 || weights == weight_format::mxfp8;
  const bool fp8 = weights == weight_format::fp8_blockscale;
  const double slots = double(p.tokens) * p.top_k;
  double rows_in_use = 0;
  for (int r : rows) rows_in_use += r;
  // Per element: bf16, fp8 with fp32 scales per 128 x 128 (per step: below), MX with an e8m0 per 32.
  const double element = weights == weight_format::half ? 2.0 : weights == weight_format::mxfp4 ? 0.5 : 1.0;
  const double operand = element + (mx ? 1.0 / 32 : 0.0);
  const planning::gemm_tile tile = [&] {
    if (mx)
      return with_mx_config(id, [&](auto cfg) {
        using C = decltype(cfg);
        const int bk = weights == weight_format::mxfp4 ? gemm_mx::block_k_of<C>(gemm_mx::mx_format::mxfp4)
                                                       : gemm_mx::block_k_of<C>(gemm_mx::mx_format::mxfp8);
        return planning::gemm_tile{C::block_m, C::block_n, bk, C::wave_m, C::wave_n, C::threads};
      });
    if (fp8)
      return blockscale::with_config(blockscale_config_of(id), [&](auto cfg) {
        using C = decltype(cfg);
        const int bk = t == arch::target::gfx950 ? C::template on<arch::target::gfx950>::block_k
                                                 : C::template on<arch::target::gfx942>::block_k;
        return planning::gemm_tile{C::block_m, C::block_n, bk, C::shape::wave_m, C::shape::wave_n, C::threads};
      });
    return with_config(id, [&](auto cfg) {
      using C = decltype(cfg);
      return planning::gemm_tile{C::block_m, C::block_n, C::block_k, C::wave_m, C::wave_n, C::threads};
    });
  }();
  auto gemm_profile = [&](const char* stage) -> const planning::kernel_profile* {
    if (mx)
      return planning::find_op_kernel(
          t, codegen_family.op,
          "moe_mx_gemm_kernel<" + std::to_string(tile.block_m) + "x" + std::to_string(tile.block_n) + "x",
          std::string(", ") + (weights == weight_format::mxfp4 ? "e2m1, true, " : "e4m3fn, false, ") + stage + ">");
    return planning::find_profile(t, codegen_instance(fp8, id, stage));
  };
  // The K loop's scales. fp8 (block/scale_group_promotion.hpp): A's 1x128 fp32 scales with its
  // gathered rows (padding rows load none), B's 128x128 each group by every row thread of a
  // block (BlockN is 128: one scale block), the expert's once. MX (block/scale_in_instruction.hpp):
  // each wave loads its rows' and columns' e8m0 scales, a byte per 32.
  const double a_scale_bytes = fp8 ? 4.0 / 128 : 0;  // x's and h's 1x128 scales per element
  // pair: the gate and up halves of block/gate_up_pair.hpp, each of which brings its fp8 row scales
  // (A's, and B's folded in) as a whole block of its own would.
  auto stage = [&](int n, int k, const char* name, bool pair = false) {
    planning::gemm_operands ops{element, element, 2};
    if (fp8)
      ops.a_scale_bytes = (pair ? 2 : 1) * a_scale_bytes,
      ops.scale_bytes_per_step = (pair ? 2 : 1) * tile.block_m * 4.0 * tile.block_k / 128;
    if (mx) ops.a_scale_bytes = ops.b_scale_bytes = 1.0 / 32, ops.scales_per_wave = true;
    const double b_scales = fp8 ? std::ceil(n / 128.0) * std::ceil(k / 128.0) * 4.0 : 0;
    return grouped_stage{n, k, tile, ops, operand + a_scale_bytes, b_scales, gemm_profile(name)};
  };
  std::vector<planning::launch_work> out;

  planning::launch_work sort;
  sort.profile = planning::find_op_kernel(t, codegen_family.op, "moe_sort_kernel<");
  sort.what = "sort";
  sort.workgroups = 1;
  sort.waves_per_workgroup = 16;
  sort.loop_iterations_per_wave = std::ceil(slots / (16 * 64));
  sort.loaded_bytes = sort.dram_read_bytes = 4.0 * slots;
  sort.written_bytes = 4.0 * (3 * rows_in_use + slots);
  out.push_back(sort);

  const planning::kernel_profile* quantizer =
      // MXFP4: the ties-away quantizer, the call's default (mx_args::rounding).
      weights == weight_format::mxfp4
          ? planning::find_op_kernel(t, codegen_family.op, "quantize_1x32_mx_kernel<bf16, e2m1, ties_away")
      : weights == weight_format::mxfp8
          ? planning::find_op_kernel(t, codegen_family.op, "quantize_1x32_mx_kernel<bf16, e4m3fn>")
          : planning::find_op_kernel(t, codegen_family.op, "moe_quantize_kernel<bf16,");
  if (mx || fp8)
    out.push_back(model_detail::quantize("quantize x", quantizer, p.tokens, p.hidden, operand + a_scale_bytes));
  // gate and up read x (each token's row once from DRAM) and store the gated product in T.
  using model_detail::epilogue_reads;
  const double x_rows = tokens_here < 0 ? p.tokens : tokens_here;
  out.push_back(model_detail::grouped_gemm("gate and up", stage(2 * p.expert_dim, p.hidden, "gate_up", true), rows,
                                           x_rows, epilogue_reads::none, p.expert_dim, 2.0));
  if (mx || fp8)
    out.push_back(model_detail::quantize("quantize h", quantizer, rows_in_use, p.expert_dim, operand + a_scale_bytes));
  out.push_back(model_detail::grouped_gemm("down, weighted", stage(p.hidden, p.expert_dim, "down_weighted"), rows,
                                           rows_in_use, epilogue_reads::row_weights, p.hidden, 4.0));

  planning::launch_work combine;
  combine.profile = planning::find_op_kernel(t, codegen_family.op, "moe_combine_kernel<");
  combine.what = "combine";
  combine.workgroups = std::ceil(p.hidden / (8.0 * 256)) * p.tokens;
  combine.waves_per_workgroup = 4;
  combine.loaded_bytes = combine.dram_read_bytes = 4.0 * rows_in_use * p.hidden + 4.0 * slots;
  combine.written_bytes = 2.0 * p.tokens * p.hidden;
  out.push_back(combine);
  return out;
}

inline planning::op_time model_time(const problem& p, weight_format weights, config_id id, std::span<const int> rows,
                                    arch::target t) {
  return planning::predict(model_launches(p, weights, id, rows, t), t);
}

}  // namespace wavekit::ops::moe
