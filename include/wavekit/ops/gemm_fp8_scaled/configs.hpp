// Tile configurations of the scaled fp8 GEMM as types, and the list wavekit ships. As for every
// GEMM: block tile (M x N x K), waves, MFMA tile edge, LDS stages, K splits of an explicit launch.
// One difference: the K step is the target's. gfx942 runs the K = 32 / 16 fp8 MFMAs; gfx950 runs
// fp8 on its f8f6f4 MFMAs (16x16x128, 32x32x64), the forms that reach its doubled fp8 rate, and a
// 16x16x128 takes 32 bytes of each row per lane: 128-byte K steps. on<target> is the config as
// that target's kernel and plan see it. name() reads like "gemm_fp8_scaled<128x128x64, w2x2, mfma16>"
// (gfx942's K step).
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <string>

#include "wavekit/arch/device_facts.hpp"
#include "wavekit/arch/target.hpp"
#include "wavekit/block/gemm_tile_shape.hpp"
#include "wavekit/core/shipped_configs.hpp"

namespace wavekit::ops::gemm_fp8_scaled {

template <int BlockM, int BlockN, int BlockK, int WavesM, int WavesN, int MfmaM, int Stages = 2, int SplitK = 1>
struct config {
  static constexpr int block_m = BlockM, block_n = BlockN, mfma_m = MfmaM, split_k = SplitK;
  static constexpr bool row_pairs = MfmaM == 8;  // the sparse MFMA as a dense 8-row atom
  // The skinny family's hot-loop budget for the codegen report, in its k_contiguous form
  // (instructions per 64 MFMA 16x16x32 of work; pairs measured 544 on gfx942 and 560 on gfx950,
  // skinny 280 and 184); the others declare none.
  static constexpr int loop_per_64_max = row_pairs ? 600 : (BlockM == 16 && BlockN == 512) ? 300 : 0;
  using kernel_config = config<BlockM, BlockN, BlockK, WavesM, WavesN, MfmaM, Stages, 1>;
  static_assert(BlockK == 64 || BlockK == 128, "gemm_fp8_scaled::config: BlockK must be 64 or 128 (bytes of K)");
  static_assert(SplitK >= 1, "gemm_fp8_scaled::config: SplitK must be at least 1");

  // The K step (bytes = fp8 elements) target T runs.
  template <arch::target T>
  static constexpr int block_k_on = block::fp8_step_k<T, MfmaM, BlockK>;

  // The config as target T's kernel sees it: rows of the K step's bytes in LDS, on T's LDS.
  template <arch::target T>
  using on = block::fp8_tile_config<T, block::fp8_tile_shape<T, BlockM, BlockN, BlockK, WavesM, WavesN, MfmaM, Stages>>;
  // gfx942's view carries the name and the checks every target shares.
  using shape = on<arch::target::gfx942>;
  static constexpr int wave_m = shape::wave_m, wave_n = shape::wave_n, threads = shape::threads;

  static std::string name(int splits = SplitK) {
    return "gemm_fp8_scaled<" + shape::shape_name() +
           (row_pairs ? std::string(", smfmac row pairs") : ", mfma" + std::to_string(MfmaM)) +
           (Stages == 1 ? ", 1 stage" : "") + (splits > 1 ? ", sk" + std::to_string(splits) : "") + ">";
  }
};

// The one list: each X(name, BlockM, BlockN, BlockK, WavesM, WavesN, MFMA edge) line makes the alias
// config_<name>, the identifier config_id::<name>, its place in all_configs and with_config, and
// (read by codegen/CMakeLists.txt) the codegen instances for both storage orders on every target.
//
// The skinny family (M <= 16, docs/gemm-fp8-skinny.md) reads B once and A once per 256 or 512
// columns: `pairs` runs the sparse MFMA as a dense 8-row atom (MFMA edge 8, gfx942's plans for
// M <= 8), `skinny` the dense 16-row one with 8 waves and a single LDS stage (two would not fit
// gfx942's 64 KiB; 8 waves keep gfx950's 128-byte K steps free of spills).
// clang-format off
#define WAVEKIT_GEMM_FP8_SCALED_SHIPPED_CONFIGS(X)                 \
  X(large,  256, 128, 64, 4, 2, 32) /* M in the thousands */       \
  X(medium, 128, 128, 64, 2, 2, 16)                                \
  X(narrow,  64, 128, 64, 2, 2, 16)                                \
  X(small,   32,  64, 64, 1, 2, 16)                                \
  X(decode,  16, 128, 64, 1, 4, 16) /* M <= 16 */                  \
  X(skinny,  16, 512, 64, 1, 8, 16, 1) /* M <= 16 */               \
  X(pairs,    8, 256, 64, 1, 4,  8, 1) /* M <= 8, gfx942 */
// clang-format on

WAVEKIT_SHIPPED_CONFIG_ALIASES(WAVEKIT_GEMM_FP8_SCALED_SHIPPED_CONFIGS)

WAVEKIT_DECLARE_SHIPPED_CONFIGS(WAVEKIT_GEMM_FP8_SCALED_SHIPPED_CONFIGS)

// A plan: the config a call runs and its number of K splits (the plan queries choose it: plan.hpp).
struct plan {
  config_id config = config_id::large;
  int splits = 1;
};

}  // namespace wavekit::ops::gemm_fp8_scaled
