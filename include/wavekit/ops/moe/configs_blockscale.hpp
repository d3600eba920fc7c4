// Tile configurations of the MoE grouped GEMMs over fp8 block-scaled expert weights (128x128 fp32
// weight scales, activations quantized 1x128), and the list wavekit ships. The same vocabulary as
// the bf16 / fp16 list (ops/moe/configs.hpp; BlockM is again the sort's tile) with the K step in
// bytes of fp8 and, as for every fp8 GEMM, the target's own: on<target> is the config as that
// target's kernel sees it (block::fp8_step_k: 128-byte steps for 16-wide tiles on gfx950). Its LDS
// holds the tiles and the group-promotion policy's row scales (block/scale_group_promotion.hpp).
// name() reads like "moe_gemm_fp8<16x128x64, w1x4, mfma16>" (gfx942's K step).
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <string>

#include "wavekit/arch/device_facts.hpp"
#include "wavekit/arch/target.hpp"
#include "wavekit/block/gemm_tile_shape.hpp"
#include "wavekit/core/shipped_configs.hpp"

namespace wavekit::ops::moe::blockscale {

inline constexpr int scale_group_k = 128;  // K of a weight scale block (and of an activation scale)

template <int BlockM, int BlockN, int BlockK, int WavesM, int WavesN, int MfmaM, int Stages = 2>
struct config {
  static constexpr int block_m = BlockM, block_n = BlockN, mfma_m = MfmaM;
  static_assert(BlockK == 64 || BlockK == 128, "moe::blockscale::config: BlockK must be 64 or 128 (bytes of K)");
  static_assert(BlockM >= 16 && BlockM <= 256 && BlockM % 16 == 0,
                "moe::blockscale::config: BlockM is the sort's tile: 16..256");

  // The config as target T's kernel sees it: the fp8 K step's rows and the group-promotion
  // policy's per-row scales in LDS, on T's LDS.
  template <arch::target T>
  using tile_shape_on = block::fp8_tile_shape<T, BlockM, BlockN, BlockK, WavesM, WavesN, MfmaM, Stages>;
  // Filled as block::fill_view fills them on T, but one step ahead on gfx942 with 128-byte K steps,
  // whose second register copy spills (gemm_fp8_blockscale::config says where).
  template <arch::target T>
  using on = block::fp8_tile_config<T, tile_shape_on<T>, block::row_scale_lds<tile_shape_on<T>, scale_group_k>::bytes,
                                    /*DirectFill=*/true, /*TwoAhead=*/BlockK == 64>;
  static_assert(tile_shape_on<arch::target::gfx942>::threads >= BlockM,
                "moe::blockscale::config: one thread per row of the block brings its scales");
  static_assert(tile_shape_on<arch::target::gfx942>::wave_n <= scale_group_k &&
                    scale_group_k % tile_shape_on<arch::target::gfx942>::wave_n == 0,
                "moe::blockscale::config: a wave's columns must lie in one 128-column weight scale block");
  using shape = on<arch::target::gfx942>;  // the name and the checks both targets share
  static constexpr int threads = shape::threads;
  static_assert(on<arch::target::gfx950>::lds_bytes > 0, "moe::blockscale::config: gfx950's view is valid");

  static std::string name() {
    return "moe_gemm_fp8<" + shape::shape_name() + ", mfma" + std::to_string(MfmaM) + (Stages == 1 ? ", 1 stage" : "") +
           ">";
  }
};

// The one list (X(name, BlockM, BlockN, BlockK, WavesM, WavesN, MFMA edge)), with the names and
// M tiles of the bf16 / fp16 list so that one plan serves both.
// clang-format off
#define WAVEKIT_MOE_BLOCKSCALE_SHIPPED_CONFIGS(X)                   \
  X(decode,   16, 128, 64, 1, 4, 16) /* a few rows per expert */    \
  X(medium,   64, 128, 64, 2, 2, 16)                                \
  X(prefill, 128, 128, 64, 2, 2, 32) /* hundreds of rows per expert */
// clang-format on

WAVEKIT_SHIPPED_CONFIG_ALIASES(WAVEKIT_MOE_BLOCKSCALE_SHIPPED_CONFIGS)
WAVEKIT_DECLARE_SHIPPED_CONFIGS(WAVEKIT_MOE_BLOCKSCALE_SHIPPED_CONFIGS)

}  // namespace wavekit::ops::moe::blockscale
