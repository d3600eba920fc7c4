// The scale policy of fp32 scales applied after the K loop: per tensor, or per row of A and per
// column of B (the serving engines' scaled fp8 GEMM: C = (A x B^T) * a_scale(row) * b_scale(col)).
// The K loop is the unscaled one (scale_none's hooks); the epilogue transform multiplies each
// accumulator by its row's and column's scales, read once per lane after the loop (they take no
// registers during it).
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <cstdint>

#include "wavekit/arch/buffer.hpp"
#include "wavekit/block/gemm_epilogue.hpp"
#include "wavekit/block/scale_none.hpp"
#include "wavekit/block/tile_scheduler.hpp"
#include "wavekit/core/platform.hpp"
#include "wavekit/core/scale_granularity.hpp"

namespace wavekit::block {

struct epilogue_scale_args {
  const float* a_scale;  // 1 or M values
  const float* b_scale;  // 1 or N values
};

template <class Mma, int StepK, scale_granularity AScale, scale_granularity BScale>
struct scale_epilogue : scale_none<Mma, StepK> {
  using args = epilogue_scale_args;
  static constexpr int tiles_m = Mma::tiles_m, tiles_n = Mma::tiles_n, regs = Mma::regs;

  args scales;
  int m, n, row0, col0, lane;

  // GEMM `batch`'s scales: an operand's scales follow it (1 or M / N values a GEMM, one GEMM's after
  // another's), shared where the operand is (its batch stride 0).
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE static args at_batch(args s, long batch, const batch_args& b, int m_, int n_,
                                                          int) {
    if (b.a) s.a_scale += batch * (AScale == scale_granularity::tensor ? 1 : m_);
    if (b.b) s.b_scale += batch * (BScale == scale_granularity::tensor ? 1 : n_);
    return s;
  }

  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void begin(const args& p, int m_, int n_, int, const gemm_tile& t, float*, int,
                                                int wave_row, int wave_col, int lane_) {
    scales = p, m = m_, n = n_, row0 = t.m0 + wave_row, col0 = t.n0 + wave_col, lane = lane_;
  }

  // transform(i, j, r, v) = v * a_scale(row) * b_scale(col) for accumulator register r of tile (i, j).
  struct transform {
    float row[tiles_m][regs];
    float col[tiles_n];
    WAVEKIT_DEVICE WAVEKIT_FORCEINLINE float operator()(int i, int j, int r, float v) const {
      return v * row[i][r] * col[j];
    }
  };

  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE transform epilogue_transform() const {
    transform f;
    const arch::buffer a = arch::buffer::over(
        scales.a_scale, static_cast<std::uint32_t>((AScale == scale_granularity::tensor ? 1 : m) * 4));
    const arch::buffer b = arch::buffer::over(
        scales.b_scale, static_cast<std::uint32_t>((BScale == scale_granularity::tensor ? 1 : n) * 4));
    // Rows past M and columns past N read 0 (their results are not stored).
    auto scale_at = [](const arch::buffer& s, bool per_tensor, int index) {
      return __builtin_bit_cast(float, s.load4(per_tensor ? 0u : static_cast<std::uint32_t>(index) * 4));
    };
    // A per-tensor scale is read once per lane, not once per register: at decode sizes those
    // reads would otherwise rival A's bytes.
    constexpr bool a_tensor = AScale == scale_granularity::tensor, b_tensor = BScale == scale_granularity::tensor;
    const float a_once = a_tensor ? scale_at(a, true, 0) : 0.0f, b_once = b_tensor ? scale_at(b, true, 0) : 0.0f;
#pragma unroll
    for (int i = 0; i < tiles_m; ++i)
#pragma unroll
      for (int r = 0; r < regs; ++r)
        f.row[i][r] = a_tensor ? a_once : scale_at(a, false, row0 + i * Mma::tile_m + Mma::acc_row(lane, r));
#pragma unroll
    for (int j = 0; j < tiles_n; ++j)
      f.col[j] = b_tensor ? b_once : scale_at(b, false, col0 + j * Mma::m + Mma::acc_col(lane));
    return f;
  }
};

}  // namespace wavekit::block
