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
#include "wavekit/warp/mfma_op.hpp"

namespace wavekit::warp {

template <class Cfg, class Fp8>
struct wave_tile_fp8 {
  static constexpr int m = Cfg::mfma_m;                // MFMA tile is m x m
  static constexpr int slice = Cfg::block_k * m / 64;  // bytes of a row each lane reads per K step
  static constexpr int reads = slice / 16;             // 16-byte LDS reads per row fragment
  static constexpr int mfmas_per_step = slice / 8;     // MFMAs per tile per K step
  using mfma = mfma_op<Fp8, Fp8, m, m, Cfg::mfma_k>;
  using accumulator = typename mfma::accumulator;
  static constexpr int regs = m * m / 64;  // accumulator registers per lane
  using layout = tile::lds_tile_fp8<Cfg::block_k>;

  accumulator total[Cfg::tiles_m][Cfg::tiles_n];
  accumulator block[Cfg::tiles_m][Cfg::tiles_n];

  struct fragment {
    arch::u32x4 v[reads];
    WAVEKIT_DEVICE WAVEKIT_FORCEINLINE long operand(int s) const {  // bytes [8 s, 8 s + 8)
      const arch::u32x4& q = v[s / 2];
      const std::uint32_t lo = (s % 2) ? q[2] : q[0], hi = (s % 2) ? q[3] : q[1];
      return static_cast<long>((static_cast<std::uint64_t>(hi) << 32) | lo);
    }
  };

  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void clear() {
#pragma unroll
    for (int i = 0; i < Cfg::tiles_m; ++i)
#pragma unroll
      for (int j = 0; j < Cfg::tiles_n; ++j) total[i][j] = accumulator{};
  }

  // The fragment of rows [row0, row0 + m) of an LDS tile for this lane.
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE static fragment read(const unsigned char* lds, int row0, int lane) {
    fragment f;
    const int row = row0 + lane % m, k = (lane / m) * slice;
#pragma unroll
    for (int r = 0; r < reads; ++r) f.v[r] = arch::lds_load<16>(lds + layout::offset(row, k + 16 * r));
    return f;
  }

  // One K step: A rows from a_lds at wave_row0, B rows (= C columns) from b_lds at wave_col0.
  // FirstInBlock: this step starts a 128-K scale block (the block accumulators restart at 0,
  // as the C operand of the first MFMAs, at no cost).
  template <bool FirstInBlock>
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void step(const unsigned char* a_lds, const unsigned char* b_lds, int wave_row0,
                                               int wave_col0, int lane) {
    fragment a[Cfg::tiles_m], b[Cfg::tiles_n];
#pragma unroll
    for (int i = 0; i < Cfg::tiles_m; ++i) a[i] = read(a_lds, wave_row0 + i * m, lane);
#pragma unroll
    for (int j = 0; j < Cfg::tiles_n; ++j) b[j] = read(b_lds, wave_col0 + j * m, lane);
    // All reads are in flight before any is pinned whole, so waiting for one does not stall the rest.
#pragma unroll
    for (int i = 0; i < Cfg::tiles_m; ++i)
#pragma unroll
      for (int r = 0; r < reads; ++r) arch::keep_whole(a[i].v[r]);
#pragma unroll
    for (int j = 0; j < Cfg::tiles_n; ++j)
#pragma unroll
      for (int r = 0; r < reads; ++r) arch::keep_whole(b[j].v[r]);
#pragma unroll
    for (int s = 0; s < mfmas_per_step; ++s)
#pragma unroll
      for (int i = 0; i < Cfg::tiles_m; ++i)
#pragma unroll
        for (int j = 0; j < Cfg::tiles_n; ++j)
          block[i][j] =
              mfma::run(a[i].operand(s), b[j].operand(s), (FirstInBlock && s == 0) ? accumulator{} : block[i][j]);
  }

  // Row (within the MFMA tile) of accumulator register r of this lane (spec 1.4).
  WAVEKIT_HOST_DEVICE static constexpr int acc_row(int lane, int r) {
    return m == 32 ? 8 * (r / 4) + 4 * (lane / 32) + r % 4 : 4 * (lane / 16) + r;
  }
  WAVEKIT_HOST_DEVICE static constexpr int acc_col(int lane) { return lane % m; }

  // total += a_scale(row) * b_scale * block, at the end of a 128-K block. a_scale_lds holds the
  // block's per-row A scales (fp32, indexed by row within the block tile).
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void apply_scales(const float* a_scale_lds, int wave_row0, float b_scale,
                                                       int lane) {
#pragma unroll
    for (int i = 0; i < Cfg::tiles_m; ++i) {
      float sa[regs];
#pragma unroll
      for (int g = 0; g < regs / 4; ++g) {  // 4 consecutive rows per 16-byte read
        const arch::u32x4 v = arch::lds_load<16>(a_scale_lds + wave_row0 + i * m + acc_row(lane, 4 * g));
#pragma unroll
        for (int t = 0; t < 4; ++t) sa[4 * g + t] = __builtin_bit_cast(float, static_cast<std::uint32_t>(v[t]));
      }
#pragma unroll
      for (int j = 0; j < Cfg::tiles_n; ++j)
#pragma unroll
        for (int r = 0; r < regs; ++r) total[i][j][r] = __builtin_fmaf(sa[r] * b_scale, block[i][j][r], total[i][j][r]);
    }
  }
};

}  // namespace wavekit::warp
