// Tile configurations of the block-scaled fp8 GEMM as types. A config fixes the block tile
// (M x N x K), the waves (M x N) that split it, and the MFMA shape; the pipeline is always LDS
// double-buffered with one barrier per K step. An invalid combination is a compile error with a
// readable message; name() reads like "gemm_fp8_bs<256x128x64, w4x2, mfma16x16x32>".
#pragma once

#include <string>

namespace wavekit::config {

enum class mfma_shape { m16n16k32, m32n32k16 };

template <int BlockM, int BlockN, int BlockK, int WavesM, int WavesN, mfma_shape Mfma>
struct gemm_fp8_blockscale_config {
  static constexpr int block_m = BlockM, block_n = BlockN, block_k = BlockK;
  static constexpr int waves_m = WavesM, waves_n = WavesN, waves = WavesM * WavesN, threads = 64 * waves;
  static constexpr mfma_shape mfma = Mfma;
  static constexpr int mfma_m = Mfma == mfma_shape::m16n16k32 ? 16 : 32;  // = mfma_n
  static constexpr int mfma_k = Mfma == mfma_shape::m16n16k32 ? 32 : 16;
  static constexpr int wave_m = BlockM / WavesM, wave_n = BlockN / WavesN;
  static constexpr int tiles_m = wave_m / mfma_m, tiles_n = wave_n / mfma_m;  // MFMA tiles per wave
  static constexpr int k_steps_per_scale = 128 / BlockK;                      // K steps per 128-K scale block
  // LDS: two buffers of the A and B tiles (fp8) and the blocks' per-row scales (fp32): one
  // buffer when a scale block spans two K steps (its first step stores them, its last reads
  // them), two when it is one step (the next block's travel with the next tiles). A scale buffer
  // has a slot per thread (threads past BlockM write slots nobody reads) and per row.
  static constexpr int lds_tile_bytes = (BlockM + BlockN) * BlockK;
  static constexpr int scale_buffers = k_steps_per_scale >= 2 ? 1 : 2;
  static constexpr int scale_slots = threads > BlockM ? threads : BlockM;
  static constexpr int lds_bytes = 2 * lds_tile_bytes + scale_buffers * scale_slots * 4;
  // The occupancy the codegen report must confirm: what the LDS budget allows (blocks per CU
  // times waves per block over 4 SIMDs), capped at 2; registers must not lower it further.
  static constexpr int min_waves_per_simd = (65536 / lds_bytes) * waves / 4 >= 2 ? 2 : 1;

  static_assert(BlockK == 64 || BlockK == 128, "gemm_fp8_blockscale_config: BlockK must be 64 or 128");
  static_assert(BlockM % WavesM == 0 && BlockN % WavesN == 0,
                "gemm_fp8_blockscale_config: the waves must split the block tile evenly");
  static_assert(wave_m % mfma_m == 0 && wave_n % mfma_m == 0,
                "gemm_fp8_blockscale_config: a wave tile must be a whole number of MFMA tiles");
  static_assert(BlockN <= 128 ? 128 % BlockN == 0 : BlockN % 128 == 0,
                "gemm_fp8_blockscale_config: BlockN must divide 128 or be a multiple of it (B's scale blocks)");
  static_assert(wave_n <= 128 && 128 % wave_n == 0,
                "gemm_fp8_blockscale_config: a wave's columns must lie in one 128-column scale block");
  static_assert(waves <= 16, "gemm_fp8_blockscale_config: at most 1024 threads per block");
  static_assert(lds_bytes <= 64 * 1024, "gemm_fp8_blockscale_config: the double-buffered tiles exceed 64 KiB of LDS");

  static std::string name() {
    return "gemm_fp8_bs<" + std::to_string(BlockM) + "x" + std::to_string(BlockN) + "x" + std::to_string(BlockK) +
           ", w" + std::to_string(WavesM) + "x" + std::to_string(WavesN) + ", mfma" + std::to_string(mfma_m) + "x" +
           std::to_string(mfma_m) + "x" + std::to_string(mfma_k) + ">";
  }
};

}  // namespace wavekit::config
