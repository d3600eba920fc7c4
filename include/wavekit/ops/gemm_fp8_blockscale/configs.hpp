// The configurations of the block-scaled fp8 GEMM that wavekit ships (each is in the codegen
// report and the tests), and their identifiers for run-time dispatch.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <tuple>

#include "wavekit/core/layout.hpp"
#include "wavekit/core/shipped_configs.hpp"
#include "wavekit/ops/gemm_fp8_blockscale/config.hpp"

namespace wavekit::ops::gemm_fp8_blockscale {

// All use 64-K steps: with 128-K steps the double-buffered tiles of the smaller tiles exceed what
// lets more than one wave per SIMD in on gfx942 (64 KiB of LDS per CU), and their loops were
// longer too (docs/codegen-report.md). 128-K steps stay supported (and tested) for custom configs.
//
// The one list: each X(name, BlockM, BlockN, BlockK, WavesM, WavesN, MFMA shape) line makes the
// alias blockscale_<name>, the identifier config_id::<name>, its place in
// all_configs and in with_config, and (read by codegen/CMakeLists.txt) the
// codegen instances of the report for both storage orders on every target.
// clang-format off
#define WAVEKIT_BLOCKSCALE_SHIPPED_CONFIGS(X)                \
  X(large,  256, 128, 64, 4, 2, m32n32k16) /* M in the thousands */ \
  X(medium, 128, 128, 64, 2, 2, m16n16k32)                  \
  X(mfma32, 128, 128, 64, 2, 2, m32n32k16) /* same tile as medium, 32x32 MFMAs; explicit use only */ \
  X(narrow,  64, 128, 64, 2, 2, m16n16k32)                  \
  X(small,   32,  64, 64, 1, 2, m16n16k32)                  \
  X(decode,  16, 128, 64, 1, 4, m16n16k32) /* M <= 16 */
// clang-format on

#define WAVEKIT_BLOCKSCALE_ALIAS(name, bm, bn, bk, wm, wn, mfma) \
  using config_##name = config<bm, bn, bk, wm, wn, mfma_shape::mfma>;
WAVEKIT_BLOCKSCALE_SHIPPED_CONFIGS(WAVEKIT_BLOCKSCALE_ALIAS)
#undef WAVEKIT_BLOCKSCALE_ALIAS

WAVEKIT_DECLARE_SHIPPED_CONFIGS(WAVEKIT_BLOCKSCALE_SHIPPED_CONFIGS)

// A plan: the config a call runs and its number of K splits (the plan queries choose it: plan.hpp).
struct plan {
  config_id config = config_id::large;
  int splits = 1;
};

}  // namespace wavekit::ops::gemm_fp8_blockscale
