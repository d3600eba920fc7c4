// GEMM epilogues: what happens to a block's accumulators after its K loop, and what every epilogue
// shares: its arguments' C and split-K partials, the walk over a wave's outputs, where a block
// epilogue's waves meet. A value transform from the scale policy (identity by default) sees each
// accumulator first, which is where per-row / per-column / per-tensor scales apply (a scaling:
// applied to each split's partials, it commutes with their sum). The epilogues themselves:
// block/epilogue_fused.hpp (the plain store, epilogue_store, and its fusions: D inputs, an
// activation, C's conversion) and block/gate_up_pair.hpp (SiLU(gate) * up across a pair block).
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <cstdint>
#include <type_traits>

#include "wavekit/arch/buffer.hpp"
#include "wavekit/core/float_codec.hpp"
#include "wavekit/core/gemm_view.hpp"
#include "wavekit/core/half_convert.hpp"
#include "wavekit/core/numeric_types.hpp"
#include "wavekit/core/platform.hpp"

namespace wavekit::block {

// C (rows ldc elements apart; a batched GEMM's C batches apart, block/gemm_block.hpp) and, for
// split-K, the fp32 partials: [split][C's extent] (C's own layout, a split's after another's; packed
// C: [split][M][N]). The GEMM block hands its epilogue these moved to its batch and split
// (place_outputs), so an epilogue addresses its outputs at row * ldc + col in both.
template <class Out>
struct epilogue_args {
  Out* c;           // written when partials is null
  float* partials;  // for split-K
  int ldc = 0;      // elements between C's rows; 0: N (packed)
};

// The arguments of a block's outputs: C and the partials moved by c_offset elements (the block's
// batch), the partials also by split_offset (its split's). The pointers move in 64 bits.
template <class Args>
WAVEKIT_DEVICE WAVEKIT_FORCEINLINE Args place_outputs(Args out, long c_offset, long split_offset) {
  out.c += c_offset;
  if (out.partials) out.partials += split_offset + c_offset;
  return out;
}

// transform(i, j, r, v): accumulator register r of MFMA tile (i, j) of the wave, value v.
struct identity_transform {
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE float operator()(int, int, int, float v) const { return v; }
};

// An epilogue: its argument type, and store<Mma>(args, m, n, acc, row0, col0, lane, transform)
// (gemm_block checks the first where it takes one; the call itself is checked by the compiler).
template <class E>
concept gemm_epilogue = requires { typename E::args; };

// Where a wave's tile sits in its block, for an epilogue whose waves exchange values through LDS
// (a block epilogue: store<Cfg, Mma>(args, m, n, acc, tile, place, transform), every wave of the
// block calling it; lds is the mainloop's, whose tiles nobody reads any more once every wave is past
// a barrier).
struct wave_place {
  unsigned char* lds;
  int wave_row, wave_col, lane;
};
template <class E>
concept block_epilogue = gemm_epilogue<E> && E::exchanges_between_waves;

// f(i, j, r, at) for each accumulator register r of the wave's MFMA tiles (i, j) at (row0, col0):
// at is its output's index row * ldc + col, or out_of_range / 4 (past the m x n output: stores drop it).
template <class Mma, class F>
WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void for_each_output(int m, int n, int ldc, int row0, int col0, int lane, F&& f) {
#pragma unroll
  for (int i = 0; i < Mma::tiles_m; ++i)
#pragma unroll
    for (int j = 0; j < Mma::tiles_n; ++j)
#pragma unroll
      for (int r = 0; r < Mma::regs; ++r) {
        const int row = row0 + i * Mma::tile_m + Mma::acc_row(lane, r);
        const int col = col0 + j * Mma::m + Mma::acc_col(lane);
        f(i, j, r, row < m && col < n ? static_cast<std::uint32_t>(row * ldc + col) : arch::out_of_range / 4);
      }
}

// Where a C value goes: C (bf16, fp16 or fp32) or, with split-K, the split's fp32 partials (p placed
// at the block's batch and split: place_outputs).
template <class Out>
struct output_buffers {
  static_assert(std::is_same_v<Out, bf16> || std::is_same_v<Out, fp16> || std::is_same_v<Out, float>,
                "epilogue: C is bf16, fp16 or fp32");
  arch::buffer c, partials;
  bool to_partials;

  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE output_buffers(const epilogue_args<Out>& p, int m, int n, int ldc) {
    const auto outputs = static_cast<std::uint32_t>(view_extent(m, n, ldc));
    c = arch::buffer::over(p.c, outputs * sizeof(Out));
    partials = arch::buffer::over(p.partials, outputs * 4);
    to_partials = p.partials != nullptr;
  }
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void store(std::uint32_t at, float out) const {
    if (to_partials)  // the transforms are scalings: applied per split, summed after
      partials.store4(__builtin_bit_cast(std::uint32_t, out), at * 4);
    else if constexpr (std::is_same_v<Out, float>)
      c.store4(__builtin_bit_cast(std::uint32_t, out), at * 4);
    else  // round to nearest even; beyond fp16's range, +-Inf (IEEE)
      c.store2(static_cast<std::uint16_t>(half_bits_rne<Out>(out)), at * 2);
  }
};

}  // namespace wavekit::block
