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
//
// Row strides (core/row_view.hpp; 0: packed): x (or x_fp8, an arriving quantized x) and out may be
// views of wider rows, x_stride and out_stride elements apart (multiples of 8: 16-byte loads and
// stores; an x_fp8's of 16). x's scales, out_unreduced and the expert-parallel batched layout
// (ops/moe/batched.hpp) stay packed.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "wavekit/arch/target.hpp"
#include "wavekit/core/layout.hpp"
#include "wavekit/core/mx_rounding.hpp"
#include "wavekit/core/numeric_types.hpp"
#include "wavekit/core/row_view.hpp"
#include "wavekit/core/scale_granularity.hpp"
#include "wavekit/core/status.hpp"
#include "wavekit/ops/gemm_mx/problem.hpp"
#include "wavekit/ops/moe/sort.hpp"

namespace wavekit::ops::moe {

struct problem {
  int tokens, hidden, expert_dim;
  int experts, top_k;
  int expert_begin, local_experts;
  layout weight_order;
  std::int64_t x_stride = 0;    // elements between x's token rows; 0: packed (hidden)
  std::int64_t out_stride = 0;  // elements between out's token rows; 0: packed (hidden)

  // x's view for elements of `bytes` bytes (x in T: 2, x_fp8: 1), out's.
  row_view x_view(int bytes = 2) const {
    return {"x", x_stride, tokens, hidden, "tokens", "hidden", bytes, 16 / bytes, "16-byte vector loads"};
  }
  row_view out_view() const {
    return {"out", out_stride, tokens, hidden, "tokens", "hidden", 2, 8, "16-byte vector stores"};
  }
  std::string str() const {
    return std::to_string(tokens) + " tokens, hidden " + std::to_string(hidden) + ", expert dim " +
           std::to_string(expert_dim) + ", top " + std::to_string(top_k) + " of " + std::to_string(experts) +
           " experts (local [" + std::to_string(expert_begin) + ", " +
           std::to_string(std::int64_t{expert_begin} + local_experts) + ")), weights " + to_string(weight_order) +
           to_string(x_view()) + to_string(out_view());
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

// fp8 block-scaled expert weights (wavekit::moe over blockscale_args): each expert's gate, up and
// down tensors in fp8 (Fp8: the format the device reads, e4m3fnuz on gfx942, e4m3fn on gfx950) with
// one fp32 scale per 128 x 128 block, DeepSeek-V3's weight_scale_inv, laid out in the weight order:
// k_contiguous [ceil(N/128)][K/128], mn_contiguous [K/128][ceil(N/128)] (N the tensor's output
// dimension, K its input: gate and up N = expert_dim, K = hidden; down the reverse). The
// activations are quantized 1x128 inside the pipeline (x before the gate and up projections, the
// gated product before the down projection), or x arrives quantized (an expert-parallel dispatch's
// fp8 payload): x_fp8 with x_scale per 128 columns ([tokens][hidden/128], scale_granularity::group_1x128)
// or per token ([tokens], scale_granularity::row; core/scale_granularity.hpp).
using gemm_mx::b_layout;  // MX weights' layout: plain or aiter's pre-shuffled (the GEMMs' B operand)
using wavekit::scale_granularity;

template <class T, class Fp8>
struct blockscale_args {
  static_assert(std::is_same_v<T, bf16> || std::is_same_v<T, fp16>, "moe: activations and outputs are bf16 or fp16");
  static_assert(std::is_same_v<Fp8, fp8_e4m3fnuz> || std::is_same_v<Fp8, fp8_e4m3fn>,
                "moe: fp8 weights are e4m3fnuz (gfx942) or e4m3fn (gfx950)");
  const T* x = nullptr;  // [tokens][hidden], quantized 1x128 inside; or null when x_fp8 is given
  const int* ids = nullptr;
  const float* weights = nullptr;
  const Fp8* const* gate = nullptr;  // [local_experts] device pointers, as in args
  const Fp8* const* up = nullptr;
  const Fp8* const* down = nullptr;
  const float* const* gate_scale = nullptr;  // [local_experts] device pointers to 128x128 block scales
  const float* const* up_scale = nullptr;
  const float* const* down_scale = nullptr;
  T* out = nullptr;
  void* workspace = nullptr;
  std::size_t workspace_bytes = 0;
  T* out_unreduced = nullptr;
  const Fp8* x_fp8 = nullptr;      // [tokens][hidden] already quantized (then x is null)
  const float* x_scale = nullptr;  // its scales, as x_scales says
  scale_granularity x_scales = scale_granularity::group_1x128;
};

// MX expert weights (gfx950; wavekit::moe over mx_args): MXFP4 (amd-moe-mxfp4: mxfp4_args) or
// MXFP8 (mxfp8_args), each expert's gate, up and down tensors in nn.Linear's order
// (layout::k_contiguous: gate, up [expert_dim][hidden], down [hidden][expert_dim]) as e2m1 pairs or
// e4m3fn bytes with one e8m0 scale per 32 K ([rows][K/32]); MXFP4 also, with weight_layout
// b_layout::preshuffled (gemm_mx's name: the weights are the GEMMs' B operand), as
// aiter's shuffle_weight(16, 16) and e8m0_shuffle left them (core/mx_shuffle.hpp); stored padded
// or not (hidden_pad, expert_dim_pad), with the bytes behind each pointer declared
// (ops/moe/mx_storage.hpp). A fused gate_up tensor [2 expert_dim_pad][hidden_pad] ([gate; up],
// amd-moe-mxfp4's) is two table entries: up's data and scales start at row expert_dim_pad, in
// either layout (its row groups, 16 and 32 rows, divide expert_dim_pad). The activations are
// quantized to the weights' format inside the pipeline (x before the gate and up projections, the
// gated product before the down projection) by the host quantizer's rule
// (block/quantize_1x32_mx.hpp) with the element rounding `rounding` (core/mx_rounding.hpp). Its default is the public
// reference's: MXFP4 ties away from zero, as amd-moe-mxfp4's reference path (aiter's
// fused_dynamic_mxfp4_quant_moe_sort, which its fused_moe calls for <= 1024 tokens); MXFP8 nearest even (the hardware
// conversion's, no reference rounds otherwise). docs/moe.md lists every rounding point.
template <class Elem>
inline constexpr mx_rounding default_mx_rounding =
    std::is_same_v<Elem, fp4_e2m1> ? mx_rounding::ties_away_from_zero : mx_rounding::nearest_even;

template <class T, class Elem>
struct mx_args {
  static_assert(std::is_same_v<T, bf16> || std::is_same_v<T, fp16>, "moe: activations and outputs are bf16 or fp16");
  static_assert(std::is_same_v<Elem, fp4_e2m1> || std::is_same_v<Elem, fp8_e4m3fn>,
                "moe: MX weights are fp4_e2m1 (MXFP4) or fp8_e4m3fn (MXFP8)");
  using element = Elem;
  using storage = mx_storage_t<Elem>;
  const T* x = nullptr;  // [tokens][hidden]
  const int* ids = nullptr;
  const float* weights = nullptr;
  const storage* const* gate = nullptr;  // [local_experts] device pointers, as in args
  const storage* const* up = nullptr;
  const storage* const* down = nullptr;
  const e8m0* const* gate_scale = nullptr;  // [local_experts] device pointers to e8m0 scales
  const e8m0* const* up_scale = nullptr;
  const e8m0* const* down_scale = nullptr;
  T* out = nullptr;
  void* workspace = nullptr;
  std::size_t workspace_bytes = 0;
  T* out_unreduced = nullptr;
  mx_rounding rounding = default_mx_rounding<Elem>;  // the activations' element rounding
  // The weights' and scales' layout: plain, or (MXFP4) aiter's pre-shuffled layouts.
  b_layout weight_layout = b_layout::plain;
  // The weights as stored (ops/moe/mx_storage.hpp): gate and up [expert_dim_pad][hidden_pad], down
  // [hidden_pad][expert_dim_pad], scales [rows][K_pad / 32] (pre-shuffled: those tensors shuffled);
  // 0: the problem's extent. aiter pads both to 256 (amd-moe-mxfp4). Only the logical parts are
  // read: the pads may hold anything.
  int hidden_pad = 0, expert_dim_pad = 0;
  // The bytes behind each table pointer (each expert's alike; mx_weight_bytes, mx_scale_bytes),
  // required: a size below what the layer reads there is refused.
  std::size_t gate_bytes = 0, up_bytes = 0, down_bytes = 0;
  std::size_t gate_scale_bytes = 0, up_scale_bytes = 0, down_scale_bytes = 0;
};
template <class T>
using mxfp4_args = mx_args<T, fp4_e2m1>;
template <class T>
using mxfp8_args = mx_args<T, fp8_e4m3fn>;

// A workspace cut into 256-byte aligned parts, in the order they are taken.
struct workspace_cursor {
  std::size_t at = 0;
  std::size_t take(std::size_t bytes) {
    const std::size_t here = at;
    at += (bytes + 255) / 256 * 256;
    return here;
  }
};

// Which weights a pipeline reads: its element type decides what the workspace holds.
enum class weight_format { half, fp8_blockscale, mxfp4, mxfp8 };

// The workspace's format for MX weights of Elem.
template <class Elem>
inline constexpr weight_format mx_weight_format =
    std::is_same_v<Elem, fp4_e2m1> ? weight_format::mxfp4 : weight_format::mxfp8;

// With quantized weights: the quantized input and gated product and their scales (offsets; all 0
// for bf16 / fp16 weights). Both layouts keep them. fp8 block-scaled: fp8 bytes, an fp32 scale per
// 128; MX: an e8m0 byte per 32, elements two a byte (MXFP4) or one (MXFP8).
struct quantized_intermediates {
  std::size_t x_fp8 = 0, x_scale = 0, hidden_fp8 = 0, hidden_scale = 0;
  void take(workspace_cursor& c, std::size_t x_rows, int hidden, std::size_t hidden_rows, int expert_dim,
            weight_format weights = weight_format::fp8_blockscale) {
    const bool mx = weights == weight_format::mxfp4 || weights == weight_format::mxfp8;
    auto data = [&](std::size_t rows, int cols) {
      return weights == weight_format::mxfp4 ? rows * cols / 2 : rows * cols;
    };
    auto scales = [&](std::size_t rows, int cols) { return mx ? rows * (cols / 32) : 4 * rows * (cols / 128); };
    x_fp8 = c.take(data(x_rows, hidden));
    x_scale = c.take(scales(x_rows, hidden));
    hidden_fp8 = c.take(data(hidden_rows, expert_dim));
    hidden_scale = c.take(scales(hidden_rows, expert_dim));
  }
};

// Where the pipeline keeps its intermediates in the workspace: the sort's outputs, then per sorted
// row the gated product (in T) and the weighted down projection (fp32: the combine rounds once);
// with quantized weights also the quantized intermediates.
struct workspace_layout : quantized_intermediates {
  sort_capacity cap;
  std::size_t counts, offsets, sorted_slots, sorted_tokens, row_index, tile_expert, inverse, invalid_ids;
  std::size_t hidden, down;
  std::size_t bytes;
};

inline workspace_layout plan_workspace(const problem& p, int tile_m, std::size_t element_bytes,
                                       weight_format weights = weight_format::half) {
  workspace_layout w;
  w.cap = capacity(p.sort(tile_m));
  workspace_cursor c;
  const std::size_t slots = std::size_t(p.tokens) * p.top_k, rows = std::size_t(w.cap.rows);
  w.counts = c.take(4 * std::size_t(p.local_experts));
  w.offsets = c.take(4 * (std::size_t(p.local_experts) + 1));
  w.sorted_slots = c.take(4 * rows);
  w.sorted_tokens = c.take(4 * rows);
  w.row_index = c.take(4 * rows);
  w.tile_expert = c.take(4 * std::size_t(w.cap.tiles));
  w.inverse = c.take(4 * slots);
  w.invalid_ids = c.take(4);
  w.hidden = c.take(element_bytes * rows * p.expert_dim);
  w.down = c.take(4 * rows * p.hidden);
  if (weights != weight_format::half) w.take(c, std::size_t(p.tokens), p.hidden, rows, p.expert_dim, weights);
  w.bytes = c.at;
  return w;
}

// The sort's rules at M tile tile_m, and the standard layout's fp32 down projection: its rows (the
// sort's capacity at that tile) x hidden x 4 bytes within 32-bit buffer offsets.
inline status validate_layer_rows(const problem& p, int tile_m) {
  if (status s = validate_sort_shape(p.sort(tile_m)); !s.ok()) return s;
  const std::size_t bytes = std::size_t(capacity(p.sort(tile_m)).rows) * std::size_t(p.hidden) * 4;
  if (bytes > std::size_t(std::numeric_limits<std::int32_t>::max()))
    return {status_code::too_large, "moe " + p.str() + ": the weighted down projection's rows at the " +
                                        std::to_string(tile_m) + "-row tile (" + std::to_string(bytes) +
                                        " bytes of fp32) exceed 2^31 - 1 bytes (32-bit buffer offsets)"};
  return status::success();
}

// fp8 block-scaled weights: whole 128 x 128 scale blocks (what: the op and problem, as statuses
// begin).
inline status check_scale_blocks(text_ref what, int hidden, int expert_dim) {
  if (hidden % 128 || expert_dim % 128)
    return {status_code::bad_shape, what +
                                        "with fp8 block-scaled weights hidden and expert_dim must be multiples of "
                                        "128 (the 128x128 scale blocks)"};
  return status::success();
}

inline status validate_shape(const problem& p) {
  const auto what = lazy([&] { return "moe " + p.str() + ": "; });
  if (p.tokens < 0) return {status_code::bad_shape, what + "tokens must be >= 0"};
  if (p.hidden <= 0 || p.hidden % 16)
    return {status_code::bad_shape, what + "hidden must be a positive multiple of 16"};
  if (p.expert_dim <= 0 || p.expert_dim % 16)
    return {status_code::bad_shape, what + "expert_dim must be a positive multiple of 16"};
  if (p.weight_order != layout::k_contiguous && p.weight_order != layout::mn_contiguous)
    return {status_code::bad_shape, what + "weight_order must be layout::k_contiguous or layout::mn_contiguous"};
  // The ids' rules come before any size below is formed from them (the sort checks them again
  // with its tile).
  if (status s = check_expert_ids(what, p.top_k, p.experts, p.expert_begin, p.local_experts); !s.ok()) return s;
  constexpr std::size_t limit = std::numeric_limits<std::int32_t>::max();
  const std::size_t slots = std::size_t(p.tokens) * p.top_k;
  // The sorted rows (at most slots + 256 padding rows an expert) hold the gated product (T);
  // their fp32 down projection is checked at the M tile that runs (validate_layer_rows).
  if (std::size_t(p.tokens) * p.hidden * 2 > limit || std::size_t(p.hidden) * p.expert_dim * 2 > limit ||
      (slots + std::size_t(p.local_experts) * 256) * std::max(p.hidden, p.expert_dim) * 2 > limit)
    return {status_code::too_large, what + "a tensor exceeds 2^31 - 1 bytes (32-bit buffer offsets)"};
  if (status s = check_row_view(what, p.x_view()); !s.ok()) return s;
  return check_row_view(what, p.out_view());
}

// The fp8 block-scaled layer's shape rules: the bf16 / fp16 layer's, and whole 128-K scale blocks.
inline status validate_blockscale_shape(const problem& p) {
  if (status s = validate_shape(p); !s.ok()) return s;
  return check_scale_blocks("moe " + p.str() + ": ", p.hidden, p.expert_dim);
}

// The MX layer's: the bf16 / fp16 layer's, K-contiguous weights (nn.Linear's order), hidden and
// expert_dim multiples of 64 (whole 32-K scale blocks in whole 32-byte tiles of the shuffled
// layout).
inline status validate_mx_shape(const problem& p) {
  if (status s = validate_shape(p); !s.ok()) return s;
  const auto what = lazy([&] { return "moe " + p.str() + ": "; });
  if (p.weight_order != layout::k_contiguous)
    return {status_code::bad_shape, what + "MX weights are K-contiguous (layout::k_contiguous, nn.Linear's order)"};
  if (p.hidden % 64 || p.expert_dim % 64)
    return {status_code::bad_shape, what + "with MX weights hidden and expert_dim must be multiples of 64"};
  return status::success();
}

// The MX weights' layout rule (what: the op and problem, as statuses begin): pre-shuffled weights
// are MXFP4's (aiter's shuffle_weight of fp4 bytes).
template <class Elem>
status check_mx_layout(text_ref what, b_layout layout) {
  if (layout != b_layout::plain && layout != b_layout::preshuffled)
    return {status_code::bad_format, what + "weight_layout must be b_layout::plain or preshuffled"};
  if (layout == b_layout::preshuffled && !std::is_same_v<Elem, fp4_e2m1>)
    return {status_code::bad_format, what + "pre-shuffled MX weights are MXFP4 (shuffle_weight of fp4 bytes)"};
  return status::success();
}

// The element rounding rule of MX activations (mx_args::rounding): one of the two named rules.
inline status check_mx_rounding(text_ref what, mx_rounding r) {
  if (r == mx_rounding::nearest_even || r == mx_rounding::ties_away_from_zero) return status::success();
  return {status_code::bad_config,
          what + "argument rounding must be mx_rounding::nearest_even or mx_rounding::ties_away_from_zero"};
}

// The target rule: MX weights run on gfx950's scaled MFMAs.
inline status check_mx_target(const problem& p, arch::target t) {
  if (t == arch::target::gfx950) return status::success();
  return {status_code::unsupported_target,
          "moe " + p.str() + ": MX weights run on gfx950's scaled MFMAs; " + arch::to_string(t) + " has none"};
}

}  // namespace wavekit::ops::moe
