// Tile configurations of the half-precision GEMM as types, and the list wavekit ships. A config is
// a block tile (M x N x K elements; K 32 or 64, i.e. 64- or 128-byte LDS rows), the waves that split
// it, the MFMA tile edge (the atom's K is the target's: 16x16x16 / 32x32x8 on gfx942, the
// 16x16x32 / 32x32x16 forms on gfx950), the LDS stages and the K splits of an explicit launch.
// name() reads like "gemm_half<256x128x32, w4x2, mfma32, sk2>". Plain C++: the plan reads it.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <string>
#include <tuple>

#include "wavekit/arch/device_facts.hpp"
#include "wavekit/block/gemm_tile_shape.hpp"
#include "wavekit/core/shipped_configs.hpp"

namespace wavekit::ops::gemm_half {

template <int BlockM, int BlockN, int BlockK, int WavesM, int WavesN, int MfmaM, int Stages = 2, int SplitK = 1>
struct config : block::half_tile_config<BlockM, BlockN, BlockK, WavesM, WavesN, MfmaM, Stages> {
  using typename config::half_tile_config::shape;
  static constexpr int split_k = SplitK;
  // The kernel depends on everything but SplitK (a launch parameter).
  using kernel_config = config<BlockM, BlockN, BlockK, WavesM, WavesN, MfmaM, Stages, 1>;
  static_assert(SplitK >= 1, "gemm_half::config: SplitK must be at least 1");
  // The config as target T's kernel sees it: the tile as it is, filled as block::fill_view fills
  // it there.
  template <arch::target T>
  using on = block::fill_view<config, T>;

  static std::string name(int splits = SplitK) {
    return "gemm_half<" + shape::shape_name() + ", mfma" + std::to_string(MfmaM) + (Stages == 1 ? ", 1 stage" : "") +
           (splits > 1 ? ", sk" + std::to_string(splits) : "") + ">";
  }
};

// The one list: each X(name, BlockM, BlockN, BlockK, WavesM, WavesN, MFMA edge) line makes the alias
// config_<name>, the identifier config_id::<name>, its place in all_configs and with_config, and
// (read by codegen/CMakeLists.txt) the codegen instances for both storage orders on every target.
// clang-format off
#define WAVEKIT_GEMM_HALF_SHIPPED_CONFIGS(X)                 \
  X(large,  256, 128, 32, 4, 2, 32) /* M in the thousands */ \
  X(medium, 128, 128, 32, 2, 2, 16)                          \
  X(narrow,  64, 128, 32, 2, 2, 16)                          \
  X(small,   32,  64, 64, 1, 2, 16)                          \
  X(decode,  16, 128, 64, 1, 4, 16) /* M <= 16 */
// clang-format on

WAVEKIT_SHIPPED_CONFIG_ALIASES(WAVEKIT_GEMM_HALF_SHIPPED_CONFIGS)

WAVEKIT_DECLARE_SHIPPED_CONFIGS(WAVEKIT_GEMM_HALF_SHIPPED_CONFIGS)

// A plan: the config a call runs and its number of K splits (the plan queries choose it: plan.hpp).
struct plan {
  config_id config = config_id::large;
  int splits = 1;
};

}  // namespace wavekit::ops::gemm_half
