// Tile configurations of the block-scaled fp8 GEMM as types. A config fixes the block tile
// (M x N x K), the waves (M x N) that split it, the MFMA shape, the LDS stages of the pipeline
// (2: double-buffered, one barrier per K step; 1: one buffer, the next step's tiles wait in
// registers and a second barrier per K step guards the buffer) and the K splits of an explicit
// launch (the dispatch chooses its own). An invalid combination is a compile error with a
// readable message; name() reads like "gemm_fp8_bs<256x128x64, w4x2, mfma32x32x16, sk2>".
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <string>

#include "wavekit/arch/device_facts.hpp"
#include "wavekit/arch/target.hpp"
#include "wavekit/block/gemm_tile_shape.hpp"

namespace wavekit::ops::gemm_fp8_blockscale {

enum class mfma_shape { m16n16k32, m32n32k16 };

template <int BlockM, int BlockN, int BlockK, int WavesM, int WavesN, mfma_shape Mfma, int Stages = 2, int SplitK = 1>
struct config
    : block::gemm_tile_shape<BlockM, BlockN, BlockK, WavesM, WavesN, Mfma == mfma_shape::m16n16k32 ? 16 : 32, Stages> {
  using shape =
      block::gemm_tile_shape<BlockM, BlockN, BlockK, WavesM, WavesN, Mfma == mfma_shape::m16n16k32 ? 16 : 32, Stages>;
  using shape::mfma_m, shape::threads, shape::waves, shape::wave_m, shape::wave_n;
  static constexpr mfma_shape mfma = Mfma;
  static constexpr int split_k = SplitK;
  // The kernel depends on everything but SplitK (a launch parameter): configs that differ only in
  // it share one kernel instance.
  using kernel_config = config<BlockM, BlockN, BlockK, WavesM, WavesN, Mfma, Stages, 1>;
  static constexpr int mfma_k = Mfma == mfma_shape::m16n16k32 ? 32 : 16;  // the fp8 instruction's K
  // The K step (bytes = fp8 elements) target T runs (block::fp8_step_k: 128 for 16-wide tiles on
  // gfx950's f8f6f4 MFMAs).
  template <arch::target T>
  static constexpr int block_k_on = block::fp8_step_k<T, shape::mfma_m, BlockK>;

  // The config as target T's kernel and plan see it: Stages buffers of the A and B tiles (fp8) and
  // the group-promotion policy's per-row scales (fp32, block::row_scale_lds) in LDS, on T's LDS.
  template <arch::target T>
  using tile_shape_on = block::fp8_tile_shape<T, BlockM, BlockN, BlockK, WavesM, WavesN, shape::mfma_m, Stages>;
  // The tiles are filled as block::fill_view fills them on T, but for two tiles whose registers do
  // not fit that fill (the codegen report): gfx950's direct fill at 128x128 with 16-wide MFMAs
  // (a scale group is one K step there, so the direct loop runs two groups an iteration and their
  // promotion state does not fit beside the accumulators: 41 VGPRs spilled, where the staged loop
  // takes 246), and gfx942's two steps ahead with 128-byte K steps (64x128x128 spilled 57).
  static constexpr bool direct_fill = !(Mfma == mfma_shape::m16n16k32 && BlockM * BlockN >= 128 * 128);
  static constexpr bool two_ahead = BlockK == 64;
  template <arch::target T>
  using on = block::fp8_tile_config<T, tile_shape_on<T>, block::row_scale_lds<tile_shape_on<T>, 128>::bytes,
                                    direct_fill, two_ahead>;
  // gfx942's view: the figures of the name, the tests and the smaller LDS.
  using gfx942_view = on<arch::target::gfx942>;
  static constexpr int lds_bytes = gfx942_view::lds_bytes, min_waves_per_simd = gfx942_view::min_waves_per_simd;

  static_assert(BlockK == 64 || BlockK == 128, "gemm_fp8_blockscale::config: BlockK must be 64 or 128");
  static_assert(SplitK >= 1, "gemm_fp8_blockscale::config: SplitK must be at least 1");
  static_assert(BlockN <= 128 ? 128 % BlockN == 0 : BlockN % 128 == 0,
                "gemm_fp8_blockscale::config: BlockN must divide 128 or be a multiple of it (B's scale blocks)");
  static_assert(wave_n <= 128 && 128 % wave_n == 0,
                "gemm_fp8_blockscale::config: a wave's columns must lie in one 128-column scale block");
  static_assert(threads >= BlockM,
                "gemm_fp8_blockscale::config: one thread per row of the block brings the row scales: "
                "64 * WavesM * WavesN must be at least BlockM");
  static_assert(on<arch::target::gfx950>::lds_bytes > 0, "gemm_fp8_blockscale::config: gfx950's view is valid");

  // The name of this configuration launched with `splits` K splits.
  static std::string name(int splits = SplitK) {
    return "gemm_fp8_bs<" + shape::shape_name() + ", mfma" + std::to_string(mfma_m) + "x" + std::to_string(mfma_m) +
           "x" + std::to_string(mfma_k) + (Stages == 1 ? ", 1 stage" : "") +
           (splits > 1 ? ", sk" + std::to_string(splits) : "") + ">";
  }
};

}  // namespace wavekit::ops::gemm_fp8_blockscale
