// The MoE pipeline after routing (ops/moe/problem.hpp), on the device, with no host
// synchronisation: sort, three grouped GEMMs, combine. All are compositions of wavekit's parts:
//
//   sort         ops/moe/sort_kernel.hpp: rows grouped by expert, padded to the M tile
//   gate         G[r] = x[token(r)] W_gate[e]           A rows gathered by token (tile loader's
//                                                        row-gather form), B = the expert's weights
//   up, gated    H[r] = SiLU(G[r]) * (x[token(r)] W_up[e])   the same, block/gate_silu.hpp's epilogue
//   down         Y[r] = weight(slot(r)) * (H[r] W_down[e])   block/scale_gathered_rows.hpp; A's
//                                                        padding rows are not read (row_index)
//   combine      out[t] = sum over j of Y[row(t, j)], in choice order, fp32
//
// Each grouped GEMM is gemm_block over tile_scheduler_grouped: the grid covers the sort's tile
// capacity and a tile's expert comes from the sort's tile table; tiles past the rows in use and
// experts without tokens cost one table read. Every expert's weights are read by the blocks of its
// tiles only: once per M tile of the expert, so once for each expert that has at most BlockM rows.
#pragma once

#include <hip/hip_runtime.h>

#include <cstdint>
#include <initializer_list>
#include <string>
#include <type_traits>

#include "wavekit/arch/buffer.hpp"
#include "wavekit/arch/codegen_targets.hpp"
#include "wavekit/arch/lds.hpp"
#include "wavekit/arch/mfma_atoms.hpp"
#include "wavekit/block/gate_silu.hpp"
#include "wavekit/block/gemm_block.hpp"
#include "wavekit/block/scale_gathered_rows.hpp"
#include "wavekit/block/scale_none.hpp"
#include "wavekit/core/half_convert.hpp"
#include "wavekit/core/math.hpp"
#include "wavekit/ops/moe/configs.hpp"
#include "wavekit/ops/moe/problem.hpp"
#include "wavekit/ops/moe/sort_kernel.hpp"
#include "wavekit/tile/tile_loader_k_contiguous.hpp"
#include "wavekit/tile/tile_loader_mn_contiguous.hpp"
#include "wavekit/warp/warp_mma.hpp"

namespace wavekit::ops::moe {

// The grouped GEMMs' epilogue policies: down is the batched layout's (no routing weights).
enum class stage { gate, up_gated, down_weighted, down };

template <class Cfg, class T, layout WeightOrder, stage Stage>
struct grouped_parts {
  using a_loader = tile::tile_loader_k_contiguous<Cfg::block_m, Cfg::row_bytes, Cfg::threads, 16>;
  using b_loader = std::conditional_t<WeightOrder == layout::k_contiguous,
                                      tile::tile_loader_k_contiguous<Cfg::block_n, Cfg::row_bytes, Cfg::threads, 16>,
                                      tile::tile_loader_mn_contiguous<Cfg::block_n, Cfg::row_bytes, Cfg::threads, 16>>;
  using atom = arch::half_gemm_atom<T, Cfg::mfma_m>;
  using mma = warp::warp_mma<atom, Cfg::tiles_m, Cfg::tiles_n, Cfg::row_bytes,
                             warp::from_lds<typename a_loader::layout>, warp::from_lds<typename b_loader::layout>>;
  using policy = std::conditional_t<Stage == stage::gate || Stage == stage::down, block::scale_none<mma, Cfg::block_k>,
                                    std::conditional_t<Stage == stage::up_gated, block::gate_silu<mma, Cfg::block_k, T>,
                                                       block::scale_gathered_rows<mma, Cfg::block_k>>>;
  using mainloop = block::gemm_mainloop<Cfg, mma, a_loader, b_loader, policy, /*KTail=*/true>;
  using scheduler = block::tile_scheduler_grouped<Cfg::block_m, Cfg::block_n>;
  using body = block::gemm_block<Cfg, layout::k_contiguous, scheduler, mainloop, block::epilogue_store<T>, WeightOrder>;
  using params = block::grouped_gemm_params<T, T, typename policy::args, T>;
  static_assert(mainloop::lds_bytes == Cfg::lds_bytes, "moe::grouped_parts: the config's LDS is the mainloop's");
};

template <class Cfg, class T, layout WeightOrder, stage Stage>
__global__ __launch_bounds__(Cfg::threads) WAVEKIT_MIN_WAVES_PER_SIMD(Cfg::min_waves_per_simd) void moe_gemm_kernel(
    typename grouped_parts<Cfg, T, WeightOrder, Stage>::params p) {
  using composed = grouped_parts<Cfg, T, WeightOrder, Stage>;
  arch::declare_codegen_targets<Cfg::lds_bytes, Cfg::min_waves_per_simd, 0>();
  if constexpr (!arch::runs_on_current_target<typename composed::atom>) {
    __builtin_trap();
  } else {
    WAVEKIT_LDS_ARRAY(arch::u32x4, lds, Cfg::lds_bytes / 16);
    composed::body::run(p, reinterpret_cast<unsigned char*>(lds));
  }
}

inline constexpr int combine_threads = 256;

// out[t][c..c+8) = sum over j of down[inverse[t * top_k + j]][c..c+8), in choice order, fp32; one
// thread per 8 columns (16-byte loads and stores), a row of blocks per token.
template <class T>
__global__ __launch_bounds__(combine_threads) void moe_combine_kernel(const T* down, const int* inverse, int top_k,
                                                                      int hidden, int rows, T* out) {
  arch::declare_codegen_targets<0, 8>();
  const int token = static_cast<int>(blockIdx.y);
  const int col = (static_cast<int>(blockIdx.x) * combine_threads + static_cast<int>(threadIdx.x)) * 8;
  if (col >= hidden) return;
  const arch::buffer y = arch::buffer::over(down, static_cast<std::uint32_t>(rows) * hidden * 2);
  float sum[8] = {};
  for (int j = 0; j < top_k; ++j) {
    const int row = inverse[token * top_k + j];
    if (row < 0) continue;  // an expert not computed here
    const arch::u32x4 v = y.load16(static_cast<std::uint32_t>(row * hidden + col) * 2);
#pragma unroll
    for (int h = 0; h < 8; ++h)
      sum[h] += widen_to_float(T::from_bits(static_cast<std::uint16_t>(v[h / 2] >> (16 * (h % 2)))));
  }
  std::uint32_t packed[4];
#pragma unroll
  for (int q = 0; q < 4; ++q)
    packed[q] = half_bits_rne<T>(sum[2 * q]) | static_cast<std::uint32_t>(half_bits_rne<T>(sum[2 * q + 1])) << 16;
  const arch::buffer o = arch::buffer::over(out, static_cast<std::uint32_t>(gridDim.y) * hidden * 2);
  o.store16(arch::u32x4{packed[0], packed[1], packed[2], packed[3]},
            static_cast<std::uint32_t>(token * hidden + col) * 2);
}

// out_unreduced[s][c..c+8) = down[inverse[s]][c..c+8), or 0 where inverse[s] is -1: each slot's
// weighted result in slot order (the standard EP layout's unreduced output; the dispatch library's
// combine sums them). One thread per 8 columns, a row of blocks per slot.
template <class T>
__global__ __launch_bounds__(combine_threads) void moe_unreduced_kernel(const T* down, const int* inverse, int hidden,
                                                                        int rows, T* out) {
  arch::declare_codegen_targets<0, 8>();
  const int slot = static_cast<int>(blockIdx.y);
  const int col = (static_cast<int>(blockIdx.x) * combine_threads + static_cast<int>(threadIdx.x)) * 8;
  if (col >= hidden) return;
  const int row = inverse[slot];
  const arch::buffer y = arch::buffer::over(down, static_cast<std::uint32_t>(rows) * hidden * 2);
  const arch::buffer o = arch::buffer::over(out, static_cast<std::uint32_t>(gridDim.y) * hidden * 2);
  o.store16(y.load16(row >= 0 ? static_cast<std::uint32_t>(row * hidden + col) * 2 : arch::out_of_range),
            static_cast<std::uint32_t>(slot * hidden + col) * 2);
}

// The rows a grouped GEMM runs over: `rows` rows in M tiles of Cfg::block_m, tile i belonging to
// local expert tile_expert[i] (-1: none).
struct grouped_rows {
  const int* tile_expert;
  int tiles, rows;
};

// One grouped GEMM: C[r] = A[a_rows[r]] x B_e (e the tile's expert; a_rows null: A[r]; -1: zeros)
// over g's rows, N = n, K = k, with the stage's epilogue policy arguments.
template <class Cfg, class T, layout WeightOrder, stage Stage, class ScaleArgs>
void launch_stage(const grouped_rows& g, const T* a, const int* a_rows, int a_rows_total, const T* const* b, int n,
                  int k, const ScaleArgs& scales, T* c, hipStream_t stream) {
  using parts = grouped_parts<Cfg, T, WeightOrder, Stage>;
  typename parts::params kp{};
  kp.a = a, kp.b = nullptr, kp.scales = scales, kp.out = {c, nullptr};
  kp.m = g.rows, kp.n = n, kp.k = k;
  const int steps = ceil_div(k, Cfg::block_k);
  kp.groups_per_split = steps, kp.skip = steps * Cfg::block_k - k;
  kp.b_groups = b, kp.tile_group = g.tile_expert, kp.a_rows = a_rows, kp.a_rows_total = a_rows_total;
  hipLaunchKernelGGL((moe_gemm_kernel<Cfg, T, WeightOrder, Stage>), parts::scheduler::grid(g.tiles, n),
                     dim3(Cfg::threads), 0, stream, kp);
}

template <class Cfg, class T>
std::size_t workspace_bytes_for(const problem& p) {
  return plan_workspace(p, Cfg::block_m, sizeof(T)).bytes;
}

// The arguments both layouts share: x, the routing inputs of this layout (`routing`: ids and
// weights, or counts), the weight tables, out and a workspace of at least `need` bytes.
template <class T>
status check_layer_arguments(const std::string& what, const T* x, std::initializer_list<pointer_argument> routing,
                             const T* const* gate, const T* const* up, const T* const* down, const T* out,
                             const void* workspace, std::size_t workspace_bytes, std::size_t need) {
  if (status s = check_pointer_arguments(what, {{"x", x, 16, "16-byte vector loads"}}); !s.ok()) return s;
  if (status s = check_pointer_arguments(what, routing); !s.ok()) return s;
  if (status s = check_pointer_arguments(what, {{"gate", gate, 8, "a device table of pointers"},
                                                {"up", up, 8, "a device table of pointers"},
                                                {"down", down, 8, "a device table of pointers"},
                                                {"out", out, 16, "16-byte vector stores"},
                                                {"workspace", workspace, 256, "its intermediates"}});
      !s.ok())
    return s;
  if (workspace_bytes < need)
    return {status_code::bad_config, what + "the workspace must hold " + std::to_string(need) + " bytes (have " +
                                         std::to_string(workspace_bytes) + ")"};
  return status::success();
}

template <class T>
status validate(const problem& p, const args<T>& a, int tile_m, std::size_t need) {
  if (status s = validate_shape(p); !s.ok()) return s;
  if (status s = validate_sort_shape(p.sort(tile_m)); !s.ok()) return s;
  const std::string what = "moe " + p.str() + ": ";
  if (!a.out && !a.out_unreduced)
    return {status_code::null_pointer, what + "arguments out and out_unreduced are both null"};
  if (reinterpret_cast<std::uintptr_t>(a.out_unreduced) % 16)
    return {status_code::bad_alignment,
            what + "argument out_unreduced must be 16-byte aligned (16-byte vector stores)"};
  return check_layer_arguments(what, a.x, {{"ids", a.ids, 4, "int32"}, {"weights", a.weights, 4, "fp32"}}, a.gate, a.up,
                               a.down, a.out ? a.out : a.out_unreduced, a.workspace, a.workspace_bytes, need);
}

// Validates, then launches the sort, the three grouped GEMMs of config Cfg and the combine on
// `stream`: no host synchronisation, no allocation (the workspace holds everything).
template <class Cfg, class T>
status launch(const problem& p, const args<T>& a, hipStream_t stream) {
  const workspace_layout w = plan_workspace(p, Cfg::block_m, sizeof(T));
  if (status s = validate(p, a, Cfg::block_m, w.bytes); !s.ok()) return s;
  auto* base = static_cast<unsigned char*>(a.workspace);
  auto at = [&](std::size_t offset) { return reinterpret_cast<int*>(base + offset); };
  const sort_outputs so{at(w.counts),    at(w.offsets),     at(w.sorted_slots), at(w.sorted_tokens),
                        at(w.row_index), at(w.tile_expert), at(w.inverse),      at(w.invalid_ids)};
  if (status s = sort(p.sort(Cfg::block_m), a.ids, so, stream); !s.ok()) return s;
  if (p.tokens == 0) return status::success();
  T* gate = reinterpret_cast<T*>(base + w.gate);
  T* hidden = reinterpret_cast<T*>(base + w.hidden);
  T* down = reinterpret_cast<T*>(base + w.down);
  const grouped_rows g{so.tile_expert, w.cap.tiles, w.cap.rows};
  auto stages = [&]<layout O>() {
    launch_stage<Cfg, T, O, stage::gate>(g, a.x, so.sorted_tokens, p.tokens, a.gate, p.expert_dim, p.hidden,
                                         block::scale_none_args{}, gate, stream);
    launch_stage<Cfg, T, O, stage::up_gated>(g, a.x, so.sorted_tokens, p.tokens, a.up, p.expert_dim, p.hidden,
                                             block::gate_args<T>{gate}, hidden, stream);
    launch_stage<Cfg, T, O, stage::down_weighted>(
        g, hidden, so.row_index, g.rows, a.down, p.hidden, p.expert_dim,
        block::gathered_row_scale_args{a.weights, so.sorted_slots, p.tokens * p.top_k}, down, stream);
  };
  if (p.weight_order == layout::k_contiguous)
    stages.template operator()<layout::k_contiguous>();
  else
    stages.template operator()<layout::mn_contiguous>();
  const unsigned column_blocks = static_cast<unsigned>(ceil_div(p.hidden, 8 * combine_threads));
  if (a.out)
    hipLaunchKernelGGL(moe_combine_kernel<T>, dim3(column_blocks, static_cast<unsigned>(p.tokens)),
                       dim3(combine_threads), 0, stream, down, so.inverse, p.top_k, p.hidden, g.rows, a.out);
  if (a.out_unreduced)
    hipLaunchKernelGGL(moe_unreduced_kernel<T>, dim3(column_blocks, static_cast<unsigned>(p.tokens * p.top_k)),
                       dim3(combine_threads), 0, stream, down, so.inverse, p.hidden, g.rows, a.out_unreduced);
  if (hipError_t e = hipGetLastError(); e != hipSuccess)
    return {status_code::launch_failed, "moe " + p.str() + ": " + hipGetErrorString(e)};
  return status::success();
}

}  // namespace wavekit::ops::moe
