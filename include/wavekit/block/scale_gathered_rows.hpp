// The scale policy of a per-row fp32 factor looked up through an index table, applied after the
// K loop: C row r is multiplied by scale[index[r]], and by 0 where index[r] is -1. MoE's down
// projection uses it for the routing weights: its rows are sorted slots (index = the slot of each
// row, -1 for padding rows) and a slot's weight is the router's. The K loop is the unscaled one
// (scale_none's hooks); each lane reads its rows' factors once, after the loop.
#pragma once

#include <cstdint>

#include "wavekit/arch/buffer.hpp"
#include "wavekit/block/scale_none.hpp"
#include "wavekit/block/tile_scheduler.hpp"
#include "wavekit/core/platform.hpp"

namespace wavekit::block {

struct gathered_row_scale_args {
  const float* scale;  // [scales]
  const int* index;    // [M]: the scale of each row, -1: the row is 0
  int scales;          // entries of scale
};

template <class Mma, int StepK>
struct scale_gathered_rows : scale_none<Mma, StepK> {
  using args = gathered_row_scale_args;
  static constexpr int tiles_m = Mma::tiles_m, regs = Mma::regs;

  args p;
  int m, row0, lane;

  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void begin(const args& a, int m_, int, int, const gemm_tile& t, float*, int,
                                                int wave_row, int, int lane_) {
    p = a, m = m_, row0 = t.m0 + wave_row, lane = lane_;
  }

  struct transform {
    float row[tiles_m][regs];
    WAVEKIT_DEVICE WAVEKIT_FORCEINLINE float operator()(int i, int, int r, float v) const { return v * row[i][r]; }
  };

  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE transform epilogue_transform() const {
    transform f;
    const arch::buffer index = arch::buffer::over(p.index, static_cast<std::uint32_t>(m) * 4);
    const arch::buffer scale = arch::buffer::over(p.scale, static_cast<std::uint32_t>(p.scales) * 4);
#pragma unroll
    for (int i = 0; i < tiles_m; ++i)
#pragma unroll
      for (int r = 0; r < regs; ++r) {
        // Rows past M read index 0 through the range check; their results are not stored.
        const int at =
            static_cast<int>(index.load4(static_cast<std::uint32_t>(row0 + i * Mma::m + Mma::acc_row(lane, r)) * 4));
        f.row[i][r] =
            __builtin_bit_cast(float, scale.load4(at >= 0 ? static_cast<std::uint32_t>(at) * 4 : arch::out_of_range));
      }
    return f;
  }
};

}  // namespace wavekit::block
