// The policy of a per-row fp32 factor looked up through an index table, applied after the K loop:
// C row r is multiplied by scale[index[r]], and by 0 where index[r] is -1. MoE's down projection
// uses it for the routing weights: its rows are sorted slots (index = the slot of each row, -1 for
// padding rows) and a slot's weight is the router's.
//
// A decorator over the K loop's own policy (scale_none, scale_group_promotion, ...): its hooks run
// the K loop, its value transform comes first and the row's factor multiplies what it gives. The
// factors are read once per row, after the loop.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <cstdint>

#include "wavekit/arch/buffer.hpp"
#include "wavekit/block/tile_scheduler.hpp"
#include "wavekit/core/platform.hpp"

namespace wavekit::block {

template <class Scales>
struct gathered_row_scale_args {
  Scales scales;       // the K loop policy's own arguments
  const float* scale;  // [count]
  const int* index;    // [M]: the scale of each row, -1: the row is 0
  int count;           // entries of scale
};

template <class Policy>
struct scale_gathered_rows : Policy {
  using args = gathered_row_scale_args<typename Policy::args>;
  using mma = typename Policy::mma_type;
  static constexpr int tiles_m = mma::tiles_m, regs = mma::regs;
  static_assert(mma::tile_m == mma::m, "scale_gathered_rows: square MFMA tiles (not a row-pair atom's 8 x 16)");

  const float* scale;
  const int* index;
  int count, m, row0, lane;

  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void begin(const args& a, int m_, int n, int k, const gemm_tile& t, float* lds,
                                                int tid, int wave_row, int wave_col, int lane_) {
    Policy::begin(a.scales, m_, n, k, t, lds, tid, wave_row, wave_col, lane_);
    scale = a.scale, index = a.index, count = a.count, m = m_, row0 = t.m0 + wave_row, lane = lane_;
  }

  template <class Inner>
  struct transform {
    Inner inner;
    float row[tiles_m][regs];
    WAVEKIT_DEVICE WAVEKIT_FORCEINLINE float operator()(int i, int j, int r, float v) const {
      return inner(i, j, r, v) * row[i][r];
    }
  };

  // Many lanes hold accumulators of one row. Lanes 0..m-1 load the factors of an MFMA row tile's
  // m rows (one coalesced load each of index and factor, no lane reading an address another does),
  // and every lane takes its rows' factors from them by a shuffle.
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE auto epilogue_transform() const {
    transform<decltype(Policy::epilogue_transform())> f{Policy::epilogue_transform(), {}};
    const arch::buffer rows = arch::buffer::over(index, static_cast<std::uint32_t>(m) * 4);
    const arch::buffer factors = arch::buffer::over(scale, static_cast<std::uint32_t>(count) * 4);
#pragma unroll
    for (int i = 0; i < tiles_m; ++i) {
      // Rows past M read index 0 through the range check; their results are not stored.
      const int at =
          lane < mma::m ? static_cast<int>(rows.load4(static_cast<std::uint32_t>(row0 + i * mma::m + lane) * 4)) : -1;
      const float factor =
          __builtin_bit_cast(float, factors.load4(at >= 0 ? static_cast<std::uint32_t>(at) * 4 : arch::out_of_range));
#pragma unroll
      for (int r = 0; r < regs; ++r) f.row[i][r] = __shfl(factor, mma::acc_row(lane, r));
    }
    return f;
  }
};

}  // namespace wavekit::block
