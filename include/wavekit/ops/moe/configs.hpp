// Tile configurations of the MoE grouped GEMMs (bf16 / fp16 weights) as types, and the list
// wavekit ships. BlockM is also the sort's tile: each expert's rows are padded to it, so a small
// one wastes little on experts with few tokens (decode) and a large one reuses each weight tile
// over more rows (prefill). BlockK is elements of K per LDS row (64: 128-byte rows). name() reads
// like "moe_gemm<64x128x64, w2x2, mfma16>".
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <string>

#include "wavekit/arch/device_facts.hpp"
#include "wavekit/arch/target.hpp"
#include "wavekit/block/gemm_tile_shape.hpp"
#include "wavekit/core/shipped_configs.hpp"

namespace wavekit::ops::moe {

template <int BlockM, int BlockN, int BlockK, int WavesM, int WavesN, int MfmaM, int Stages = 2>
struct config : block::half_tile_config<BlockM, BlockN, BlockK, WavesM, WavesN, MfmaM, Stages> {
  using typename config::half_tile_config::shape;
  static_assert(BlockM >= 16 && BlockM <= 256 && BlockM % 16 == 0, "moe::config: BlockM is the sort's tile: 16..256");
  // Every target's kernel sees the config's tile as it is (the fp8 list's configs differ per
  // target), filled as block::fill_view fills it there.
  template <arch::target T>
  using on = block::fill_view<config, T>;
  static std::string name() {
    return "moe_gemm<" + shape::shape_name() + ", mfma" + std::to_string(MfmaM) + (Stages == 1 ? ", 1 stage" : "") +
           ">";
  }
};

// The one list (X(name, BlockM, BlockN, BlockK, WavesM, WavesN, MFMA edge)): configs, identifiers
// and the codegen instances (codegen/CMakeLists.txt).
// clang-format off
#define WAVEKIT_MOE_SHIPPED_CONFIGS(X)                              \
  X(decode,   16, 128, 64, 1, 4, 16) /* a few rows per expert */    \
  X(medium,   64, 128, 64, 2, 2, 16)                                \
  X(prefill, 128, 128, 32, 2, 2, 32) /* hundreds of rows per expert */
// clang-format on

WAVEKIT_SHIPPED_CONFIG_ALIASES(WAVEKIT_MOE_SHIPPED_CONFIGS)
WAVEKIT_DECLARE_SHIPPED_CONFIGS(WAVEKIT_MOE_SHIPPED_CONFIGS)

// A config's M tile: the sort's padding unit, which every weight format's configs share.
inline int block_m_of(config_id id) {
  return with_config(id, [](auto cfg) { return decltype(cfg)::block_m; });
}

}  // namespace wavekit::ops::moe
