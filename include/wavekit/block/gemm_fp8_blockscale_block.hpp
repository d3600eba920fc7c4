// The work of one block of the block-scaled fp8 GEMM: a BlockM x BlockN tile of C over one
// split's range of 128-K blocks.
//
// Pipeline, two LDS stages (Cfg::stages == 2): double buffering with one barrier per K step.
// While the waves run the MFMAs of step s on buffer s % 2, the threads' global loads for step
// s + 1 are in flight; after the MFMAs they store them into buffer (s + 1) % 2, and a barrier
// separates the steps. One stage: the same, with one buffer, so a second barrier (after the
// MFMAs, before the stores) keeps the stores off tiles still being read; the loads still overlap
// the MFMAs, in registers. Each 128-K block accumulates unscaled (wave_tile_fp8::block) and is
// folded into the total with its scales when it ends. The per-row scales of a block ride along
// in LDS.
#pragma once

#include <hip/hip_runtime.h>

#include <cstdint>
#include <type_traits>

#include "wavekit/arch/buffer.hpp"
#include "wavekit/arch/lds.hpp"
#include "wavekit/arch/schedule.hpp"
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
  template <int Rows>
  using loader =
      std::conditional_t<Order == layout::k_contiguous, tile::tile_loader_k_contiguous<Rows, bk, Cfg::threads>,
                         tile::tile_loader_mn_contiguous<Rows, bk, Cfg::threads>>;
  static_assert(tile::tile_loader<loader<Cfg::block_m>> && tile::tile_loader<loader<Cfg::block_n>>,
                "gemm_fp8_blockscale_block: its loaders must model tile::tile_loader");
  using wave_tile =
      warp::wave_tile_fp8<Cfg, Fp8, typename loader<Cfg::block_m>::layout, typename loader<Cfg::block_n>::layout>;
  static constexpr int a_tile_bytes = Cfg::block_m * bk, tile_bytes = Cfg::lds_tile_bytes;

  // lds: Cfg::lds_bytes, 16-byte aligned.
  WAVEKIT_DEVICE static void run(const blockscale_params<Fp8>& p, unsigned char* lds) {
    // The wave index is the same in all its lanes; readfirstlane tells the compiler so (scalar
    // registers and branches for everything derived from it).
    const int tid = static_cast<int>(threadIdx.x), lane = tid % 64, wave = __builtin_amdgcn_readfirstlane(tid / 64);
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
    constexpr int scale_stride = Cfg::scale_slots;
    float* scale_lds = reinterpret_cast<float*>(lds + Cfg::stages * tile_bytes);  // [Cfg::scale_buffers][scale_slots]

    // One thread per row brings the A scale of a 128-K block (0 past M: the row's offset is out
    // of range); threads beyond the block's rows repeat a row, into slots nobody reads. Where the
    // block's columns lie in one 128-column scale block (BlockN <= 128), the thread stores the
    // row's product with B's scale, so the waves' scale step is one FMA per accumulator.
    const int scale_row = row0 + tid % Cfg::block_m;
    const std::uint32_t scale_row_at =
        scale_row < p.m ? static_cast<std::uint32_t>(scale_row * (kc ? k_blocks : 1) * 4) : arch::out_of_range;
    const arch::buffer a_scales = arch::buffer::over(p.a_scale, static_cast<std::uint32_t>(p.m * k_blocks * 4));
    const arch::buffer b_scales = arch::buffer::over(p.b_scale, static_cast<std::uint32_t>(n_blocks * k_blocks * 4));
    auto a_scale_of = [&](int kb) -> float {
      return __builtin_bit_cast(float,
                                a_scales.load4(scale_row_at, static_cast<std::uint32_t>(kb * (kc ? 1 : p.m) * 4)));
    };
    // A row's scale: A's, and B's to fold in (1 when B's is applied by the waves). Loaded early,
    // multiplied where it is stored, after the wait for the step's loads.
    struct row_scale_parts {
      float a = 0.0f, b = 1.0f;
    };
    // Threads past the block's rows store into slots of their own that nothing reads: cheaper
    // than masking the store off.
    auto store_row_scale = [&](int buffer, row_scale_parts parts) {
      const float v = parts.a * parts.b;
      arch::lds_store<4>(scale_lds + buffer * scale_stride + tid, __builtin_bit_cast(std::uint32_t, v));
    };
    constexpr bool combined = Cfg::block_n <= 128;
    const int b_scale_col = (col0 + wave_col) / 128;  // 0 for a wave whose columns all lie past N
    const std::uint32_t b_scale_at =
        b_scale_col < n_blocks ? static_cast<std::uint32_t>(b_scale_col * (kc ? k_blocks : 1) * 4) : arch::out_of_range;
    auto b_scale_of = [&](int kb) -> float {
      return __builtin_bit_cast(float,
                                b_scales.load4(b_scale_at, static_cast<std::uint32_t>(kb * (kc ? 1 : n_blocks) * 4)));
    };
    auto row_scale_of = [&](int kb) { return row_scale_parts{a_scale_of(kb), combined ? b_scale_of(kb) : 1.0f}; };

    loader<Cfg::block_m> a_load;
    loader<Cfg::block_n> b_load;
    wave_tile w;
    w.clear();
    // B's share of the copy starts where A's ends, so that threads (whole waves, where the tiles
    // divide evenly) are either busy with one of them or idle, rather than all partly busy.
    const int b_tid = (tid + loader<Cfg::block_m>::work_items) % Cfg::threads;
    a_load.locate(row0, p.m, a_ld, tid);
    b_load.locate(col0, p.n, b_ld, b_tid);
    if (steps > 0) {
      a_load.load(a_src, a_ld, kb_begin * 128);
      b_load.load(b_src, b_ld, kb_begin * 128);
      if constexpr (Cfg::scale_buffers == 2) store_row_scale(0, row_scale_of(kb_begin));
      a_load.store(lds, tid);
      b_load.store(lds + a_tile_bytes, b_tid);
      __syncthreads();
    }
    // One iteration per 128-K scale block; its kps K steps are unrolled, so which step starts and
    // which ends the block is known at compile time. The last block is peeled off: it loads
    // nothing ahead, so the loop over the others carries no conditions.
    //
    // Row scales: with two or more K steps a block, the block's first step stores its own (with
    // the next step's tiles, before the barrier) and its last step reads them, so one LDS buffer
    // serves; with one step a block, the next block's scales travel with the next tiles into the
    // other of two buffers.
    auto scale_block = [&]<bool Last>(int kb) {
      const float b_scale = combined ? 1.0f : b_scale_of(kb);
      row_scale_parts row_scale;
      static_for<kps>([&](auto s_constant) {
        constexpr int s = decltype(s_constant)::value;
        const int step = (kb - kb_begin) * kps + s;
        const bool more = !Last || s + 1 < kps;
        // Buffer of this step: with two steps per scale block it is s itself.
        const unsigned parity = kps % 2 == 0 ? static_cast<unsigned>(s) & 1u : static_cast<unsigned>(step) & 1u;
        unsigned char* cur = Cfg::stages == 2 ? lds + parity * tile_bytes : lds;
        unsigned char* next = Cfg::stages == 2 ? lds + (parity ^ 1u) * tile_bytes : lds;
        constexpr bool own_scales = Cfg::scale_buffers == 1 && s == 0;
        constexpr bool next_scales = Cfg::scale_buffers == 2 && s == kps - 1;
        // Loads in the order they are waited for (global loads complete in order): scales, B, A;
        // waiting for A's then covers all.
        if (own_scales) row_scale = row_scale_of(kb);
        if (more) {
          const int k_next = kb_begin * 128 + (step + 1) * bk;
          if (next_scales) row_scale = row_scale_of(kb + 1);
          b_load.load(b_src, b_ld, k_next);
          a_load.load(a_src, a_ld, k_next);
        }
        typename wave_tile::row_scales scales;
        if (s == kps - 1)
          scales = wave_tile::read_scales(
              scale_lds + (Cfg::scale_buffers == 2 ? (static_cast<unsigned>(kb - kb_begin) & 1u) * scale_stride : 0),
              wave_row, lane);
        w.template step<s == 0>(cur, cur + a_tile_bytes, wave_row, wave_col, lane);
        // Nothing below moves above the MFMAs: waiting for the loads there would stall them.
        arch::schedule_fence();
        if (more) {
          // The step's loads were issued a whole step ago: one wait for all, not one per use.
          a_load.wait_for_loads();
          b_load.wait_for_loads();
          if constexpr (Cfg::stages == 1) __syncthreads();  // every wave is done reading the buffer
          a_load.store(next, tid);
          b_load.store(next + a_tile_bytes, b_tid);
          if (own_scales) store_row_scale(0, row_scale);
          if (next_scales) store_row_scale(static_cast<int>(static_cast<unsigned>(kb + 1 - kb_begin) & 1u), row_scale);
        }
        // The scale step reads the MFMAs' results: after the stores, which fill the wait the
        // hardware needs before a vector instruction may read an MFMA's result.
        if (s == kps - 1) {
          if constexpr (combined)
            w.apply_scales(scales);
          else
            w.apply_scales(scales, b_scale);
        }
        if (more) __syncthreads();
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
