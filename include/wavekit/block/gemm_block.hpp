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
#include "wavekit/block/tile_scheduler.hpp"
#include "wavekit/core/layout.hpp"
#include "wavekit/core/numeric_types.hpp"
#include "wavekit/core/platform.hpp"
#include "wavekit/tile/tile_loader_pair.hpp"

namespace wavekit::block {

// A GEMM's kernel argument: C = A x B^T over K (storage order fixed by the kernel), with the scale
// policy's arguments and the epilogue's (epilogue_store's by default; an epilogue_fused's carry its
// D tensors: block/epilogue_fused.hpp).
template <class A, class B, class ScaleArgs, class Out, class EpilogueArgs = epilogue_args<Out>>
struct gemm_params {
  const A* a;
  const B* b;
  ScaleArgs scales;
  EpilogueArgs out;
  int m, n, k;
  int groups_per_split;  // K groups (the policy's unit) per split
  int skip;              // K elements the first step starts early (mainloop KTail), else 0
};

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

// Any of the above with B's rows b_ld elements apart instead of k (a K-contiguous B stored with
// padded rows: MX weights as models store them, docs/moe.md); 0: k. Only kernels whose params are
// b_strided read it: every other kernel's B rows are k elements apart, its code unchanged.
template <class Params>
struct b_strided : Params {
  int b_ld = 0;
};

template <class P>
concept b_strided_params = requires(const P& p) { p.b_ld; };

template <class Cfg, layout Order, tile_scheduler Scheduler, class Mainloop, gemm_epilogue Epilogue,
          layout BOrder = Order>
struct gemm_block {
  using mma = typename Mainloop::mma_type;
  using policy = typename Mainloop::policy_type;
  static_assert(
      [] {
        if constexpr (block_epilogue<Epilogue>)
          return Epilogue::template lds_bytes<Cfg, mma> <= Mainloop::lds_bytes;
        else
          return true;
      }(),
      "gemm_block: the epilogue's exchange between waves must fit in the mainloop's LDS");

  // lds: Mainloop::lds_bytes, 16-byte aligned.
  template <class A, class B, class Out, class EpilogueArgs>
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE static void run(
      const gemm_params<A, B, typename policy::args, Out, EpilogueArgs>& p, unsigned char* lds) {
    run_with(p, lds);
  }
  template <class A, class B, class Out, class EpilogueArgs>
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE static void run(
      const grouped_gemm_params<A, B, typename policy::args, Out, EpilogueArgs>& p, unsigned char* lds) {
    run_with(p, lds);
  }
  template <class A, class B, class Out, class EpilogueArgs>
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE static void run(
      const paired_gemm_params<A, B, typename policy::args, Out, EpilogueArgs>& p, unsigned char* lds) {
    run_with(p, lds);
  }
  template <class Params>
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE static void run(const b_strided<Params>& p, unsigned char* lds) {
    static_assert(BOrder == layout::k_contiguous, "gemm_block: a row stride for B (b_strided) is a K-contiguous B's");
    run_with(p, lds);
  }

 private:
  // The buffer over rows [row0, row0 + min(block_rows, rows - row0)) of a K-contiguous tensor of
  // `k` elements a row (its row stride); the pointer moves in 64 bits, the buffer's extent is one tile's.
  template <class T>
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE static arch::buffer tile_rows(const T* base, int row0, int rows, int block_rows,
                                                                   int k) {
    const int tile = rows - row0 < block_rows ? rows - row0 : block_rows;
    const std::uint64_t row_objects = static_cast<std::uint64_t>(k) / elements_per_object<T>;
    return arch::buffer::over(base + static_cast<std::uint64_t>(row0) * row_objects,
                              static_cast<std::uint32_t>(static_cast<std::uint64_t>(tile) * row_objects * sizeof(T)));
  }

  template <class Params>
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE static void run_with(const Params& p, unsigned char* lds) {
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
    const gemm_tile t = Scheduler::at((p.k + skip) / policy::group_k, p.groups_per_split, context);
    if constexpr (grouped)
      if (t.group < 0) return;  // a tile past the groups' rows: the whole block
    const B* b = [&] {
      if constexpr (grouped)
        return arch::uniform_pointer(p.b_groups[t.group]);
      else
        return p.b;
    }();
    // B's row stride (K-contiguous): k, or b_ld where the params carry one.
    const int b_ld = [&] {
      if constexpr (b_strided_params<Params>)
        return p.b_ld ? p.b_ld : p.k;
      else
        return p.k;
    }();
    // B's buffer: one tensor of n rows, or (paired) each of the two tensors of n / 2 rows, over the
    // tile's rows (K-contiguous) or the whole tensor.
    auto b_buffer = [&](const B* base, int n0, int n, int block_rows) {
      if constexpr (BOrder == layout::k_contiguous)
        return tile_rows(base, n0, n, block_rows, b_ld);
      else
        return arch::buffer::over(
            base, static_cast<std::uint32_t>(n) * static_cast<std::uint32_t>(p.k) * sizeof(B) / elements_per_object<B>);
    };
    const auto b_source = [&] {
      if constexpr (paired)
        return tile::buffer_pair{
            b_buffer(b, t.n0 / 2, p.n / 2, Cfg::block_n / 2),
            b_buffer(arch::uniform_pointer(p.b_second_groups[t.group]), t.n0 / 2, p.n / 2, Cfg::block_n / 2)};
      else
        return b_buffer(b, t.n0, p.n, Cfg::block_n);
    }();
    const std::uint32_t a_rows_total = [&] {
      if constexpr (grouped)
        return static_cast<std::uint32_t>(p.a_rows ? p.a_rows_total : p.m);
      else
        return static_cast<std::uint32_t>(p.m);
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
    const typename Mainloop::sources src{
        rebase_a ? tile_rows(p.a, t.m0, p.m, Cfg::block_m, p.k)
                 : arch::buffer::over(
                       p.a, a_rows_total * static_cast<std::uint32_t>(p.k) * sizeof(A) / elements_per_object<A>),
        b_source,
        Order == layout::k_contiguous ? p.k : p.m,
        BOrder == layout::k_contiguous ? b_ld : (paired ? p.n / 2 : p.n),  // a pair's tensors have n / 2 rows each
        rebase_a ? p.m - t.m0 : p.m,
        rebase_b ? p.n - t.n0 : p.n,
        skip,
        [&]() -> const int* {
          if constexpr (grouped)
            return p.a_rows;
          else
            return nullptr;
        }()};
    policy scale_state;
    scale_state.begin(p.scales, p.m, p.n, p.k, t, reinterpret_cast<float*>(lds + Mainloop::policy_lds_offset), tid,
                      wave_row, wave_col, lane);
    mma w;
    Mainloop::run(src, local, tid, lane, wave_row, wave_col, w, scale_state, lds);
    if constexpr (block_epilogue<Epilogue>)  // waves exchange values through LDS (the tiles' LDS, done with)
      Epilogue::template store<Cfg, mma>(p.out, p.m, p.n, scale_state.result(w), t,
                                         wave_place{lds, wave_row, wave_col, lane}, scale_state.epilogue_transform());
    else
      Epilogue::template store<mma>(p.out, p.m, p.n, scale_state.result(w), t.m0 + wave_row, t.n0 + wave_col, lane,
                                    t.split, scale_state.epilogue_transform());
  }
};

}  // namespace wavekit::block
