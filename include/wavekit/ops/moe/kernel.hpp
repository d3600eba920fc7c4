// The MoE pipeline after routing (ops/moe/problem.hpp), on the device, with no host
// synchronisation: sort, two grouped GEMMs, combine. All are compositions of wavekit's parts:
//
//   sort         ops/moe/sort_kernel.hpp: rows grouped by expert, padded to the M tile
//   gate and up  H[r] = SiLU(x[token(r)] W_gate[e]) * (x[token(r)] W_up[e])   one pass: A rows
//                gathered by token (tile loader's row-gather form), B the expert's gate and up
//                weights side by side (block/gate_up_pair.hpp), SiLU(g) * u from the fp32
//                accumulators, rounded once to T
//   down         Y[r] = weight(slot(r)) * (H[r] W_down[e])   block/epilogue_fused.hpp, in fp32;
//                A's padding rows are not read (row_index)
//   combine      out[t] = sum over j of Y[row(t, j)], in choice order, fp32, rounded once
//
// Each grouped GEMM is gemm_block over tile_scheduler_grouped: the grid covers the sort's tile
// capacity and a tile's expert comes from the sort's tile table; tiles past the rows in use and
// experts without tokens cost one table read. Every expert's weights are read by the blocks of its
// tiles only: once per M tile of the expert, so once for each expert that has at most BlockM rows.
//
// fp8 block-scaled weights (blockscale_args) change parts, not the pipeline: x and the gated
// product are quantized 1x128 (block/quantize_1x128.hpp) before the GEMMs that read them, the
// tiles are fp8 (byte-tile loaders of 8-bit elements, the target's fp8 MFMA atom), and the K loop's
// policy is the group promotion of the block-scaled GEMM (block/scale_group_promotion.hpp, A's
// scales gathered through the same row table, B's from the expert's scale table: the gate's or the
// up's, per half of the pair block), under the same epilogues.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <hip/hip_runtime.h>

#include <cstdint>
#include <initializer_list>
#include <string>
#include <type_traits>

#include "wavekit/arch/buffer.hpp"
#include "wavekit/arch/codegen_targets.hpp"
#include "wavekit/arch/lds.hpp"
#include "wavekit/arch/matrix_formats.hpp"
#include "wavekit/arch/mfma_atoms.hpp"
#include "wavekit/block/epilogue_fused.hpp"
#include "wavekit/block/gate_up_pair.hpp"
#include "wavekit/block/gemm_block.hpp"
#include "wavekit/block/gemm_kernel.hpp"
#include "wavekit/block/quantize_1x128.hpp"
#include "wavekit/block/scale_group_promotion.hpp"
#include "wavekit/block/scale_none.hpp"
#include "wavekit/core/half_convert.hpp"
#include "wavekit/core/math.hpp"
#include "wavekit/ops/moe/configs.hpp"
#include "wavekit/ops/moe/configs_blockscale.hpp"
#include "wavekit/ops/moe/problem.hpp"
#include "wavekit/ops/moe/sort_kernel.hpp"
#include "wavekit/tile/tile_loader_k_contiguous.hpp"
#include "wavekit/tile/tile_loader_mn_contiguous.hpp"
#include "wavekit/warp/warp_mma.hpp"

namespace wavekit::ops::moe {

// The grouped GEMMs: gate_up (the one-pass gated product, stored in T), down_weighted (times the
// routing weight, stored in fp32 for the combine) and down (the batched layout's: no routing
// weights, stored in T).
enum class stage { gate_up, down_weighted, down };

// What a stage stores, and how.
template <class T, stage Stage>
using stage_output = std::conditional_t<Stage == stage::down_weighted, float, T>;
// down_weighted multiplies each row by its slot's routing weight in the epilogue (a row's factor
// through the sorted slots: block::gathered_row_weights), after the K loop's own scaling.
template <class T, stage Stage>
using stage_epilogue = std::conditional_t<
    Stage == stage::gate_up, block::epilogue_gate_up<T>,
    std::conditional_t<
        Stage == stage::down_weighted,
        block::without_split_k<block::epilogue_fused<float, activation::identity, block::gathered_row_weights>>,
        block::epilogue_store<T>>>;
// The K loop's policy of a stage: a policy for each half of the pair block, or the K loop's own.
template <stage Stage, class Shape, template <class> class KPolicy>
struct stage_policy {
  using type = KPolicy<Shape>;
};
template <class Shape, template <class> class KPolicy>
struct stage_policy<stage::gate_up, Shape, KPolicy> {
  using type = block::gate_up_halves<KPolicy<block::gate_up_half_shape<Shape>>, Shape>;
};
// B's loader of a stage: Loader<Rows> over the expert's weights, or a pair of them (gate, up).
template <stage Stage, class Shape, template <int> class Loader>
using stage_b_loader =
    std::conditional_t<Stage == stage::gate_up,
                       tile::tile_loader_pair<Loader<Shape::block_n / 2>, Shape::block_n / 2, Shape::threads>,
                       Loader<Shape::block_n>>;
// The kernel argument of a stage.
template <stage Stage, class A, class W, class PolicyArgs, class T>
using stage_params = std::conditional_t<
    Stage == stage::gate_up, block::paired_gemm_params<A, W, PolicyArgs, T>,
    block::grouped_gemm_params<A, W, PolicyArgs, stage_output<T, Stage>, typename stage_epilogue<T, Stage>::args>>;

// A stage's epilogue arguments: C, and down_weighted's routing weights through the sorted slots.
template <class T, stage Stage>
typename stage_epilogue<T, Stage>::args stage_output_args(stage_output<T, Stage>* c, block::input_args routing) {
  if constexpr (Stage == stage::down_weighted)
    return {{c, nullptr}, {routing}};
  else
    return {c, nullptr};
}

// The MFMA atom and the K loop's scale policy for activations T and weights W (W = T: bf16 / fp16
// weights, unscaled; W an fp8 format: 128x128 block-scaled weights, A quantized 1x128).
template <class T, class W, int MfmaM>
struct grouped_atom {
  using type = arch::fp8_gemm_atom<W, MfmaM>;
};
template <class T, int MfmaM>
struct grouped_atom<T, T, MfmaM> {
  using type = arch::half_gemm_atom<T, MfmaM>;
};
template <class Mma, class T, class W, layout WeightOrder>
struct grouped_k_policy {
  template <class Shape>
  using type = block::scale_group_promotion<Shape, Mma, layout::k_contiguous, blockscale::scale_group_k, WeightOrder,
                                            block::grouped_group_scale_args>;
};
template <class Mma, class T, layout WeightOrder>
struct grouped_k_policy<Mma, T, T, WeightOrder> {
  template <class Shape>
  using type = block::scale_none<Mma, Shape::block_k>;
};

template <class Cfg, class T, class W, layout WeightOrder, stage Stage>
struct grouped_parts {
  static constexpr bool fp8 = !std::is_same_v<W, T>;
  using shape = typename Cfg::template on<arch::kernel_view_target>;
  static constexpr int element_bits = fp8 ? 8 : 16;
  using a_type = std::conditional_t<fp8, W, T>;  // fp8 weights read quantized activations
  using a_loader = tile::tile_loader_k_contiguous<shape::block_m, shape::row_bytes, shape::threads, element_bits>;
  template <int Rows>
  using weight_loader =
      std::conditional_t<WeightOrder == layout::k_contiguous,
                         tile::tile_loader_k_contiguous<Rows, shape::row_bytes, shape::threads, element_bits>,
                         tile::tile_loader_mn_contiguous<Rows, shape::row_bytes, shape::threads, element_bits>>;
  using b_loader = stage_b_loader<Stage, shape, weight_loader>;
  using atom = typename grouped_atom<T, W, shape::mfma_m>::type;
  using mma = warp::warp_mma<atom, shape::tiles_m, shape::tiles_n, shape::row_bytes,
                             warp::from_lds<typename a_loader::layout>, warp::from_lds<typename b_loader::layout>>;
  using policy = typename stage_policy<Stage, shape, grouped_k_policy<mma, T, W, WeightOrder>::template type>::type;
  // bf16 / fp16: any K (a ragged first step reads zeros); fp8: whole 128-K scale groups.
  using mainloop = block::gemm_mainloop<shape, mma, a_loader, b_loader, policy, /*KTail=*/!fp8>;
  using scheduler = block::tile_scheduler_grouped<shape::block_m, shape::block_n>;
  using body =
      block::gemm_block<shape, layout::k_contiguous, scheduler, mainloop, stage_epilogue<T, Stage>, WeightOrder>;
  using params = stage_params<Stage, a_type, W, typename policy::args, T>;
  static_assert(mainloop::lds_bytes <= shape::lds_bytes,
                "moe::grouped_parts: the config's LDS budget holds the mainloop's");
};

template <class Cfg, class T, class W, layout WeightOrder, stage Stage>
__global__ __launch_bounds__(Cfg::threads) WAVEKIT_MIN_WAVES_PER_SIMD(
    block::gemm_kernel_facts<grouped_parts<Cfg, T, W, WeightOrder, Stage>>::
        min_waves_per_simd) void moe_gemm_kernel(typename grouped_parts<Cfg, T, W, WeightOrder, Stage>::params p) {
  block::run_gemm_kernel<grouped_parts<Cfg, T, W, WeightOrder, Stage>>(p);
}

inline constexpr int quantize_threads = 256;

// Activations to fp8 with 1x128 scales (block/quantize_1x128.hpp), one thread per 8 elements.
template <class T, class Fp8>
__global__ __launch_bounds__(quantize_threads) void moe_quantize_kernel(block::quantize_1x128_args<T, Fp8> a) {
  arch::declare_codegen_targets<0, 8>();
  if constexpr (!arch::reads_fp8<Fp8>(arch::current_target) && arch::current_target != arch::target::host) {
    __builtin_trap();  // the converter writes the target's own fp8 format, not Fp8
  } else {
    block::quantize_1x128_item(a, static_cast<int>(blockIdx.x) * quantize_threads + static_cast<int>(threadIdx.x));
  }
}

inline constexpr int combine_threads = 256;

// Eight consecutive fp32 values of the down projection's rows (two 16-byte loads; 0 past the
// buffer, or where row is -1).
WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void load_down_octet(const arch::buffer& y, int row, int hidden, int col,
                                                        float (&v)[8]) {
  const std::uint32_t at = row >= 0 ? static_cast<std::uint32_t>(row * hidden + col) * 4 : arch::out_of_range;
  const arch::u32x4 lo = y.load16(at), hi = y.load16(at == arch::out_of_range ? at : at + 16);
#pragma unroll
  for (int h = 0; h < 4; ++h) {
    // Copies first: __builtin_bit_cast of a vector-element lvalue reads element 0 (clang).
    const std::uint32_t l = lo[h], u = hi[h];
    v[h] = __builtin_bit_cast(float, l), v[4 + h] = __builtin_bit_cast(float, u);
  }
}
// Eight values rounded to T (nearest even), as one 16-byte store.
template <class T>
WAVEKIT_DEVICE WAVEKIT_FORCEINLINE arch::u32x4 pack_octet(const float (&v)[8]) {
  std::uint32_t packed[4];
#pragma unroll
  for (int q = 0; q < 4; ++q)
    packed[q] = half_bits_rne<T>(v[2 * q]) | static_cast<std::uint32_t>(half_bits_rne<T>(v[2 * q + 1])) << 16;
  return arch::u32x4{packed[0], packed[1], packed[2], packed[3]};
}

// out[t][c..c+8) = sum over j of down[inverse[t * top_k + j]][c..c+8), in choice order, fp32 (the
// weighted rows are fp32 too), rounded once to T; one thread per 8 columns, a row of blocks per
// token; out's rows out_ld elements apart.
template <class T>
__global__ __launch_bounds__(combine_threads) void moe_combine_kernel(const float* down, const int* inverse, int top_k,
                                                                      int hidden, int rows, T* out, int out_ld) {
  arch::declare_codegen_targets<0, 8>();
  const int token = static_cast<int>(blockIdx.y);
  const int col = (static_cast<int>(blockIdx.x) * combine_threads + static_cast<int>(threadIdx.x)) * 8;
  if (col >= hidden) return;
  const arch::buffer y = arch::buffer::over(down, static_cast<std::uint32_t>(rows) * hidden * 4);
  float sum[8] = {};
  for (int j = 0; j < top_k; ++j) {
    const int row = inverse[token * top_k + j];
    if (row < 0) continue;  // an expert not computed here
    float v[8];
    load_down_octet(y, row, hidden, col, v);
#pragma unroll
    for (int h = 0; h < 8; ++h) sum[h] += v[h];
  }
  const auto tokens = static_cast<int>(gridDim.y);
  const arch::buffer o = arch::buffer::over(out, static_cast<std::uint32_t>(view_extent(tokens, hidden, out_ld)) * 2);
  o.store16(pack_octet<T>(sum), static_cast<std::uint32_t>(token * out_ld + col) * 2);
}

// out_unreduced[s][c..c+8) = down[inverse[s]][c..c+8) rounded to T, or 0 where inverse[s] is -1:
// each slot's weighted result in slot order (the standard EP layout's unreduced output; the
// dispatch library's combine sums them). One thread per 8 columns, a row of blocks per slot.
template <class T>
__global__ __launch_bounds__(combine_threads) void moe_unreduced_kernel(const float* down, const int* inverse,
                                                                        int hidden, int rows, T* out) {
  arch::declare_codegen_targets<0, 8>();
  const int slot = static_cast<int>(blockIdx.y);
  const int col = (static_cast<int>(blockIdx.x) * combine_threads + static_cast<int>(threadIdx.x)) * 8;
  if (col >= hidden) return;
  const arch::buffer y = arch::buffer::over(down, static_cast<std::uint32_t>(rows) * hidden * 4);
  float v[8];
  load_down_octet(y, inverse[slot], hidden, col, v);
  const arch::buffer o = arch::buffer::over(out, static_cast<std::uint32_t>(gridDim.y) * hidden * 2);
  o.store16(pack_octet<T>(v), static_cast<std::uint32_t>(slot * hidden + col) * 2);
}

// The rows a grouped GEMM runs over: `rows` rows in M tiles of Cfg::block_m, tile i belonging to
// local expert tile_expert[i] (-1: none).
struct grouped_rows {
  const int* tile_expert;
  int tiles, rows;
};

// One grouped GEMM: C[r] = A[a_rows[r]] x B_e (e the tile's expert; a_rows null: A[r]; -1: zeros)
// over g's rows, N = n, K = k, with the stage's policy arguments; A's rows lda elements apart (0:
// K). gate_up: B_e is b[e] and b_up[e] side by side (N = 2 x their rows), C = SiLU(A x b[e]) *
// (A x b_up[e]), n / 2 wide.
template <class Cfg, class T, class W, layout WeightOrder, stage Stage, class A, class ScaleArgs>
void launch_stage(const grouped_rows& g, const A* a, const int* a_rows, int a_rows_total, int lda, const W* const* b,
                  int n, int k, const ScaleArgs& scales, stage_output<T, Stage>* c, hipStream_t stream,
                  const W* const* b_up = nullptr, block::input_args routing = {}) {
  using parts = grouped_parts<Cfg, T, W, WeightOrder, Stage>;
  static_assert(std::is_same_v<A, typename parts::a_type>, "moe::launch_stage: A is the stage's activation type");
  const auto kp = block::make_grouped_gemm_params<typename parts::params, parts::policy::group_k>(
      a, scales, stage_output_args<T, Stage>(c, routing), g.rows, n, k, {b, g.tile_expert, a_rows, a_rows_total, b_up},
      lda);
  hipLaunchKernelGGL((moe_gemm_kernel<Cfg, T, W, WeightOrder, Stage>), parts::scheduler::grid(g.tiles, n),
                     dim3(Cfg::threads), 0, stream, kp);
}

// Quantizes rows x cols of x (cols a multiple of 128; rows x_ld elements apart, 0: cols) to q and
// 1x128 scales; rows_in_use: as in block::quantize_1x128_args.
template <class T, class Fp8>
void launch_quantize(const T* x, int rows, int cols, int x_ld, const int* rows_in_use, Fp8* q, float* scale,
                     hipStream_t stream) {
  const block::quantize_1x128_args<T, Fp8> qa{x, q, scale, rows_in_use, rows, cols, x_ld};
  hipLaunchKernelGGL((moe_quantize_kernel<T, Fp8>), dim3(static_cast<unsigned>(ceil_div(qa.items(), quantize_threads))),
                     dim3(quantize_threads), 0, stream, qa);
}

template <class Cfg, class T>
std::size_t workspace_bytes_for(const problem& p) {
  return plan_workspace(p, Cfg::block_m, sizeof(T)).bytes;
}
template <class Cfg, class T>
std::size_t blockscale_workspace_bytes_for(const problem& p) {
  return plan_workspace(p, Cfg::block_m, sizeof(T), weight_format::fp8_blockscale).bytes;
}

// The arguments both layouts share: x (its name and rule: `x` in T, or `x_fp8`), the routing
// inputs of this layout (`routing`: ids and weights, or counts), the weight tables, out and a
// workspace of at least `need` bytes.
template <class W>
status check_layer_arguments(text_ref what, const pointer_argument& x, std::initializer_list<pointer_argument> routing,
                             const W* const* gate, const W* const* up, const W* const* down, const void* out,
                             const void* workspace, std::size_t workspace_bytes, std::size_t need) {
  if (status s = check_pointer_arguments(what, {x}); !s.ok()) return s;
  if (status s = check_pointer_arguments(what, routing); !s.ok()) return s;
  if (status s = check_pointer_arguments(what, {{"gate", gate, 8, "a device table of pointers"},
                                                {"up", up, 8, "a device table of pointers"},
                                                {"down", down, 8, "a device table of pointers"},
                                                {"out", out, 16, "16-byte vector stores"},
                                                {"workspace", workspace, 256, "its intermediates"}});
      !s.ok())
    return s;
  if (workspace_bytes < need)
    return {status_code::workspace_too_small, what + "the workspace must hold " + std::to_string(need) +
                                                  " bytes (have " + std::to_string(workspace_bytes) + ")"};
  return status::success();
}

// fp8 block-scaled layers: the weight scale tables, and x given once (in T, or quantized with its
// scales); the pointer of x the common checks then see.
template <class T, class Fp8>
status check_blockscale_arguments(text_ref what, const T* x, const Fp8* x_fp8, const float* x_scale,
                                  scale_granularity x_scales, const float* const* gate_scale,
                                  const float* const* up_scale, const float* const* down_scale,
                                  pointer_argument& x_argument) {
  if (status s = check_pointer_arguments(what, {{"gate_scale", gate_scale, 8, "a device table of pointers"},
                                                {"up_scale", up_scale, 8, "a device table of pointers"},
                                                {"down_scale", down_scale, 8, "a device table of pointers"}});
      !s.ok())
    return s;
  if (!x == !x_fp8)
    return {status_code::bad_config, what + "exactly one of the arguments x and x_fp8 must be given (x is " +
                                         (x ? "given" : "null") + ", x_fp8 is " + (x_fp8 ? "given" : "null") + ")"};
  if (x) {
    if (x_scale) return {status_code::bad_config, what + "argument x_scale belongs to x_fp8; x is not quantized"};
    x_argument = {"x", x, 16, "16-byte vector loads"};
    return status::success();
  }
  if (x_scales != scale_granularity::group_1x128 && x_scales != scale_granularity::row)
    return {status_code::bad_format, what + "x_scales must be scale_granularity::group_1x128 or row"};
  if (status s = check_pointer_arguments(what, {{"x_scale", x_scale, 4, "fp32"}}); !s.ok()) return s;
  x_argument = {"x_fp8", x_fp8, 16, "16-byte vector loads"};
  return status::success();
}

// An empty batch (tokens = 0) launches nothing and touches no memory, so its pointers may be null
// (an empty tensor's data pointer may be; moe_route takes them so too). The problem's and the
// arguments' value rules still apply, and so does out_unreduced's alignment when it is given.
// The standard layout's own rules: its problem, the sort's, and at least one output (with tokens).
inline status validate_outputs(const problem& p, int tile_m, const void* out, const void* out_unreduced) {
  if (status s = validate_layer_rows(p, tile_m); !s.ok()) return s;
  const auto what = lazy([&] { return "moe " + p.str() + ": "; });
  if (p.tokens > 0 && !out && !out_unreduced)
    return {status_code::null_pointer, what + "arguments out and out_unreduced are both null"};
  if (reinterpret_cast<std::uintptr_t>(out_unreduced) % 16)
    return {status_code::bad_alignment,
            what + "argument out_unreduced must be 16-byte aligned (16-byte vector stores)"};
  return status::success();
}

template <class T>
status validate(const problem& p, const args<T>& a, int tile_m, std::size_t need) {
  if (status s = validate_shape(p); !s.ok()) return s;
  if (status s = validate_outputs(p, tile_m, a.out, a.out_unreduced); !s.ok()) return s;
  if (p.tokens == 0) return status::success();  // an empty batch (validate_outputs)
  return check_layer_arguments("moe " + p.str() + ": ", {"x", a.x, 16, "16-byte vector loads"},
                               {{"ids", a.ids, 4, "int32"}, {"weights", a.weights, 4, "fp32"}}, a.gate, a.up, a.down,
                               a.out ? static_cast<const void*>(a.out) : a.out_unreduced, a.workspace,
                               a.workspace_bytes, need);
}

template <class T, class Fp8>
status validate(const problem& p, const blockscale_args<T, Fp8>& a, int tile_m, std::size_t need) {
  if (status s = validate_blockscale_shape(p); !s.ok()) return s;
  if (status s = validate_outputs(p, tile_m, a.out, a.out_unreduced); !s.ok()) return s;
  if (p.tokens == 0) return status::success();  // an empty batch (validate_outputs)
  const auto what = lazy([&] { return "moe " + p.str() + ": "; });
  pointer_argument x{};
  if (status s = check_blockscale_arguments(what, a.x, a.x_fp8, a.x_scale, a.x_scales, a.gate_scale, a.up_scale,
                                            a.down_scale, x);
      !s.ok())
    return s;
  if (a.x_fp8)  // x's stride is x_fp8's: 16-byte loads of bytes
    if (status s = check_row_view(what, p.x_view(1)); !s.ok()) return s;
  return check_layer_arguments(what, x, {{"ids", a.ids, 4, "int32"}, {"weights", a.weights, 4, "fp32"}}, a.gate, a.up,
                               a.down, a.out ? static_cast<const void*>(a.out) : a.out_unreduced, a.workspace,
                               a.workspace_bytes, need);
}

// A workspace's parts (offsets of a layout, either layout's) as typed pointers.
struct workspace_view {
  unsigned char* base;
  template <class U>
  U* at(std::size_t offset) const {
    return reinterpret_cast<U*>(base + offset);
  }
  sort_outputs sort(const workspace_layout& w) const {
    return {at<int>(w.counts),    at<int>(w.offsets),     at<int>(w.sorted_slots), at<int>(w.sorted_tokens),
            at<int>(w.row_index), at<int>(w.tile_expert), at<int>(w.inverse),      at<int>(w.invalid_ids)};
  }
};

// The fp8 GEMMs' A operand: x quantized 1x128 into the workspace (its rows in use, rows_in_use as
// in block::quantize_1x128_args), or x_fp8 with its scales as it arrived.
template <class Fp8>
struct quantized_input {
  const Fp8* x;
  const float* scale;
  bool per_token;  // one scale per row (scale_granularity::row)
  int ld;          // elements between x's rows (an arriving x_fp8's stride; the quantized copy: 0, packed)
};
template <class T, class Fp8>
quantized_input<Fp8> quantize_or_take(const T* x, const Fp8* x_fp8, const float* x_scale, scale_granularity scaling,
                                      int rows, int hidden, int x_ld, const int* rows_in_use,
                                      const quantized_intermediates& w, const workspace_view& ws, hipStream_t stream) {
  if (!x) return {x_fp8, x_scale, scaling == scale_granularity::row, x_ld};
  launch_quantize(x, rows, hidden, x_ld, rows_in_use, ws.at<Fp8>(w.x_fp8), ws.at<float>(w.x_scale), stream);
  return {ws.at<Fp8>(w.x_fp8), ws.at<float>(w.x_scale), false, 0};
}

// Sums (out) or copies (out_unreduced) each slot's weighted down projection.
template <class T>
void launch_combine(const problem& p, const float* down, const int* inverse, int rows, T* out, T* out_unreduced,
                    hipStream_t stream) {
  const unsigned column_blocks = static_cast<unsigned>(ceil_div(p.hidden, 8 * combine_threads));
  if (out)
    hipLaunchKernelGGL(moe_combine_kernel<T>, dim3(column_blocks, static_cast<unsigned>(p.tokens)),
                       dim3(combine_threads), 0, stream, down, inverse, p.top_k, p.hidden, rows, out,
                       static_cast<int>(p.out_view().ld()));
  if (out_unreduced)
    hipLaunchKernelGGL(moe_unreduced_kernel<T>, dim3(column_blocks, static_cast<unsigned>(p.tokens * p.top_k)),
                       dim3(combine_threads), 0, stream, down, inverse, p.hidden, rows, out_unreduced);
}

template <class F>
void with_weight_order(layout order, F&& f) {
  if (order == layout::k_contiguous)
    f.template operator()<layout::k_contiguous>();
  else
    f.template operator()<layout::mn_contiguous>();
}

inline status launch_status(text_ref what) {
  if (hipError_t e = hipGetLastError(); e != hipSuccess)
    return {status_code::launch_failed, what + hipGetErrorString(e)};
  return status::success();
}

// Validates, then launches the sort, the two grouped GEMMs of config Cfg and the combine on
// `stream`: no host synchronisation, no allocation (the workspace holds everything).
template <class Cfg, class T>
status launch(const problem& p, const args<T>& a, hipStream_t stream) {
  const workspace_layout w = plan_workspace(p, Cfg::block_m, sizeof(T));
  if (status s = validate(p, a, Cfg::block_m, w.bytes); !s.ok()) return s;
  if (p.tokens == 0) return status::success();  // nothing to sort, compute or write
  const workspace_view ws{static_cast<unsigned char*>(a.workspace)};
  const sort_outputs so = ws.sort(w);
  if (status s = sort(p.sort(Cfg::block_m), a.ids, so, stream); !s.ok()) return s;
  T* hidden = ws.at<T>(w.hidden);
  float* down = ws.at<float>(w.down);
  const grouped_rows g{so.tile_expert, w.cap.tiles, w.cap.rows};
  with_weight_order(p.weight_order, [&]<layout O>() {
    launch_stage<Cfg, T, T, O, stage::gate_up>(g, a.x, so.sorted_tokens, p.tokens, static_cast<int>(p.x_stride), a.gate,
                                               2 * p.expert_dim, p.hidden,
                                               block::gate_up_args<block::scale_none_args>{}, hidden, stream, a.up);
    launch_stage<Cfg, T, T, O, stage::down_weighted>(g, hidden, so.row_index, g.rows, 0, a.down, p.hidden, p.expert_dim,
                                                     block::scale_none_args{}, down, stream, nullptr,
                                                     {a.weights, so.sorted_slots, p.tokens * p.top_k});
  });
  launch_combine(p, static_cast<const float*>(down), so.inverse, g.rows, a.out, a.out_unreduced, stream);
  return launch_status("moe " + p.str() + ": ");
}

// The same pipeline over fp8 block-scaled weights: x quantized 1x128 first (unless it arrives
// quantized), the gated product (rounded to T once, as for bf16 / fp16 weights) quantized 1x128
// (its rows in use) before the down projection.
template <class Cfg, class T, class Fp8>
status launch(const problem& p, const blockscale_args<T, Fp8>& a, hipStream_t stream) {
  const workspace_layout w = plan_workspace(p, Cfg::block_m, sizeof(T), weight_format::fp8_blockscale);
  if (status s = validate(p, a, Cfg::block_m, w.bytes); !s.ok()) return s;
  if (p.tokens == 0) return status::success();  // nothing to sort, compute or write
  const workspace_view ws{static_cast<unsigned char*>(a.workspace)};
  const sort_outputs so = ws.sort(w);
  if (status s = sort(p.sort(Cfg::block_m), a.ids, so, stream); !s.ok()) return s;
  T* hidden = ws.at<T>(w.hidden);
  float* down = ws.at<float>(w.down);
  Fp8* hidden_fp8 = ws.at<Fp8>(w.hidden_fp8);
  float* hidden_scale = ws.at<float>(w.hidden_scale);
  const auto [x, x_scale, per_token, x_ld] = quantize_or_take(a.x, a.x_fp8, a.x_scale, a.x_scales, p.tokens, p.hidden,
                                                              static_cast<int>(p.x_stride), nullptr, w, ws, stream);
  const grouped_rows g{so.tile_expert, w.cap.tiles, w.cap.rows};
  using scales = block::grouped_group_scale_args;
  with_weight_order(p.weight_order, [&]<layout O>() {
    launch_stage<Cfg, T, Fp8, O, stage::gate_up>(
        g, x, so.sorted_tokens, p.tokens, x_ld, a.gate, 2 * p.expert_dim, p.hidden,
        block::gate_up_args<scales>{{x_scale, a.gate_scale, so.sorted_tokens, p.tokens, per_token},
                                    {x_scale, a.up_scale, so.sorted_tokens, p.tokens, per_token}},
        hidden, stream, a.up);
    launch_quantize(static_cast<const T*>(hidden), g.rows, p.expert_dim, 0, so.row_index, hidden_fp8, hidden_scale,
                    stream);
    launch_stage<Cfg, T, Fp8, O, stage::down_weighted>(
        g, static_cast<const Fp8*>(hidden_fp8), so.row_index, g.rows, 0, a.down, p.hidden, p.expert_dim,
        scales{hidden_scale, a.down_scale, so.row_index, g.rows, false}, down, stream, nullptr,
        {a.weights, so.sorted_slots, p.tokens * p.top_k});
  });
  launch_combine(p, static_cast<const float*>(down), so.inverse, g.rows, a.out, a.out_unreduced, stream);
  return launch_status("moe " + p.str() + ": ");
}

}  // namespace wavekit::ops::moe
