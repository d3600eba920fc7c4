// Tile configurations of the MX GEMM as types, and the list wavekit ships. As for every GEMM: block
// tile, waves, MFMA tile edge (16: 16x16x128, 32: 32x32x64 scaled MFMAs), LDS stages, K splits of
// an explicit launch. The K step is given in bytes of a row: the same bytes hold 128 MXFP8 or 256
// MXFP4 elements, so of<format> is the config as a format's kernel and plan see it (block_k in
// elements). name() reads like "gemm_mx<128x128x128B, w2x2, mfma16>".
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <string>

#include "wavekit/arch/device_facts.hpp"
#include "wavekit/block/gemm_tile_shape.hpp"
#include "wavekit/core/shipped_configs.hpp"
#include "wavekit/ops/gemm_mx/problem.hpp"

namespace wavekit::ops::gemm_mx {

template <int BlockM, int BlockN, int StepBytes, int WavesM, int WavesN, int MfmaM, int Stages = 2, int SplitK = 1>
struct config {
  static constexpr int block_m = BlockM, block_n = BlockN, step_bytes = StepBytes, mfma_m = MfmaM, split_k = SplitK;
  using kernel_config = config<BlockM, BlockN, StepBytes, WavesM, WavesN, MfmaM, Stages, 1>;
  // A lane reads StepBytes * MfmaM / 64 bytes of each row per step: whole 32-byte MXFP8 operands.
  static_assert(StepBytes * MfmaM / 64 % 32 == 0,
                "gemm_mx::config: a K step must give each lane whole operands: StepBytes * MfmaM >= 2048");
  static_assert(SplitK >= 1, "gemm_mx::config: SplitK must be at least 1");

  // The config for elements of format F: K steps of StepBytes of each row, on gfx950's LDS, the
  // tiles filled straight into it (block::fill_view; staged where a tile cannot take it).
  template <mx_format F>
  struct of
      : block::fill_view<
            block::staged_tile_config<
                block::gemm_tile_shape<BlockM, BlockN, StepBytes * 8 / element_bits(F), WavesM, WavesN, MfmaM, Stages>,
                StepBytes, arch::target::gfx950>,
            arch::target::gfx950> {
    static constexpr mx_format format = F;
  };
  using shape = of<mx_format::mxfp8>;
  static constexpr int wave_m = shape::wave_m, wave_n = shape::wave_n, threads = shape::threads;

  static std::string name(int splits = SplitK) {
    return "gemm_mx<" + std::to_string(BlockM) + "x" + std::to_string(BlockN) + "x" + std::to_string(StepBytes) +
           "B, w" + std::to_string(WavesM) + "x" + std::to_string(WavesN) + ", mfma" + std::to_string(MfmaM) +
           (Stages == 1 ? ", 1 stage" : "") + (splits > 1 ? ", sk" + std::to_string(splits) : "") + ">";
  }
};

// The one list: each X(name, BlockM, BlockN, StepBytes, WavesM, WavesN, MFMA edge) line makes the
// alias config_<name>, the identifier config_id::<name>, its place in all_configs and with_config,
// and (read by codegen/CMakeLists.txt) the gfx950 codegen instances for both formats.
// clang-format off
#define WAVEKIT_GEMM_MX_SHIPPED_CONFIGS(X)                 \
  X(large,  256, 128, 128, 4, 2, 32) /* M in the thousands */ \
  X(medium, 128, 128, 128, 2, 2, 16)                         \
  X(narrow,  64, 128, 128, 2, 2, 16)                         \
  X(small,   32,  64, 128, 1, 2, 16)                         \
  X(decode,  16, 128, 128, 1, 4, 16) /* M <= 16 */         \
  X(decode64, 64, 128, 128, 1, 4, 16) /* M <= 64: one wave row, so B's scales are read once */
// clang-format on

WAVEKIT_SHIPPED_CONFIG_ALIASES(WAVEKIT_GEMM_MX_SHIPPED_CONFIGS)

WAVEKIT_DECLARE_SHIPPED_CONFIGS(WAVEKIT_GEMM_MX_SHIPPED_CONFIGS)

// Hot-loop budgets the kernels declare to the gfx950 codegen report (instructions per 64 MFMA
// 16x16x32 of work, docs/codegen-report.md): the report's figures when they were set, with about
// 3% of room, so that a change which lengthens a loop fails the isa test rather than passing
// unseen. (The decode budgets were re-based when the report began to count blocks laid out after
// a loop's branch back: three to twenty instructions of these loops it had missed.) Per config and format for MX
// operands (B in rows; 0, no budget, for forms the report does not compile); per config for the MXFP4 form that
// quantizes a 16-bit A (either B layout).
template <class Cfg, mx_format F>
inline constexpr int loop_budget = 0;
template <>
inline constexpr int loop_budget<config_large, mx_format::mxfp8> = 89;
template <>
inline constexpr int loop_budget<config_large, mx_format::mxfp4> = 60;
template <>
inline constexpr int loop_budget<config_medium, mx_format::mxfp8> = 96;
template <>
inline constexpr int loop_budget<config_medium, mx_format::mxfp4> = 66;
template <>
inline constexpr int loop_budget<config_narrow, mx_format::mxfp8> = 153;
template <>
inline constexpr int loop_budget<config_narrow, mx_format::mxfp4> = 101;
template <>
inline constexpr int loop_budget<config_small, mx_format::mxfp8> = 235;
template <>
inline constexpr int loop_budget<config_small, mx_format::mxfp4> = 149;
template <>
inline constexpr int loop_budget<config_decode, mx_format::mxfp8> = 444;
template <>
inline constexpr int loop_budget<config_decode, mx_format::mxfp4> = 272;
template <>
inline constexpr int loop_budget<config_decode64, mx_format::mxfp8> = 153;
template <>
inline constexpr int loop_budget<config_decode64, mx_format::mxfp4> = 101;

template <class Cfg>
inline constexpr int quantizing_loop_budget = 0;
template <>
inline constexpr int quantizing_loop_budget<config_decode> = 1152;
template <>
inline constexpr int quantizing_loop_budget<config_small> = 1660;
template <>
inline constexpr int quantizing_loop_budget<config_decode64> = 855;
template <>
inline constexpr int quantizing_loop_budget<config_narrow> = 860;

// The GEMV path of MXFP8 decode (block/gemv_mx_block.hpp): Rows rows of A a block (1 to 16), a C
// column a lane over 256 columns, K steps of 128. of<F> and kernel_config let the launch and the
// plan treat it as any config (MXFP8 only: the launch takes MXFP8 arguments).
template <int Rows>
struct gemv_config {
  static_assert(Rows == 1 || Rows == 2 || Rows == 4 || Rows == 8 || Rows == 16,
                "gemm_mx::gemv_config: 1, 2, 4, 8 or 16 rows a block");
  static constexpr int block_m = Rows, block_n = 256, threads = 256, block_k = 128;
  static constexpr int lds_bytes = Rows * block_k * 4 + Rows * (block_k / 32) * 4;  // A widened, its scales
  // Its K loop's instructions a pass (a 128-K step; no MFMAs to count work by), the budget the
  // kernel declares: the gfx950 report's figure with about 3% of room (see loop_budget).
  static constexpr int loop_max = Rows == 1 ? 380 : Rows == 2 ? 550 : Rows == 4 ? 935 : Rows == 8 ? 1685 : 3040;
  template <mx_format>
  struct of {
    static constexpr int block_k = gemv_config::block_k;
  };
  using kernel_config = gemv_config;
  static std::string name(int splits = 1) {
    return "gemm_mx_gemv<" + std::to_string(Rows) + "x256x128" + (splits > 1 ? ", sk" + std::to_string(splits) : "") +
           ">";
  }
};
// The GEMV's row counts, for the plan: a problem of M <= 16 rows takes the smallest that holds them.
inline constexpr int gemv_row_counts[] = {1, 2, 4, 8, 16};
inline constexpr int gemv_rows_max = 16;

template <class F>
decltype(auto) with_gemv_config(int rows, F&& f) {
  switch (rows) {
    case 1: return f(gemv_config<1>{});
    case 2: return f(gemv_config<2>{});
    case 4: return f(gemv_config<4>{});
    case 8: return f(gemv_config<8>{});
    default: return f(gemv_config<16>{});
  }
}

// The K step (elements) of a config for a format.
template <class Cfg>
constexpr int block_k_of(mx_format f) {
  return f == mx_format::mxfp8 ? Cfg::template of<mx_format::mxfp8>::block_k
                               : Cfg::template of<mx_format::mxfp4>::block_k;
}

// A plan: the config a call runs and its number of K splits, or the GEMV (plan.hpp chooses it).
struct plan {
  config_id config = config_id::large;
  int splits = 1;
  int gemv_rows = 0;  // > 0: the GEMV path (gemv_config<gemv_rows>) instead of config
};

}  // namespace wavekit::ops::gemm_mx
