// One block of a GEMM, composed: a tile scheduler says which C tile and K groups, the mainloop
// (loaders, warp MMA, scale policy) accumulates them, the epilogue stores the result. Every GEMM
// kernel of wavekit is this composition with its own parts (ops/<op>/ chooses them); a new op
// changes parts, never this loop.
//
// Plain GEMMs take gemm_params; grouped ones (MoE's experts) grouped_gemm_params: a tile's group,
// from the scheduler, picks its B operand from a table of pointers, and A's rows may be gathered
// through a row table (-1: a row of zeros). A and B have their own storage orders.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <hip/hip_runtime.h>  // the platform: HIP on the device, the emulator's shim on the CPU

#include <cstdint>
#include <type_traits>

#include "wavekit/arch/buffer.hpp"
#include "wavekit/block/epilogue_fused.hpp"
#include "wavekit/block/gemm_epilogue.hpp"
#include "wavekit/block/gemm_mainloop.hpp"
#include "wavekit/block/splitk_rule.hpp"
#include "wavekit/block/tile_scheduler.hpp"
#include "wavekit/core/gemm_view.hpp"
#include "wavekit/core/layout.hpp"
#include "wavekit/core/math.hpp"
#include "wavekit/core/numeric_types.hpp"
#include "wavekit/core/platform.hpp"
#include "wavekit/tile/tile_loader_pair.hpp"

namespace wavekit::block {

// A GEMM's kernel argument: C = A x B^T over K (storage order fixed by the kernel), with the scale
// policy's arguments and the epilogue's (epilogue_store's by default; an epilogue_fused's carry its
// D tensors: block/epilogue_fused.hpp; C's row stride is the epilogue's, out.ldc). Row strides and a
// batch as core/gemm_view.hpp describes them: a batched GEMM's block z holds its split and GEMM
// (tile_scheduler_2d); a scale policy with at_batch moves its scales to the tile's GEMM.
template <class A, class B, class ScaleArgs, class Out, class EpilogueArgs = epilogue_args<Out>>
struct gemm_params {
  using a_type = A;
  using b_type = B;
  using scale_args = ScaleArgs;
  using epilogue_args_type = EpilogueArgs;
  const A* a;
  const B* b;
  ScaleArgs scales;
  EpilogueArgs out;
  int m, n, k;
  int groups_per_split;  // K groups (the policy's unit) per split
  int skip;              // K elements the first step starts early (mainloop KTail), else 0
  int lda = 0, ldb = 0;  // elements between A's and B's rows as stored; 0: packed (K, or M / N)
  batch_args batch = {};
};

// The kernel argument of a problem p (m, n, k, strides and batch: core/gemm_view.hpp) with its
// operands, scale and epilogue arguments, and the launch's K cut (its K groups per split and
// first-step skip).
template <class Params, class Problem>
Params make_gemm_params(const typename Params::a_type* a, const typename Params::b_type* b,
                        const typename Params::scale_args& scales, const typename Params::epilogue_args_type& out,
                        const Problem& p, const splitk_cut& cut) {
  Params kp{a, b, scales, out, p.m, p.n, p.k, cut.per_split, cut.skip};
  kp.lda = static_cast<int>(p.strides.lda), kp.ldb = static_cast<int>(p.strides.ldb);
  kp.out.ldc = static_cast<int>(p.strides.ldc);
  kp.batch = {p.batch.count, static_cast<int>(p.batch.a), static_cast<int>(p.batch.b), static_cast<int>(p.batch.c)};
  return kp;
}
// The same without scale arguments.
template <class Params, class Problem>
Params plain_gemm_params(const typename Params::a_type* a, const typename Params::b_type* b,
                         const typename Params::epilogue_args_type& out, const Problem& p, const splitk_cut& cut) {
  return make_gemm_params<Params>(a, b, {}, out, p, cut);
}

// A grouped GEMM's kernel argument: m counts the grouped rows (every group's rows, padded to whole
// M tiles), b is unused: tile i of group g = tile_group[i] multiplies B operand b_groups[g]
// (group -1: the tile has no work). With a_rows, C row r multiplies A row a_rows[r] (-1: zeros)
// of an A of a_rows_total rows; without, A row r.
template <class A, class B, class ScaleArgs, class Out, class EpilogueArgs = epilogue_args<Out>>
struct grouped_gemm_params : gemm_params<A, B, ScaleArgs, Out, EpilogueArgs> {
  const B* const* b_groups;
  const int* tile_group;
  const int* a_rows;
  int a_rows_total;
};

template <class P>
concept grouped_params = requires(const P& p) {
  p.b_groups;
  p.tile_group;
};

// A grouped GEMM over pairs of B operands (block/gate_up_pair.hpp: a gated linear unit's gate and
// up weights): group g's B is b_groups[g] and b_second_groups[g] side by side, each n / 2 rows, and
// each N tile holds BlockN / 2 columns of both (B's loader is a tile::tile_loader_pair).
template <class A, class B, class ScaleArgs, class Out, class EpilogueArgs = epilogue_args<Out>>
struct paired_gemm_params : grouped_gemm_params<A, B, ScaleArgs, Out, EpilogueArgs> {
  const B* const* b_second_groups;
};

template <class P>
concept paired_params = grouped_params<P> && requires(const P& p) { p.b_second_groups; };

// A grouped GEMM's tables, as grouped_gemm_params and paired_gemm_params name them
// (b_second_groups: paired GEMMs only).
template <class B>
struct grouped_operands {
  const B* const* b_groups;
  const int* tile_group;
  const int* a_rows = nullptr;
  int a_rows_total = 0;
  const B* const* b_second_groups = nullptr;
};

// The kernel argument of a grouped GEMM over m grouped rows, N = n, K = k (grouped GEMMs do not split
// K): K in GroupK groups (the policy's), the first step starting early by what K lacks of a whole
// group (the mainloop's KTail reads zeros there), A's and B's rows lda and ldb elements apart (0: K).
template <class Params, int GroupK>
Params make_grouped_gemm_params(const typename Params::a_type* a, const typename Params::scale_args& scales,
                                const typename Params::epilogue_args_type& out, int m, int n, int k,
                                const grouped_operands<typename Params::b_type>& g, int lda = 0, int ldb = 0) {
  static_assert(grouped_params<Params>, "make_grouped_gemm_params: Params is a grouped GEMM's argument");
  const int groups = ceil_div(k, GroupK);
  Params kp{};
  kp.a = a, kp.b = nullptr, kp.scales = scales, kp.out = out;
  kp.m = m, kp.n = n, kp.k = k, kp.groups_per_split = groups, kp.skip = groups * GroupK - k;
  kp.lda = lda, kp.ldb = ldb;
  kp.b_groups = g.b_groups, kp.tile_group = g.tile_group, kp.a_rows = g.a_rows, kp.a_rows_total = g.a_rows_total;
  if constexpr (paired_params<Params>) kp.b_second_groups = g.b_second_groups;
  return kp;
}

// Where a tile's outputs go (block/gemm_epilogue.hpp): C's row stride resolved (0: `cols`, packed),
// the offset of GEMM `batch` in C and of the split's partials (C's layout once a split, over the
// whole batch). 64-bit: a batch's C may pass 2^31 elements though each GEMM's stays below.
struct output_place {
  int ldc;
  long c_offset, split_offset;
};
WAVEKIT_DEVICE WAVEKIT_FORCEINLINE output_place output_place_of(int ldc, int m, int cols, const batch_args& b,
                                                                long batch, int split) {
  const int ld = ldc ? ldc : cols;
  return {ld, batch * b.c, split * (static_cast<long>(b.count - 1) * b.c + view_extent(m, cols, ld))};
}

// The buffer over rows [row0, row0 + min(block_rows, rows - row0)) of a K-contiguous tensor with
// rows ld elements apart; the pointer moves in 64 bits, the buffer's extent is one tile's, so every
// offset a tile loads stays below its rows x ld bytes however large the tensor is (32-bit offsets).
template <class T>
WAVEKIT_DEVICE WAVEKIT_FORCEINLINE arch::buffer tile_rows(const T* base, int row0, int rows, int block_rows, int ld) {
  const int tile = rows - row0 < block_rows ? rows - row0 : block_rows;
  const std::uint64_t row_objects = static_cast<std::uint64_t>(ld) / elements_per_object<T>;
  return arch::buffer::over(base + static_cast<std::uint64_t>(row0) * row_objects,
                            static_cast<std::uint32_t>(static_cast<std::uint64_t>(tile) * row_objects * sizeof(T)));
}

template <class Cfg, layout Order, tile_scheduler Scheduler, class Mainloop, gemm_epilogue Epilogue,
          layout BOrder = Order>
struct gemm_block {
  using mma = typename Mainloop::mma_type;
  using policy = typename Mainloop::policy_type;
  static_assert(
      [] {
        if constexpr (block_epilogue<Epilogue>)
          return Epilogue::template lds_bytes<Cfg, mma> <= Mainloop::exchange_bytes;
        else
          return true;
      }(),
      "gemm_block: the epilogue's exchange between waves must fit in the mainloop's LDS");

  // lds: Mainloop::lds_bytes, 16-byte aligned (a direct-fill mainloop: its stages' arrays).
  using lds_type = typename Mainloop::lds_type;
  template <class A, class B, class Out, class EpilogueArgs>
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE static void run(
      const gemm_params<A, B, typename policy::args, Out, EpilogueArgs>& p, lds_type lds) {
    run_with(p, lds);
  }
  template <class A, class B, class Out, class EpilogueArgs>
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE static void run(
      const grouped_gemm_params<A, B, typename policy::args, Out, EpilogueArgs>& p, lds_type lds) {
    run_with(p, lds);
  }
  template <class A, class B, class Out, class EpilogueArgs>
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE static void run(
      const paired_gemm_params<A, B, typename policy::args, Out, EpilogueArgs>& p, lds_type lds) {
    run_with(p, lds);
  }

 private:
  // The buffer over a whole tensor of `rows` rows of `cols` elements, rows ld apart.
  template <class T>
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE static arch::buffer whole(const T* base, int rows, int cols, int ld) {
    return arch::buffer::over(base, static_cast<std::uint32_t>(static_cast<std::uint64_t>(view_extent(rows, cols, ld)) *
                                                               sizeof(T) / elements_per_object<T>));
  }

  template <class Params>
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE static void run_with(const Params& p, lds_type lds) {
    using A = std::remove_cvref_t<decltype(*p.a)>;
    using B = std::remove_cvref_t<decltype(*p.b)>;
    constexpr bool grouped = grouped_params<Params>, paired = paired_params<Params>;
    static_assert(paired == std::is_same_v<typename Mainloop::sources, gemm_sources<tile::buffer_pair>>,
                  "gemm_block: paired B operands (paired_gemm_params) go with a tile_loader_pair for B");
    // The wave index is the same in all its lanes; readfirstlane tells the compiler so (scalar
    // registers and branches for everything derived from it).
    const int tid = static_cast<int>(threadIdx.x), lane = tid % 64, wave = __builtin_amdgcn_readfirstlane(tid / 64);
    const int wave_row = (wave / Cfg::waves_n) * Cfg::wave_m, wave_col = (wave % Cfg::waves_n) * Cfg::wave_n;
    const int skip = Mainloop::k_tail ? p.skip : 0;
    tile_context context;
    if constexpr (grouped) context.tile_group = p.tile_group;
    context.batches = p.batch.count;
    const gemm_tile t = Scheduler::at((p.k + skip) / policy::group_k, p.groups_per_split, context);
    if constexpr (grouped)
      if (t.group < 0) return;  // a tile past the groups' rows: the whole block
    // The tile's GEMM of a batch: its A, B and C a batch stride on (in elements; 64-bit).
    const long batch = t.batch;
    const A* a = p.a + batch * p.batch.a / elements_per_object<A>;
    const B* b = [&] {
      if constexpr (grouped)
        return arch::uniform_pointer(p.b_groups[t.group]);
      else
        return p.b + batch * p.batch.b / elements_per_object<B>;
    }();
    // The row strides (0: packed). A pair's B tensors have n / 2 rows each, and its C n / 2 columns.
    const int b_rows = paired ? p.n / 2 : p.n, c_cols = b_rows;
    const int lda = p.lda ? p.lda : (Order == layout::k_contiguous ? p.k : p.m);
    const int ldb = p.ldb ? p.ldb : (BOrder == layout::k_contiguous ? p.k : b_rows);
    // B's buffer: one tensor of n rows, or (paired) each of the two tensors of n / 2 rows, over the
    // tile's rows (K-contiguous) or the whole tensor.
    auto b_buffer = [&](const B* base, int n0, int n, int block_rows) {
      if constexpr (BOrder == layout::k_contiguous)
        return tile_rows(base, n0, n, block_rows, ldb);
      else
        return whole(base, p.k, n, ldb);
    };
    const auto b_source = [&] {
      if constexpr (paired)
        return tile::buffer_pair{
            b_buffer(b, t.n0 / 2, p.n / 2, Cfg::block_n / 2),
            b_buffer(arch::uniform_pointer(p.b_second_groups[t.group]), t.n0 / 2, p.n / 2, Cfg::block_n / 2)};
      else
        return b_buffer(b, t.n0, p.n, Cfg::block_n);
    }();
    // A K-contiguous operand's buffer starts at the tile's first row and spans only its rows, so
    // every offset stays below block rows x K bytes however large the tensor is (buffer offsets
    // are 32-bit): the mainloop then sees the tile at row 0 of `rows_left` rows. A gathered A
    // (rows from a table) and M/N-contiguous operands span the whole tensor.
    constexpr bool rebase_a = Order == layout::k_contiguous && !grouped;
    constexpr bool rebase_b = BOrder == layout::k_contiguous;
    gemm_tile local = t;
    if constexpr (rebase_a) local.m0 = 0;
    if constexpr (rebase_b) local.n0 = 0;
    const typename Mainloop::sources src{rebase_a                        ? tile_rows(a, t.m0, p.m, Cfg::block_m, lda)
                                         : Order == layout::k_contiguous ? whole(a, a_rows_of(p), p.k, lda)
                                                                         : whole(a, p.k, p.m, lda),
                                         b_source,
                                         lda,
                                         ldb,
                                         rebase_a ? p.m - t.m0 : p.m,
                                         rebase_b ? p.n - t.n0 : p.n,
                                         skip,
                                         [&]() -> const int* {
                                           if constexpr (grouped)
                                             return p.a_rows;
                                           else
                                             return nullptr;
                                         }()};
    // The GEMM's scales: a policy whose scales follow their operands moves them (at_batch).
    policy scale_state;
    float* const policy_lds = Mainloop::policy_lds(lds);
    if constexpr (requires { policy::at_batch(p.scales, batch, p.batch, p.m, p.n, p.k); })
      scale_state.begin(policy::at_batch(p.scales, batch, p.batch, p.m, p.n, p.k), p.m, p.n, p.k, t, policy_lds, tid,
                        wave_row, wave_col, lane);
    else
      scale_state.begin(p.scales, p.m, p.n, p.k, t, policy_lds, tid, wave_row, wave_col, lane);
    mma w;
    Mainloop::run(src, local, tid, lane, wave_row, wave_col, w, scale_state, lds);
    // C and the split's partials at the tile's GEMM (block/gemm_epilogue.hpp: the partials are C's
    // layout once a split, over the whole batch).
    const output_place at = output_place_of(p.out.ldc, p.m, c_cols, p.batch, batch, t.split);
    auto out = p.out;
    out.ldc = at.ldc;
    if constexpr (requires { Epilogue::place(out, at.c_offset, at.split_offset); })
      out = Epilogue::place(out, at.c_offset, at.split_offset);
    else
      out = place_outputs(out, at.c_offset, at.split_offset);
    if constexpr (block_epilogue<Epilogue>)  // waves exchange values through LDS (the tiles' LDS, done with)
      Epilogue::template store<Cfg, mma>(out, p.m, p.n, scale_state.result(w), t,
                                         wave_place{Mainloop::exchange_lds(lds), wave_row, wave_col, lane},
                                         scale_state.epilogue_transform());
    else
      Epilogue::template store<mma>(out, p.m, p.n, scale_state.result(w), t.m0 + wave_row, t.n0 + wave_col, lane,
                                    scale_state.epilogue_transform());
  }

  // A's rows: a gathered A's table's tensor (a_rows_total rows), else M.
  template <class Params>
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE static int a_rows_of(const Params& p) {
    if constexpr (grouped_params<Params>)
      return p.a_rows ? p.a_rows_total : p.m;
    else
      return p.m;
  }
};

}  // namespace wavekit::block
