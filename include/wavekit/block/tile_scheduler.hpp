// Tile schedulers: which tile of C (m0, n0) and which range of K groups a block works on, from
// its block index. A GEMM's K is cut into groups (the scale policy's unit: 128 K for 1x128 block
// scales, one K step without scales); split-K gives each split a contiguous range of them.
//
// tile_scheduler_2d: grid (N tiles, M tiles, splits), the plain GEMM's. Grouped-by-expert (MoE:
// a tile list over experts' row ranges) and split-KV (MLA) schedulers give the same tile answer
// from their own grids.
#pragma once

#include <hip/hip_runtime.h>  // the platform: HIP on the device, the emulator's shim on the CPU

#include "wavekit/core/math.hpp"
#include "wavekit/core/platform.hpp"

namespace wavekit::block {

struct gemm_tile {
  int m0, n0;                  // first row and column of the block's C tile
  int group_begin, group_end;  // its K groups: [group_begin, group_end)
  int split;                   // index of its K split (0 without split-K)
};

template <class S>
concept tile_scheduler = requires(int i) {
  { S::at(i, i) } -> std::same_as<gemm_tile>;
};

template <int BlockM, int BlockN>
struct tile_scheduler_2d {
  // The launch grid for an m x n output cut into `splits` K splits.
  static dim3 grid(int m, int n, int splits) {
    return dim3(static_cast<unsigned>(ceil_div(n, BlockN)), static_cast<unsigned>(ceil_div(m, BlockM)),
                static_cast<unsigned>(splits));
  }
  // groups: K groups of the problem; groups_per_split: of each split (the last may have fewer).
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE static gemm_tile at(int groups, int groups_per_split) {
    const int split = static_cast<int>(blockIdx.z), begin = split * groups_per_split;
    return {static_cast<int>(blockIdx.y) * BlockM, static_cast<int>(blockIdx.x) * BlockN, begin,
            begin + groups_per_split < groups ? begin + groups_per_split : groups, split};
  }
};

}  // namespace wavekit::block
