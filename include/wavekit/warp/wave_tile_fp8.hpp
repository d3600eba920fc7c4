// One wave's share of a block-scaled fp8 GEMM: tiles_m x tiles_n MFMA tiles of C, their
// fragments read from LDS, and two accumulators per tile: `block` (the current 128-K scale
// block, unscaled) and `total` (scaled sum of finished blocks).
//
// Operands: in a K step of BK bytes, lane l of the wave reads BK * mfma_m / 64 contiguous bytes
// of its row (row l % mfma_m of the tile; K slice (l / mfma_m) of the step) with 16-byte LDS
// reads, and feeds 8 of them to each MFMA of the step. For every MFMA the lanes of one group then
// hold K values that A and B agree on, which is all a dot product needs: over the step each K
// of the tile is multiplied exactly once.
#pragma once

#include <cstdint>
#include <cstring>

#include "wavekit/arch/buffer.hpp"  // u32x4
#include "wavekit/arch/lds.hpp"
#include "wavekit/core/platform.hpp"
#include "wavekit/core/vector.hpp"
#include "wavekit/tile/lds_tile_fp8.hpp"
#include "wavekit/tile/tile_concepts.hpp"
#include "wavekit/warp/mfma_op.hpp"

namespace wavekit::warp {

// ALayout / BLayout: the LDS layouts (tile::lds_tile_fp8) the A and B tiles were stored in.
template <class Cfg, class Fp8, tile::lds_layout ALayout = tile::lds_tile_fp8<Cfg::block_k>,
          tile::lds_layout BLayout = ALayout>
struct wave_tile_fp8 {
  static constexpr int m = Cfg::mfma_m;                // MFMA tile is m x m
  static constexpr int slice = Cfg::block_k * m / 64;  // bytes of a row each lane reads per K step
  static constexpr int reads = slice / 16;             // 16-byte LDS reads per row fragment
  using mfma = mfma_op<Fp8, Fp8, m, m, Cfg::mfma_k>;
  using accumulator = typename mfma::accumulator;
  static constexpr int regs = m * m / 64;  // accumulator registers per lane

  accumulator total[Cfg::tiles_m][Cfg::tiles_n];
  accumulator block[Cfg::tiles_m][Cfg::tiles_n];

  // Bytes [8 half, 8 half + 8) of a 16-byte read: one MFMA's operand.
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE static long operand(const arch::u32x4& q, int half) {
    const std::uint32_t lo = half ? q[2] : q[0], hi = half ? q[3] : q[1];
    return static_cast<long>((static_cast<std::uint64_t>(hi) << 32) | lo);
  }

  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void clear() {
#pragma unroll
    for (int i = 0; i < Cfg::tiles_m; ++i)
#pragma unroll
      for (int j = 0; j < Cfg::tiles_n; ++j) total[i][j] = accumulator{};
  }

  // One K step: A rows from a_lds at wave_row0, B rows (= C columns) from b_lds at wave_col0.
  // FirstInBlock: this step starts a 128-K scale block (the block accumulators restart at 0,
  // as the C operand of the first MFMAs, at no cost).
  template <bool FirstInBlock>
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void step(const unsigned char* a_lds, const unsigned char* b_lds, int wave_row0,
                                               int wave_col0, int lane) {
    constexpr int tiles = Cfg::tiles_m + Cfg::tiles_n;
    // v[r][t]: 16-byte read r of tile t's fragment (A tiles first, then B). All first reads are
    // issued before the second ones, and each read index is pinned (waited for) only before the
    // two MFMAs that use it, so the MFMAs of read 0 overlap the arrival of read 1.
    arch::u32x4 v[reads][tiles];
    const int row = lane % m, k = (lane / m) * slice;
#pragma unroll
    for (int r = 0; r < reads; ++r) {
#pragma unroll
      for (int i = 0; i < Cfg::tiles_m; ++i)
        v[r][i] = arch::lds_load<16>(a_lds + ALayout::offset(wave_row0 + i * m + row, k + 16 * r));
#pragma unroll
      for (int j = 0; j < Cfg::tiles_n; ++j)
        v[r][Cfg::tiles_m + j] = arch::lds_load<16>(b_lds + BLayout::offset(wave_col0 + j * m + row, k + 16 * r));
    }
#pragma unroll
    for (int r = 0; r < reads; ++r) {
      arch::keep_whole(v[r]);
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        const int s = 2 * r + half;
#pragma unroll
        for (int i = 0; i < Cfg::tiles_m; ++i)
#pragma unroll
          for (int j = 0; j < Cfg::tiles_n; ++j)
            block[i][j] = mfma::run(operand(v[r][i], half), operand(v[r][Cfg::tiles_m + j], half),
                                    (FirstInBlock && s == 0) ? accumulator{} : block[i][j]);
      }
    }
  }

  // Row (within the MFMA tile) of accumulator register r of this lane (docs/hardware.md 1.2).
  WAVEKIT_HOST_DEVICE static constexpr int acc_row(int lane, int r) {
    return m == 32 ? 8 * (r / 4) + 4 * (lane / 32) + r % 4 : 4 * (lane / 16) + r;
  }
  WAVEKIT_HOST_DEVICE static constexpr int acc_col(int lane) { return lane % m; }

  // This lane's per-row scales of a 128-K block: scale[i][r] for accumulator register r of
  // MFMA row tile i.
  struct row_scales {
    float v[Cfg::tiles_m][regs];
  };

  // Reads the lane's row scales from row_scale_lds (fp32, indexed by row within the block tile).
  // Issued before a step's MFMAs, they arrive while those run.
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE static row_scales read_scales(const float* row_scale_lds, int wave_row0,
                                                                   int lane) {
    row_scales s;
#pragma unroll
    for (int i = 0; i < Cfg::tiles_m; ++i)
#pragma unroll
      for (int g = 0; g < regs / 4; ++g) {  // 4 consecutive rows per 16-byte read
        const arch::u32x4 v = arch::lds_load<16>(row_scale_lds + wave_row0 + i * m + acc_row(lane, 4 * g));
#pragma unroll
        for (int t = 0; t < 4; ++t) s.v[i][4 * g + t] = __builtin_bit_cast(float, static_cast<std::uint32_t>(v[t]));
      }
    return s;
  }

  // total += scale(row) * block, at the end of a 128-K block: with the row scales as read (A's
  // times B's already), or times B's scale b_scale here.
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void apply_scales(const row_scales& s) {
    apply(s, [](float x) { return x; });
  }
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void apply_scales(const row_scales& s, float b_scale) {
    apply(s, [b_scale](float x) { return x * b_scale; });
  }

 private:
  template <class Scale>
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void apply(const row_scales& s, Scale scale) {
#pragma unroll
    for (int i = 0; i < Cfg::tiles_m; ++i)
#pragma unroll
      for (int j = 0; j < Cfg::tiles_n; ++j)
#pragma unroll
        // In pairs, one v_pk_fma_f32 each: written per element, LLVM 22 (the gfx950 path) makes one
        // v_fmac_f32 per element.
        for (int r = 0; r < regs; r += 2) {
          using f32x2 = float __attribute__((ext_vector_type(2)));
          const f32x2 sv = {scale(s.v[i][r]), scale(s.v[i][r + 1])}, bv = {block[i][j][r], block[i][j][r + 1]};
          const f32x2 t = __builtin_elementwise_fma(sv, bv, f32x2{total[i][j][r], total[i][j][r + 1]});
          total[i][j][r] = t.x, total[i][j][r + 1] = t.y;
        }
  }
};

}  // namespace wavekit::warp
