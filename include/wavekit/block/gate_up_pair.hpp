// A gated linear unit's first projection in one pass: C = SiLU(A x Gate^T) * (A x Up^T), both
// products accumulated in fp32 by one block over the same A tiles, and SiLU(g) * u formed from the
// fp32 accumulators and rounded once, to C's type (MoE's stage 1; the references round there:
// docs/moe.md). Nothing rounds the gate on its own.
//
// How the block is cut: its B tile is a pair (tile/tile_loader_pair.hpp): BlockN / 2 rows of Gate,
// then the same BlockN / 2 rows of Up, so the N tile of the pair GEMM (N = 2 x the tensors' rows)
// covers BlockN / 2 output columns. The waves split the block as in any GEMM; the waves whose
// columns lie in the first half hold gate accumulators, the others the up accumulators of the same
// output columns (WavesN even). Each half is its own GEMM as far as the K loop's scale policy can
// tell: gate_up_halves gives a wave's policy its half's arguments (B's scales: gate's or up's),
// the tile and the wave's column within its half, its thread index among the half's threads and an
// LDS region of its own, so a policy written for one GEMM (scale_none, scale_group_promotion,
// scale_in_instruction) runs unchanged on each half (instantiated with gate_up_half_shape<Cfg>).
//
// The epilogue (epilogue_gate_up) meets the halves in LDS: after the K loop the gate waves write
// their fp32 results (after the policy's transform) to LDS, a barrier, and each up wave reads its
// partner's values for the same registers, forms the gated value (core/activation.hpp: SiLU(g) * u
// or gpt-oss's clamped SwiGLU) and stores C. The
// exchange is [wave pair][register][lane] words: every access is 64 consecutive words (no bank
// conflicts); it reuses the mainloop's LDS (BlockM x BlockN / 2 x 4 bytes must fit in it).
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <cstdint>
#include <type_traits>

#include "wavekit/arch/buffer.hpp"
#include "wavekit/arch/device_math.hpp"
#include "wavekit/arch/lds.hpp"
#include "wavekit/block/gemm_epilogue.hpp"
#include "wavekit/block/gemm_tile_shape.hpp"
#include "wavekit/block/tile_scheduler.hpp"
#include "wavekit/core/activation.hpp"
#include "wavekit/core/platform.hpp"
#include "wavekit/core/silu.hpp"

namespace wavekit::block {

// The shape one half of a pair block is to its policy: half the columns, half the waves along N.
template <class Cfg>
struct gate_up_half_shape : gemm_tile_shape<Cfg::block_m, Cfg::block_n / 2, Cfg::block_k, Cfg::waves_m,
                                            Cfg::waves_n / 2, Cfg::mfma_m, Cfg::stages> {
  static_assert(Cfg::waves_n % 2 == 0, "gate_up_pair: an even number of waves along N (a gate and an up half)");
};

template <class Args>
struct gate_up_args {
  Args gate, up;  // the K loop policy's arguments for each half (B's scales differ; A's are the same)
};

template <class Policy, class Cfg>
struct gate_up_halves : Policy {
  using args = gate_up_args<typename Policy::args>;
  static constexpr int half_n = Cfg::block_n / 2, half_waves_n = Cfg::waves_n / 2;
  static constexpr int lds_bytes = 2 * Policy::lds_bytes;  // a region per half
  static_assert(Policy::lds_bytes % 16 == 0, "gate_up_halves: each half's LDS region stays 16-byte aligned");

  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void begin(const args& a, int m, int n, int k, const gemm_tile& t, float* lds,
                                                int tid, int wave_row, int wave_col, int lane) {
    const bool up = wave_col >= half_n;  // the same in every lane of the wave
    // The wave's index among its half's waves, in the half's own row-major order.
    const int wave = tid / 64, half_wave = (wave / Cfg::waves_n) * half_waves_n + wave % Cfg::waves_n % half_waves_n;
    gemm_tile half = t;
    half.n0 = t.n0 / 2;
    Policy::begin(up ? a.up : a.gate, m, n / 2, k, half, lds + (up ? Policy::lds_bytes / 4 : 0), half_wave * 64 + lane,
                  wave_row, up ? wave_col - half_n : wave_col, lane);
  }
};

// The arguments of a gated epilogue whose form has parameters (gate_swiglu_clamped's alpha, limit).
template <class Out, class Gate>
struct gated_args : epilogue_args<Out> {
  Gate gate;
};

// C = gate(G, U) from a pair block's two halves (core/activation.hpp's gated forms: SiLU(G) * U by
// default), stored as Out (bf16, fp16 or fp32). No split-K (the gate's nonlinearity does not commute
// with a sum of partials).
template <class Out, class Gate = gate_silu>
struct epilogue_gate_up {
  using args = std::conditional_t<std::is_empty_v<Gate>, epilogue_args<Out>, gated_args<Out, Gate>>;
  static constexpr bool exchanges_between_waves = true;

  // The LDS the exchange takes (gemm_block checks it fits in the mainloop's).
  template <class Cfg, class Mma>
  static constexpr int lds_bytes = Cfg::waves / 2 * Mma::tiles_m * Mma::tiles_n * Mma::regs * 64 * 4;

  template <class Cfg, class Mma, class Acc, class Transform>
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE static void store(const args& p, int m, int n,
                                                       const Acc (&acc)[Mma::tiles_m][Mma::tiles_n], const gemm_tile& t,
                                                       const wave_place& at, Transform transform) {
    constexpr int half_n = Cfg::block_n / 2, half_waves_n = Cfg::waves_n / 2;
    constexpr int words = Mma::tiles_m * Mma::tiles_n * Mma::regs * 64;  // one wave's results
    const bool up = at.wave_col >= half_n;
    const int column = up ? at.wave_col - half_n : at.wave_col;  // within the half
    const int pair = (at.wave_row / Cfg::wave_m) * half_waves_n + column / Cfg::wave_n;
    float* exchange = reinterpret_cast<float*>(at.lds) + pair * words;
    auto slot = [&](int i, int j, int r) { return exchange + ((i * Mma::tiles_n + j) * Mma::regs + r) * 64 + at.lane; };
    __syncthreads();  // every wave is done reading the K loop's tiles
    if (!up) {
#pragma unroll
      for (int i = 0; i < Mma::tiles_m; ++i)
#pragma unroll
        for (int j = 0; j < Mma::tiles_n; ++j)
#pragma unroll
          for (int r = 0; r < Mma::regs; ++r) {
            const float v = acc[i][j][r];  // a copy: see epilogue_fused::store
            arch::lds_store<4>(slot(i, j, r), __builtin_bit_cast(std::uint32_t, transform(i, j, r, v)));
          }
    }
    __syncthreads();
    if (up) {
      const output_buffers<Out> out(p, m, n / 2, n / 2);  // packed: MoE's hidden rows
      for_each_output<Mma>(m, n / 2, n / 2, t.m0 + at.wave_row, t.n0 / 2 + column, at.lane,
                           [&](int i, int j, int r, std::uint32_t o) {
                             const float v = acc[i][j][r];
                             const float gate = __builtin_bit_cast(float, arch::lds_load<4>(slot(i, j, r)));
                             out.store(o, gate_of(p)(gate, transform(i, j, r, v), arch::device_exp{}));
                           });
    }
  }

 private:
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE static Gate gate_of(const args& p) {
    if constexpr (std::is_empty_v<Gate>)
      return Gate{};
    else
      return p.gate;
  }
};

}  // namespace wavekit::block
