// The MoE pipeline over MX expert weights (gfx950: MXFP4, amd-moe-mxfp4's, or MXFP8), on the device
// with no host synchronisation: the same sort, grouped GEMMs and combine as ops/moe/kernel.hpp,
// with MX parts.
//
//   quantize x       block/quantize_1x32_mx.hpp: x to the weights' MX format (e8m0 per 32), the
//                    host quantizer's rule bit for bit under the call's element rounding, into the
//                    workspace
//   gate and up      gemm_mx's parts (byte-tile loaders of fp8 or packed fp4, rows in order or
//                    shuffle_weight's, the scaled f8f6f4 atom read in its own K order) under the
//                    grouped scheduler, the expert's gate and up weights side by side in one pass
//                    (block/gate_up_pair.hpp): SiLU(g) * u from the fp32 accumulators, rounded once
//                    to T; the MX scale policy takes B's scales from the expert's gate or up table
//                    and A's through the sort's row table (block/scale_in_instruction.hpp)
//   quantize h       the gated product to the same format, its rows in use only
//   down weighted    the same parts over h's MX form, each row times its routing weight, in fp32
//   combine          as for every MoE pipeline: fp32 sum, rounded once
//
// Each expert's weights are read by its tiles' blocks only (once per M tile of the expert), as for
// bf16 weights; the activations are quantized once, not once per N tile. Weights stored padded
// (mx_args::hidden_pad, expert_dim_pad; ops/moe/mx_storage.hpp) are read in place: B's rows and
// its scale rows at the stored strides (gemm_params::ldb, grouped_mx_scale_args::b_scale_ld), the
// logical rows and K only.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <hip/hip_runtime.h>

#include <type_traits>

#include "wavekit/block/gate_up_pair.hpp"
#include "wavekit/block/gemm_block.hpp"
#include "wavekit/block/gemm_kernel.hpp"
#include "wavekit/block/quantize_1x32_mx.hpp"
#include "wavekit/block/scale_in_instruction.hpp"
#include "wavekit/ops/gemm_mx/kernel.hpp"
#include "wavekit/ops/moe/configs_mx.hpp"
#include "wavekit/ops/moe/kernel.hpp"
#include "wavekit/ops/moe/mx_storage.hpp"
#include "wavekit/ops/moe/plan.hpp"

namespace wavekit::ops::moe {

// One stage's parts over MX weights of Elem (Shuffled: aiter's pre-shuffled layouts, MXFP4):
// gemm_mx's loaders, atom and warp MMA, the grouped scheduler, the grouped MX scale policy under
// the stage's policy and epilogue (kernel.hpp's stage_*).
template <class Cfg, class T, class Elem, bool Shuffled, stage Stage>
struct mx_grouped_parts {
  static_assert(!Shuffled || std::is_same_v<Elem, fp4_e2m1>, "moe: pre-shuffled MX weights are MXFP4");
  using storage = mx_storage_t<Elem>;
  using mx = gemm_mx::parts<Cfg, Elem, T, Shuffled>;
  using shape = typename mx::shape;
  using atom = typename mx::atom;
  template <int Rows>
  using weight_loader =
      typename mx::template loader<Rows, std::conditional_t<Shuffled, tile::rows_shuffled_16x16, tile::rows_in_order>>;
  using b_loader = stage_b_loader<Stage, shape, weight_loader>;
  using mma = warp::warp_mma<atom, shape::tiles_m, shape::tiles_n, shape::row_bytes,
                             warp::from_lds<typename mx::a_loader::layout>, warp::from_lds<typename b_loader::layout>,
                             warp::k_order::atom>;
  template <class>
  using k_policy = block::scale_in_instruction<mma, shape::block_k, void, Shuffled, block::grouped_mx_scale_args>;
  using policy = typename stage_policy<Stage, shape, k_policy>::type;
  using mainloop = block::gemm_mainloop<shape, mma, typename mx::a_loader, b_loader, policy, /*KTail=*/true>;
  using scheduler = block::tile_scheduler_grouped<shape::block_m, shape::block_n>;
  using body = block::gemm_block<shape, layout::k_contiguous, scheduler, mainloop, stage_epilogue<T, Stage>>;
  // B's rows as stored (params ldb): K elements apart, or more (weights padded past K:
  // mx_args::hidden_pad, expert_dim_pad).
  using params = stage_params<Stage, storage, storage, typename policy::args, T>;
  static_assert(mainloop::lds_bytes <= shape::lds_bytes,
                "moe::mx_grouped_parts: the config's LDS budget holds the mainloop's");
};

// Hot-loop budgets (instructions per 64 MFMA 16x16x32 of work, gfx950 report, about 3% of room;
// the decode ones re-based when the report began to count blocks laid out after the loop's branch):
// MXFP4 with the configs the plan uses and pre-shuffled weights (amd-moe-mxfp4's form), and the
// decode config with plain MXFP4 and MXFP8 weights; 0 (none) elsewhere. Every stage shares its
// config's K loop.
template <class Cfg, class Elem, bool Shuffled>
inline constexpr int mx_loop_budget = 0;
template <>
inline constexpr int mx_loop_budget<gemm_mx::config_decode, fp4_e2m1, false> = 272;
template <>
inline constexpr int mx_loop_budget<gemm_mx::config_decode, fp4_e2m1, true> = 424;
template <>
inline constexpr int mx_loop_budget<gemm_mx::config_narrow, fp4_e2m1, true> = 144;
template <>
inline constexpr int mx_loop_budget<gemm_mx::config_medium, fp4_e2m1, true> = 91;
template <>
inline constexpr int mx_loop_budget<gemm_mx::config_decode, fp8_e4m3fn, false> = 436;

template <class Cfg, class T, class Elem, bool Shuffled, stage Stage>
__global__ __launch_bounds__(Cfg::threads) WAVEKIT_MIN_WAVES_PER_SIMD(
    block::gemm_kernel_facts<mx_grouped_parts<Cfg, T, Elem, Shuffled, Stage>>::
        min_waves_per_simd) void moe_mx_gemm_kernel(typename mx_grouped_parts<Cfg, T, Elem, Shuffled, Stage>::params
                                                        p) {
  // gfx942's pass of a GPU build traps (no scaled MFMAs): the launcher refuses that target first.
  block::run_gemm_kernel<mx_grouped_parts<Cfg, T, Elem, Shuffled, Stage>, mx_loop_budget<Cfg, Elem, Shuffled>>(p);
}

// An MX operand in the workspace: elements and e8m0 scales per 32.
template <class Storage>
struct mx_operand {
  const Storage* data;
  const e8m0* scale;
};

// One grouped GEMM over MX weights: C[r] = A[a_rows[r]] x B_e over g's rows (N = n, K = k, B's rows
// ld elements apart and their scales' as the MX scale arguments say), with the stage's policy
// arguments around the grouped MX scales (gate_up: b and b_up side by side, N = 2 x their rows, as
// in launch_stage).
template <class Cfg, class T, class Elem, bool Shuffled, stage Stage, class PolicyArgs>
void launch_mx_stage(const grouped_rows& g, const mx_storage_t<Elem>* a, const mx_storage_t<Elem>* const* b, int n,
                     int k, int ld, const PolicyArgs& scales, stage_output<T, Stage>* c, hipStream_t stream,
                     const mx_storage_t<Elem>* const* b_up = nullptr, block::input_args routing = {}) {
  using parts = mx_grouped_parts<Cfg, T, Elem, Shuffled, Stage>;
  const block::grouped_mx_scale_args& mx = [&]() -> const block::grouped_mx_scale_args& {
    if constexpr (Stage == stage::gate_up)
      return scales.gate;
    else
      return scales;
  }();
  const auto kp = block::make_grouped_gemm_params<typename parts::params, parts::policy::group_k>(
      a, scales, stage_output_args<T, Stage>(c, routing), g.rows, n, k,
      {b, g.tile_expert, mx.a_rows, mx.a_rows_total, b_up}, 0, ld);
  hipLaunchKernelGGL((moe_mx_gemm_kernel<Cfg, T, Elem, Shuffled, Stage>), parts::scheduler::grid(g.tiles, n),
                     dim3(Cfg::threads), 0, stream, kp);
}

// Quantizes rows x cols of x (bf16 / fp16; rows x_ld elements apart, 0: cols) to MX of Elem with
// element rounding `rounding` (rows_in_use: as in quantize_1x32_mx_args).
template <class Elem, class T>
void launch_quantize_mx(const T* x, int rows, int cols, int x_ld, const int* rows_in_use, void* q, void* scale,
                        mx_rounding rounding, hipStream_t stream) {
  const block::quantize_1x32_mx_args<T, Elem> qa{
      x, static_cast<std::uint8_t*>(q), static_cast<std::uint8_t*>(scale), rows, cols, rows_in_use, x_ld};
  const dim3 grid(static_cast<unsigned>(ceil_div(qa.items(), quantize_threads)));
  if (rounding == mx_rounding::ties_away_from_zero)
    hipLaunchKernelGGL((block::quantize_1x32_mx_kernel<T, Elem, mx_rounding::ties_away_from_zero>), grid,
                       dim3(quantize_threads), 0, stream, qa);
  else
    hipLaunchKernelGGL((block::quantize_1x32_mx_kernel<T, Elem, mx_rounding::nearest_even>), grid,
                       dim3(quantize_threads), 0, stream, qa);
}

template <class T, class Elem>
status validate(const problem& p, const mx_args<T, Elem>& a, int tile_m, std::size_t need) {
  if (status s = validate_mx_shape(p); !s.ok()) return s;
  if (status s = validate_outputs(p, tile_m, a.out, a.out_unreduced); !s.ok()) return s;
  const auto what = lazy([&] { return "moe " + p.str() + ": "; });
  if (status s = check_mx_layout<Elem>(what, a.weight_layout); !s.ok()) return s;
  if (status s = check_mx_rounding(what, a.rounding); !s.ok()) return s;
  if (status s = check_mx_storage(what, p, a); !s.ok()) return s;
  if (p.tokens == 0) return status::success();  // an empty batch (kernel.hpp, validate_outputs)
  if (status s = check_pointer_arguments(what, {{"gate_scale", a.gate_scale, 8, "a device table of pointers"},
                                                {"up_scale", a.up_scale, 8, "a device table of pointers"},
                                                {"down_scale", a.down_scale, 8, "a device table of pointers"}});
      !s.ok())
    return s;
  return check_layer_arguments(what, {"x", a.x, 16, "16-byte vector loads"},
                               {{"ids", a.ids, 4, "int32"}, {"weights", a.weights, 4, "fp32"}}, a.gate, a.up, a.down,
                               a.out ? static_cast<const void*>(a.out) : a.out_unreduced, a.workspace,
                               a.workspace_bytes, need);
}

// The pipeline's last step: the combine, and the launches' status.
template <class T, class Elem>
status finish(const problem& p, const mx_args<T, Elem>& a, const sort_outputs& so, const grouped_rows& g,
              const float* down, hipStream_t stream) {
  launch_combine(p, down, so.inverse, g.rows, a.out, a.out_unreduced, stream);
  return launch_status("moe " + p.str() + ": ");
}

// Validates, then launches the sort, x's quantization, the two grouped GEMMs of the MX config Cfg
// (M tile: the sort's), the gated product's quantization and the combine on `stream`.
template <class Cfg, class T, class Elem>
status launch(const problem& p, const mx_args<T, Elem>& a, arch::target device, hipStream_t stream) {
  using storage = mx_storage_t<Elem>;
  const workspace_layout w = plan_workspace(p, Cfg::block_m, sizeof(T), mx_weight_format<Elem>);
  if (status s = validate(p, a, Cfg::block_m, w.bytes); !s.ok()) return s;
  if (status s = check_mx_target(p, device); !s.ok()) return s;
  if (p.tokens == 0) return status::success();  // nothing to sort, compute or write
  const workspace_view ws{static_cast<unsigned char*>(a.workspace)};
  const sort_outputs so = ws.sort(w);
  if (status s = sort(p.sort(Cfg::block_m), a.ids, so, stream); !s.ok()) return s;
  T* hidden = ws.at<T>(w.hidden);
  float* down = ws.at<float>(w.down);
  const mx_operand<storage> x{ws.at<storage>(w.x_fp8), ws.at<e8m0>(w.x_scale)};
  const mx_operand<storage> h{ws.at<storage>(w.hidden_fp8), ws.at<e8m0>(w.hidden_scale)};
  launch_quantize_mx<Elem>(a.x, p.tokens, p.hidden, static_cast<int>(p.x_stride), nullptr, ws.at<void>(w.x_fp8),
                           ws.at<void>(w.x_scale), a.rounding, stream);
  const grouped_rows g{so.tile_expert, w.cap.tiles, w.cap.rows};
  // The weights as stored: gate and up [expert_dim_pad][hidden_pad], down [hidden_pad][expert_dim_pad]
  // (mx_args), their logical parts read.
  const mx_extents stored = stored_extents(p, a);
  auto stages = [&]<bool Shuffled>() {
    using mx_scales = block::grouped_mx_scale_args;
    const mx_scales x_gate{x.scale, a.gate_scale, so.sorted_tokens, p.tokens, stored.hidden / 32};
    const mx_scales x_up{x.scale, a.up_scale, so.sorted_tokens, p.tokens, stored.hidden / 32};
    launch_mx_stage<Cfg, T, Elem, Shuffled, stage::gate_up>(g, x.data, a.gate, 2 * p.expert_dim, p.hidden,
                                                            stored.hidden, block::gate_up_args<mx_scales>{x_gate, x_up},
                                                            hidden, stream, a.up);
    launch_quantize_mx<Elem>(static_cast<const T*>(hidden), g.rows, p.expert_dim, 0, so.row_index,
                             ws.at<void>(w.hidden_fp8), ws.at<void>(w.hidden_scale), a.rounding, stream);
    launch_mx_stage<Cfg, T, Elem, Shuffled, stage::down_weighted>(
        g, h.data, a.down, p.hidden, p.expert_dim, stored.expert_dim,
        mx_scales{h.scale, a.down_scale, so.row_index, g.rows, stored.expert_dim / 32}, down, stream, nullptr,
        {a.weights, so.sorted_slots, p.tokens * p.top_k});
  };
  if constexpr (std::is_same_v<Elem, fp4_e2m1>) {
    if (a.weight_layout == b_layout::preshuffled) {
      stages.template operator()<true>();
      return finish(p, a, so, g, down, stream);
    }
  }
  stages.template operator()<false>();
  return finish(p, a, so, g, down, stream);
}
}  // namespace wavekit::ops::moe
