// The scale policy of OCP MX operands (docs/hardware.md 1.4, 2.4): every 32 consecutive K of a row
// of A and of B share an e8m0 scale, and gfx950's scaled MFMAs apply them inside the instruction,
// each 32-K block's dot product times 2^(sa + sb - 254) before it is summed. So the K loop is the
// unscaled one and the accumulators are the result; what the policy adds is the scale operand of
// every MFMA: per lane, the scale of the lane's row (column) for the block the atom takes from that
// lane (Atom::scale_block).
//
// The warp MMA must read K in the atom's own order (warp::k_order::atom): the atom applies block
// b's scale to what its layout calls block b, and only in that order is that the tile's K
// [32 b, 32 b + 32) of the MFMA's range.
//
// Scales are read straight from global memory, one byte per lane per row tile (column tile) per
// MFMA, issued a step ahead with the tiles (global loads complete in order, so waiting for the
// tiles covers them). A row's offset is per lane (out of range past M / N: scale 0, times the
// tile's zeros there) and the step's block a wave-uniform offset. The first step of a ragged K
// range (the mainloop's KTail) starts up to a step early: blocks before K = 0 read as 0 (their
// elements are 0 too, and a neighbouring row's scale there could be NaN's 0xFF).
//
// Scale tensors: a_scale [M][K/32], b_scale [N][K/32] (e8m0, K-contiguous, the plain layout).
//
// Or A's scales come from LDS, where a loader that quantizes A on its way in left them beside the
// tile (ALdsScales: tile/tile_loader_quantize_fp4.hpp, its scale_offset and scales_per_row): each
// step reads its lanes' rows' scales there once the step's tiles are in LDS (the mainloop's
// stage_in_lds hook), one 8-byte read per row tile, and a_scale is not read.
//
// Grouped GEMMs (Args = grouped_mx_scale_args): B's scales from the tile's group's entry of a
// table, A's scales of the rows the row table gathers (-1: scale 0, the row being zeros), B's
// rows of scales b_scale_ld apart where B's rows are padded past K (gemm_block.hpp's gemm_params::ldb).
//
// BShuffled: b_scale in aiter's e8m0_shuffle layout (core/mx_shuffle.hpp: padded, a row's part
// plus a block's part), read in place; each lane adds its block's part (a few instructions a
// scale) to its row's.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <cstdint>
#include <type_traits>

#include "wavekit/arch/buffer.hpp"
#include "wavekit/arch/lds.hpp"
#include "wavekit/block/gemm_epilogue.hpp"
#include "wavekit/block/tile_scheduler.hpp"
#include "wavekit/core/mx_shuffle.hpp"
#include "wavekit/core/numeric_types.hpp"
#include "wavekit/core/platform.hpp"
#include "wavekit/warp/warp_mma.hpp"

namespace wavekit::block {

struct mx_scale_args {
  const e8m0* a_scale;  // [M][K/32]
  const e8m0* b_scale;  // [N][K/32]
};

// GEMM `batch`'s scales in a batch (block::batch_args, core/gemm_view.hpp): each operand's scales
// follow it, a_scales and b_scales bytes a GEMM; a shared operand (batch stride 0) shares its own.
WAVEKIT_DEVICE WAVEKIT_FORCEINLINE mx_scale_args mx_scales_at_batch(mx_scale_args s, long batch, const batch_args& b,
                                                                    long a_scales, long b_scales) {
  if (b.a) s.a_scale += batch * a_scales;
  if (b.b) s.b_scale += batch * b_scales;
  return s;
}

// A grouped GEMM's (MoE's experts): B's scales per group, A's rows (and so their scales) through
// the row table of grouped_gemm_params.
struct grouped_mx_scale_args {
  const e8m0* a_scale;         // [a_rows_total][K/32]
  const e8m0* const* b_scale;  // [groups]: each group's B scales, in B's layout (plain or shuffled)
  const int* a_rows;           // [M]: the A row of each C row (-1: none), or null: the same row
  int a_rows_total;            // rows of A (and of a_scale)
  int b_scale_ld = 0;          // B's scales a row as stored (padded K / 32: the shuffled layout is
                               // of [N][b_scale_ld]); 0: K/32
};

template <class Mma, int StepK, class ALdsScales = void, bool BShuffled = false, class Args = mx_scale_args>
struct scale_in_instruction {
  using atom = typename Mma::atom;
  static_assert(Mma::scaled, "scale_in_instruction: the warp MMA's atom must be a scaled one (arch::mfma_scaled_atom)");
  static_assert(Mma::order == warp::k_order::atom,
                "scale_in_instruction: the warp MMA must read K in the atom's order (warp::k_order::atom)");
  static_assert(StepK % atom::k == 0 && atom::k % atom::scale_k == 0,
                "scale_in_instruction: a K step is whole MFMAs of whole 32-K blocks");
  static constexpr int group_k = StepK;  // a group is one K step
  static constexpr int steps_per_group = 1;
  static constexpr bool restarts = false;
  static constexpr int lds_bytes = 0;
  static constexpr int tiles_m = Mma::tiles_m, tiles_n = Mma::tiles_n, mfmas = Mma::mfmas;
  static constexpr int blocks_per_step = StepK / atom::scale_k, blocks_per_mfma = atom::k / atom::scale_k;
  static constexpr bool a_in_lds = !std::is_void_v<ALdsScales>;
  static_assert(
      [] {
        if constexpr (a_in_lds)
          return ALdsScales::scales_per_row == blocks_per_step && blocks_per_step == 8;
        else
          return true;
      }(),
      "scale_in_instruction: A's scales in LDS are a step's 8 blocks a row (one 8-byte read)");
  using args = Args;
  static constexpr bool grouped = std::is_same_v<Args, grouped_mx_scale_args>;
  static_assert(grouped || std::is_same_v<Args, mx_scale_args>,
                "scale_in_instruction: its arguments are mx_scale_args or grouped_mx_scale_args");
  using mma_type = Mma;  // the warp MMA whose accumulators it scales
  using scales = typename Mma::instruction_scales;

  arch::buffer a, b;
  std::uint32_t a_row[tiles_m], b_row[tiles_n];  // byte offset of this lane's row's scale in its MFMA block 0
  int lane_block;                                // Atom::scale_block(lane)
  int a_lds_row[tiles_m];                        // A scales in LDS: this lane's rows, within the tile
  int skip_blocks;                               // blocks the K steps start early (KTail; else 0)
  scales current, next;

  // A batched GEMM's scales (plain arguments): A's [M][K/32] a GEMM (none read from memory when A's
  // are in LDS), B's [N][K/32] or its shuffled layout's.
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE static args at_batch(args s, long batch, const batch_args& b, int m, int n, int k)
    requires(!grouped)
  {
    const int blocks = k / atom::scale_k;
    const long b_scales = BShuffled ? static_cast<long>(shuffled_scale_rows(n)) * shuffled_scale_cols(blocks)
                                    : static_cast<long>(n) * blocks;
    return mx_scales_at_batch(s, batch, b, a_in_lds ? 0 : static_cast<long>(m) * blocks, b_scales);
  }

  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void begin(const args& p, int m, int n, int k, const gemm_tile& t, float*, int,
                                                int wave_row, int wave_col, int lane) {
    const int blocks = k / atom::scale_k;  // scales per row
    // A grouped GEMM's: its group's B scales, A's rows through the row table.
    const e8m0* b_scale = [&] {
      if constexpr (grouped)
        return arch::uniform_pointer(p.b_scale[t.group]);
      else
        return p.b_scale;
    }();
    const int a_rows_total = [&] {
      if constexpr (grouped)
        return p.a_rows_total;
      else
        return m;
    }();
    a = arch::buffer::over(
        a_in_lds ? nullptr : p.a_scale,
        a_in_lds ? 0u : static_cast<std::uint32_t>(a_rows_total) * static_cast<std::uint32_t>(blocks));
    // B's scales a row as stored (a grouped GEMM's may be padded past K: b_scale_ld).
    const int b_blocks = [&] {
      if constexpr (grouped)
        return p.b_scale_ld ? p.b_scale_ld : blocks;
      else
        return blocks;
    }();
    const int b_cols = BShuffled ? shuffled_scale_cols(b_blocks) : b_blocks;
    b = arch::buffer::over(b_scale, static_cast<std::uint32_t>(BShuffled ? shuffled_scale_rows(n) : n) *
                                        static_cast<std::uint32_t>(b_cols));
    lane_block = atom::scale_block(lane);
    auto offset = [&](int row, int rows, int stride) {
      return row >= 0 && row < rows ? static_cast<std::uint32_t>(row) * static_cast<std::uint32_t>(stride) + lane_block
                                    : arch::out_of_range;
    };
#pragma unroll
    for (int i = 0; i < tiles_m; ++i) {
      const int row = t.m0 + wave_row + i * Mma::m + lane % Mma::m;
      const int a_row_of = [&] {
        if constexpr (grouped)
          return p.a_rows ? (row < m ? p.a_rows[row] : -1) : row;
        else
          return row;
      }();
      a_row[i] = offset(a_row_of, grouped ? a_rows_total : m, blocks);
      a_lds_row[i] = wave_row + i * Mma::m + lane % Mma::m;
    }
#pragma unroll
    for (int j = 0; j < tiles_n; ++j) {
      const int row = t.n0 + wave_col + j * Mma::m + lane % Mma::m;
      b_row[j] = !BShuffled ? offset(row, n, b_blocks)
                 : row < n  ? static_cast<std::uint32_t>(shuffled_scale_row_part(row, b_cols))
                            : arch::out_of_range;
    }
    // Step g starts at K = g * StepK - skip, skip being the mainloop's KTail (0 when K is whole steps).
    skip_blocks = (StepK - k % StepK) % StepK / atom::scale_k;
  }

  // The scales of the step whose first block is `block`: a wave-uniform offset from each row's.
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void load(int block, scales& to) const {
#pragma unroll
    for (int s = 0; s < mfmas; ++s) {
      const std::uint32_t uniform = static_cast<std::uint32_t>(block + s * blocks_per_mfma);
      if constexpr (!a_in_lds) {
#pragma unroll
        for (int i = 0; i < tiles_m; ++i) to.a[i][s] = static_cast<int>(a.load1(a_row[i], uniform));
      }
      if constexpr (BShuffled) {
        const std::uint32_t part =
            static_cast<std::uint32_t>(shuffled_scale_col_part(block + s * blocks_per_mfma + lane_block));
#pragma unroll
        for (int j = 0; j < tiles_n; ++j) to.b[j][s] = static_cast<int>(b.load1(b_row[j] + part));
      } else {
#pragma unroll
        for (int j = 0; j < tiles_n; ++j) to.b[j][s] = static_cast<int>(b.load1(b_row[j], uniform));
      }
    }
  }
  // The first step's, which may begin before K = 0 (KTail): those lanes' blocks read 0.
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void load_first(int first_block, scales& to) const {
    if (first_block >= 0) return load(first_block, to);
#pragma unroll
    for (int s = 0; s < mfmas; ++s) {
      const int block = first_block + s * blocks_per_mfma;  // of the lane's MFMA block 0
      const bool before_k = block + lane_block < 0;
      if constexpr (!a_in_lds) {
#pragma unroll
        for (int i = 0; i < tiles_m; ++i)
          to.a[i][s] = static_cast<int>(a.load1(before_k ? arch::out_of_range : a_row[i] + block));
      }
      const std::uint32_t part = BShuffled && !before_k
                                     ? static_cast<std::uint32_t>(shuffled_scale_col_part(block + lane_block))
                                     : static_cast<std::uint32_t>(block);
#pragma unroll
      for (int j = 0; j < tiles_n; ++j)
        to.b[j][s] = static_cast<int>(b.load1(before_k ? arch::out_of_range : b_row[j] + part));
    }
  }

  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void prologue(int g) { load_first(g * blocks_per_step - skip_blocks, current); }
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void group_begin(int) {}
  // Issued before the next step's tile loads, with them.
  template <int S>
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void issue_loads(int g, bool more) {
    if (more) load((g + 1) * blocks_per_step - skip_blocks, next);
  }
  // A's scales of the step from LDS (a_in_lds only; the mainloop calls it when the step's tiles
  // are there): byte s * blocks_per_mfma + lane_block of each row's eight.
  template <int S>
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void stage_in_lds(const unsigned char* a_tile)
    requires(a_in_lds)
  {
#pragma unroll
    for (int i = 0; i < tiles_m; ++i) {
      const arch::u32x2 codes =
          arch::lds_load<8>(a_tile + ALdsScales::scale_offset + a_lds_row[i] * ALdsScales::scales_per_row);
#pragma unroll
      for (int s = 0; s < mfmas; ++s) {
        const int block = s * blocks_per_mfma + lane_block;
        current.a[i][s] = static_cast<int>(((block < 4 ? codes[0] : codes[1]) >> (8 * (block % 4))) & 0xFFu);
      }
    }
  }
  template <int S>
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void before_mma(int) {}
  template <int S>
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE const scales& mma_scales() const {
    return current;
  }
  template <int S>
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void after_stores(int) {}
  // The next step's scales have arrived with its tiles.
  template <int S>
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void after_mma(Mma&) {
    current = next;
  }
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE static const auto& result(const Mma& w) { return w.acc; }
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE static identity_transform epilogue_transform() { return {}; }
};

}  // namespace wavekit::block
