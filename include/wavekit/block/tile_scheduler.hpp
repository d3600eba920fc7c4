// Tile schedulers: which tile of C (m0, n0) and which range of K groups a block works on, from
// its block index. A GEMM's K is cut into groups (the scale policy's unit: 128 K for 1x128 block
// scales, one K step without scales); split-K gives each split a contiguous range of them.
//
// tile_scheduler_2d: grid (N tiles, M tiles, splits x batches), the plain GEMM's (a batched GEMM's
// block z = split * batches + batch).
// tile_scheduler_grouped: the same grid over a grouped GEMM's rows (MoE: rows sorted by expert,
// each expert's rows padded to whole M tiles), each M tile's group read from a device table
// (tile_context::tile_group); a tile of group -1 has no work. Split-KV (MLA) schedulers give the
// same tile answer from their own grids.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <hip/hip_runtime.h>  // the platform: HIP on the device, the emulator's shim on the CPU

#include "wavekit/core/math.hpp"
#include "wavekit/core/platform.hpp"

namespace wavekit::block {

struct gemm_tile {
  int m0, n0;                  // first row and column of the block's C tile
  int group_begin, group_end;  // its K groups: [group_begin, group_end)
  int split;                   // index of its K split (0 without split-K)
  int group = 0;               // grouped GEMMs: the tile's group (its B operand), -1: no work
  int batch = 0;               // batched GEMMs: the tile's GEMM
};

// A batch as a kernel argument (block::gemm_params): core/gemm_view.hpp's gemm_batch, its strides
// below 2^31 elements (check_gemm_views; 32-bit strides keep the kernels' scalar registers down).
struct batch_args {
  int count = 1, a = 0, b = 0, c = 0;
};

// What a scheduler may read besides the block index: a grouped GEMM's table of M-tile groups, a
// batched GEMM's count.
struct tile_context {
  const int* tile_group = nullptr;
  int batches = 1;
};

template <class S>
concept tile_scheduler = requires(int i, const tile_context& context) {
  { S::at(i, i, context) } -> std::same_as<gemm_tile>;
};

template <int BlockM, int BlockN>
struct tile_scheduler_2d {
  // The launch grid for `batches` m x n outputs, each cut into `splits` K splits.
  static dim3 grid(int m, int n, int splits, int batches = 1) {
    return dim3(static_cast<unsigned>(ceil_div(n, BlockN)), static_cast<unsigned>(ceil_div(m, BlockM)),
                static_cast<unsigned>(splits) * static_cast<unsigned>(batches));
  }
  // groups: K groups of the problem; groups_per_split: of each split (the last may have fewer).
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE static gemm_tile at(int groups, int groups_per_split,
                                                         const tile_context& context = {}) {
    const unsigned z = blockIdx.z, batches = static_cast<unsigned>(context.batches);
    const int split = static_cast<int>(z / batches), begin = split * groups_per_split;
    return {static_cast<int>(blockIdx.y) * BlockM,
            static_cast<int>(blockIdx.x) * BlockN,
            begin,
            begin + groups_per_split < groups ? begin + groups_per_split : groups,
            split,
            0,
            static_cast<int>(z - static_cast<unsigned>(split) * batches)};
  }
};

template <int BlockM, int BlockN>
struct tile_scheduler_grouped {
  // The grid over `tiles_m` M tiles (the tile table's length) of an n-wide output.
  static dim3 grid(int tiles_m, int n) {
    return dim3(static_cast<unsigned>(ceil_div(n, BlockN)), static_cast<unsigned>(tiles_m), 1u);
  }
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE static gemm_tile at(int groups, int, const tile_context& context) {
    // One load per block, the same in every lane (a scalar register).
    const int group = __builtin_amdgcn_readfirstlane(context.tile_group[blockIdx.y]);
    return {static_cast<int>(blockIdx.y) * BlockM, static_cast<int>(blockIdx.x) * BlockN, 0, groups, 0, group};
  }
};

}  // namespace wavekit::block
