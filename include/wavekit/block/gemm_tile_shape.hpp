// The tile vocabulary every GEMM config shares: the block tile (M x N x K elements), the waves
// that split it (M x N), the MFMA tile (16 or 32 square; the atom's K is the op's and target's
// choice; 8 names the row-pair sparse atom's 8 x 16 tiles, arch/mfma_row_pairs.hpp) and the LDS
// stages of the mainloop (2: double-buffered, one barrier per K step; 1: one buffer, a second
// barrier per K step). Plain C++: configs, plans and kernels all read it.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <string>

#include "wavekit/arch/target.hpp"

namespace wavekit::block {

template <int BlockM, int BlockN, int BlockK, int WavesM, int WavesN, int MfmaM, int Stages>
struct gemm_tile_shape {
  static constexpr int block_m = BlockM, block_n = BlockN, block_k = BlockK;
  static constexpr int waves_m = WavesM, waves_n = WavesN, waves = WavesM * WavesN, threads = 64 * waves;
  static constexpr int mfma_m = MfmaM;                    // rows of C per MFMA tile
  static constexpr int mfma_n = MfmaM == 8 ? 16 : MfmaM;  // columns
  static constexpr int stages = Stages;
  static constexpr int wave_m = BlockM / WavesM, wave_n = BlockN / WavesN;
  static constexpr int tiles_m = wave_m / mfma_m, tiles_n = wave_n / mfma_n;  // MFMA tiles per wave

  static_assert(MfmaM == 8 || MfmaM == 16 || MfmaM == 32,
                "gemm_tile_shape: MFMA tiles are 16x16, 32x32, or the row-pair sparse atom's 8x16");
  static_assert(Stages == 1 || Stages == 2, "gemm_tile_shape: Stages is 1 (one LDS buffer) or 2 (double-buffered LDS)");
  static_assert(BlockM % WavesM == 0 && BlockN % WavesN == 0,
                "gemm_tile_shape: the waves must split the block tile evenly");
  static_assert(wave_m % mfma_m == 0 && wave_n % mfma_n == 0,
                "gemm_tile_shape: a wave tile must be a whole number of MFMA tiles");
  static_assert(waves <= 16, "gemm_tile_shape: at most 1024 threads per block");

  // "256x128x64, w4x2": the part of a config's name this shape gives.
  static std::string shape_name() {
    return std::to_string(BlockM) + "x" + std::to_string(BlockN) + "x" + std::to_string(BlockK) + ", w" +
           std::to_string(WavesM) + "x" + std::to_string(WavesN);
  }
};

// The K step (bytes = 8-bit elements) target T's fp8 GEMMs take with MFMA tiles of edge MfmaM,
// for a config that names BlockK: gfx950 runs fp8 on its f8f6f4 MFMAs (arch::fp8_gemm_atom),
// whose 16x16x128 form takes 32 bytes of each row per lane, so 16-wide tiles step 128 bytes of K.
template <arch::target T, int MfmaM, int BlockK>
inline constexpr int fp8_step_k = T == arch::target::gfx950 && MfmaM == 16 ? 128 : BlockK;

}  // namespace wavekit::block
