// The policy of a gated linear unit's second half: C = SiLU(gate) * (A x B^T), gate a tensor of
// C's shape that an earlier GEMM wrote (MoE's stage 1: gate = x W_gate, then this GEMM computes
// x W_up and gates it in its epilogue, so only the gated product is stored). SiLU(g) * up is
// core/silu.hpp's, in fp32 from the stored gate: the definition the SwiGLU kernel
// (ops/swiglu_quant) uses too.
//
// A decorator over the K loop's own policy (scale_none for bf16 / fp16 operands,
// scale_group_promotion for block-scaled fp8): its hooks run the K loop, its value transform comes
// first, and the gate multiplies what it gives. The transform reads each output's gate value,
// coalesced along the row like C's stores.
#pragma once

#include <cstdint>

#include "wavekit/arch/buffer.hpp"
#include "wavekit/block/tile_scheduler.hpp"
#include "wavekit/core/half_convert.hpp"
#include "wavekit/core/platform.hpp"
#include "wavekit/core/silu.hpp"

namespace wavekit::block {

template <class Scales, class Gate>
struct gate_args {
  Scales scales;     // the K loop policy's own arguments
  const Gate* gate;  // [M][N], C's shape
};

template <class Policy, class Gate>
struct gate_silu : Policy {
  static_assert(is_half_or_float_v<Gate>, "gate_silu: the gate is fp32, bf16 or fp16");
  using args = gate_args<typename Policy::args, Gate>;
  using mma = typename Policy::mma_type;

  const Gate* gate;
  int m, n, row0, col0, lane;

  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void begin(const args& a, int m_, int n_, int k, const gemm_tile& t, float* lds,
                                                int tid, int wave_row, int wave_col, int lane_) {
    Policy::begin(a.scales, m_, n_, k, t, lds, tid, wave_row, wave_col, lane_);
    gate = a.gate, m = m_, n = n_, row0 = t.m0 + wave_row, col0 = t.n0 + wave_col, lane = lane_;
  }

  template <class Inner>
  struct transform {
    Inner inner;
    arch::buffer g;
    int n, row0, col0, lane;
    WAVEKIT_DEVICE WAVEKIT_FORCEINLINE float operator()(int i, int j, int r, float v) const {
      const int row = row0 + i * mma::m + mma::acc_row(lane, r), col = col0 + j * mma::m + mma::acc_col(lane);
      const std::uint32_t at = static_cast<std::uint32_t>(row * n + col);  // past the end: 0, not stored
      float x;
      if constexpr (sizeof(Gate) == 4)
        x = __builtin_bit_cast(float, g.load4(at * 4));
      else
        x = widen_to_float(Gate::from_bits(g.load2(at * 2)));
      return silu_times(x, inner(i, j, r, v));
    }
  };

  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE auto epilogue_transform() const {
    const std::uint32_t outputs = static_cast<std::uint32_t>(m) * static_cast<std::uint32_t>(n);
    using inner = decltype(Policy::epilogue_transform());
    return transform<inner>{
        Policy::epilogue_transform(), arch::buffer::over(gate, outputs * sizeof(Gate)), n, row0, col0, lane};
  }
};

}  // namespace wavekit::block
