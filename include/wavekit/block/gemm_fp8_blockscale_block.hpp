// The work of one block of the block-scaled fp8 GEMM: a BlockM x BlockN tile of C over one
// split's range of 128-K blocks.
//
// Pipeline: LDS double buffering with one barrier per K step. While the waves run the MFMAs of
// step s on buffer s % 2, the threads' global loads for step s + 1 are in flight; after the MFMAs
// they store them into buffer (s + 1) % 2, and a barrier separates the steps. Each 128-K block
// accumulates unscaled (wave_tile_fp8::block) and is folded into the total with its scales when
// it ends. The per-row A scales of a block ride along in LDS; B's scale is one value per wave.
#pragma once

#include <hip/hip_runtime.h>

#include <cstdint>
#include <type_traits>

#include "wavekit/arch/buffer.hpp"
#include "wavekit/arch/lds.hpp"
#include "wavekit/core/float_codec.hpp"
#include "wavekit/core/layout.hpp"
#include "wavekit/core/math.hpp"
#include "wavekit/core/numeric_types.hpp"
#include "wavekit/tile/tile_loader_fp8.hpp"
#include "wavekit/warp/wave_tile_fp8.hpp"

namespace wavekit::block {

template <class Fp8>
struct blockscale_params {
  const Fp8* a;
  const Fp8* b;
  const float* a_scale;
  const float* b_scale;
  bf16* c;          // written when partials is null
  float* partials;  // [split][M][N] fp32, for split-K
  int m, n, k;
  int k_blocks_per_split;  // 128-K scale blocks per split
};

template <class Cfg, class Fp8, layout Order>
struct gemm_fp8_blockscale_block {
  static constexpr int bk = Cfg::block_k, kps = Cfg::k_steps_per_scale;
  using wave_tile = warp::wave_tile_fp8<Cfg, Fp8>;
  template <int Rows>
  using loader =
      std::conditional_t<Order == layout::k_contiguous, tile::tile_loader_k_contiguous<Rows, bk, Cfg::threads>,
                         tile::tile_loader_mn_contiguous<Rows, bk, Cfg::threads>>;
  static constexpr int a_tile_bytes = Cfg::block_m * bk, tile_bytes = Cfg::lds_tile_bytes;

  // lds: Cfg::lds_bytes, 16-byte aligned.
  WAVEKIT_DEVICE static void run(const blockscale_params<Fp8>& p, unsigned char* lds) {
    const int tid = static_cast<int>(threadIdx.x), lane = tid % 64, wave = tid / 64;
    const int wave_row = (wave / Cfg::waves_n) * Cfg::wave_m, wave_col = (wave % Cfg::waves_n) * Cfg::wave_n;
    const int row0 = static_cast<int>(blockIdx.y) * Cfg::block_m, col0 = static_cast<int>(blockIdx.x) * Cfg::block_n;
    const int k_blocks = p.k / 128, n_blocks = (p.n + 127) / 128;
    const int kb_begin = static_cast<int>(blockIdx.z) * p.k_blocks_per_split;
    const int kb_end = kb_begin + p.k_blocks_per_split < k_blocks ? kb_begin + p.k_blocks_per_split : k_blocks;
    const int steps = (kb_end - kb_begin) * kps;
    constexpr bool kc = Order == layout::k_contiguous;
    const arch::buffer a_src =
        arch::buffer::over(p.a, static_cast<std::uint32_t>(p.m) * static_cast<std::uint32_t>(p.k));
    const arch::buffer b_src =
        arch::buffer::over(p.b, static_cast<std::uint32_t>(p.n) * static_cast<std::uint32_t>(p.k));
    const int a_ld = kc ? p.k : p.m, b_ld = kc ? p.k : p.n;
    float* scale_lds = reinterpret_cast<float*>(lds + 2 * tile_bytes);  // [2][BlockM]

    // One thread per row brings the A scale of a 128-K block (0 past M). Branch-free: threads
    // beyond the block's rows read a valid row and do not store.
    const int scale_row = row0 + tid % Cfg::block_m;
    const bool scale_row_valid = scale_row < p.m;
    const int scale_row_read = scale_row_valid ? scale_row : p.m - 1;
    const arch::buffer a_scales = arch::buffer::over(p.a_scale, static_cast<std::uint32_t>(p.m * k_blocks * 4));
    const arch::buffer b_scales = arch::buffer::over(p.b_scale, static_cast<std::uint32_t>(n_blocks * k_blocks * 4));
    auto a_scale_of = [&](int kb) -> float {
      const int at = kc ? scale_row_read * k_blocks + kb : kb * p.m + scale_row_read;
      const float v = __builtin_bit_cast(float, a_scales.load4(static_cast<std::uint32_t>(at) * 4));
      return scale_row_valid ? v : 0.0f;
    };
    auto store_a_scale = [&](int kb, float v) {
      const unsigned parity = static_cast<unsigned>(kb - kb_begin) & 1u;
      arch::lds_store<4>(scale_lds + parity * Cfg::block_m + tid % Cfg::block_m, __builtin_bit_cast(std::uint32_t, v),
                         tid < Cfg::block_m);
    };
    auto b_scale_of = [&](int kb) -> float {  // 0 for a wave whose columns all lie past N
      const int nb = (col0 + wave_col) / 128;
      if (nb >= n_blocks) return 0.0f;
      const int at = kc ? nb * k_blocks + kb : kb * n_blocks + nb;
      return __builtin_bit_cast(float, b_scales.load4(static_cast<std::uint32_t>(at) * 4));
    };

    loader<Cfg::block_m> a_load;
    loader<Cfg::block_n> b_load;
    wave_tile w;
    w.clear();
    // B's share of the copy starts where A's ends, so that threads (whole waves, where the tiles
    // divide evenly) are either busy with one of them or idle, rather than all partly busy.
    const int b_tid = (tid + loader<Cfg::block_m>::per_thread_work) % Cfg::threads;
    a_load.locate(row0, p.m, a_ld, tid);
    b_load.locate(col0, p.n, b_ld, b_tid);
    if (steps > 0) {
      a_load.load(a_src, a_ld, kb_begin * 128);
      b_load.load(b_src, b_ld, kb_begin * 128);
      store_a_scale(kb_begin, a_scale_of(kb_begin));
      a_load.store(lds, tid);
      b_load.store(lds + a_tile_bytes, b_tid);
      __syncthreads();
    }
    // One iteration per 128-K scale block; its kps K steps are unrolled, so which step starts and
    // which ends the block is known at compile time. The last block is peeled off: it loads
    // nothing ahead, so the loop over the others carries no conditions.
    auto scale_block = [&]<bool Last>(int kb) {
      const float b_scale = b_scale_of(kb);
      float next_a_scale = 0.0f;
      static_for<kps>([&](auto s_constant) {
        constexpr int s = decltype(s_constant)::value;
        const int step = (kb - kb_begin) * kps + s;
        const bool more = !Last || s + 1 < kps;
        // Buffer of this step: with two steps per scale block it is s itself.
        const unsigned parity = kps % 2 == 0 ? static_cast<unsigned>(s) & 1u : static_cast<unsigned>(step) & 1u;
        unsigned char* cur = lds + parity * tile_bytes;
        unsigned char* next = lds + (parity ^ 1u) * tile_bytes;
        if (more) {
          const int k_next = kb_begin * 128 + (step + 1) * bk;
          a_load.load(a_src, a_ld, k_next);
          b_load.load(b_src, b_ld, k_next);
          if (s == kps - 1) next_a_scale = a_scale_of(kb + 1);
        }
        w.template step<s == 0>(cur, cur + a_tile_bytes, wave_row, wave_col, lane);
        if (s == kps - 1)
          w.apply_scales(scale_lds + (static_cast<unsigned>(kb - kb_begin) & 1u) * Cfg::block_m, wave_row, b_scale,
                         lane);
        if (more) {
          a_load.store(next, tid);
          b_load.store(next + a_tile_bytes, b_tid);
          if (s == kps - 1) store_a_scale(kb + 1, next_a_scale);
          __syncthreads();
        }
      });
    };
    if (kb_end > kb_begin) {
      for (int kb = kb_begin; kb < kb_end - 1; ++kb) scale_block.template operator()<false>(kb);
      scale_block.template operator()<true>(kb_end - 1);
    }
    store(p, w, row0 + wave_row, col0 + wave_col, lane);
  }

  // bf16 into C, or fp32 into this split's partials.
  WAVEKIT_DEVICE static void store(const blockscale_params<Fp8>& p, const wave_tile& w, int row0, int col0, int lane) {
    const int split = static_cast<int>(blockIdx.z);
    const std::uint32_t outputs = static_cast<std::uint32_t>(p.m) * static_cast<std::uint32_t>(p.n);
    const arch::buffer c = arch::buffer::over(p.c, outputs * 2);
    const arch::buffer partials = arch::buffer::over(p.partials + static_cast<long>(split) * outputs, outputs * 4);
#pragma unroll
    for (int i = 0; i < Cfg::tiles_m; ++i)
#pragma unroll
      for (int j = 0; j < Cfg::tiles_n; ++j)
#pragma unroll
        for (int r = 0; r < wave_tile::regs; ++r) {
          const int row = row0 + i * Cfg::mfma_m + wave_tile::acc_row(lane, r);
          const int col = col0 + j * Cfg::mfma_m + wave_tile::acc_col(lane);
          const std::uint32_t at =
              row < p.m && col < p.n ? static_cast<std::uint32_t>(row * p.n + col) : arch::out_of_range / 4;
          // A copy first: __builtin_bit_cast of a vector-element lvalue reads element 0 (clang).
          const float v = w.total[i][j][r];
          if (p.partials)
            partials.store4(__builtin_bit_cast(std::uint32_t, v), at * 4);
          else
            c.store2(static_cast<std::uint16_t>(bf16_bits_rne(v)), at * 2);
        }
  }
};

}  // namespace wavekit::block
