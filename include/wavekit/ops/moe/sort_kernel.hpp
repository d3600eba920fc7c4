// The MoE token sort on the device (the layout: ops/moe/sort.hpp): one workgroup of 16 waves, no
// atomics on the sorted positions, so the list is the same on every run.
//
//   1. Wave w counts the slots of local experts w, w + 16, ...: it reads the ids 64 at a time and
//      adds the population count of a ballot.
//   2. One lane turns the counts into padded offsets (a scan of at most 1024 values, in LDS).
//   3. Wave w places its experts' slots: a slot's row is its expert's offset, plus the slots of
//      that expert before its chunk, plus the matching lanes below it in the ballot. Padding rows,
//      rows past the ones in use, the tile map and the inverse of slots that are not local are
//      written by all threads, each element by exactly one.
// Each expert's pass reads all the ids (from cache after the first): tokens * top_k / 64 ballots
// per local expert, spread over 16 waves.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <hip/hip_runtime.h>

#include <cstdint>

#include "wavekit/arch/codegen_targets.hpp"
#include "wavekit/arch/lds.hpp"
#include "wavekit/core/math.hpp"
#include "wavekit/core/platform.hpp"
#include "wavekit/ops/moe/sort.hpp"

namespace wavekit::ops::moe {

inline constexpr int sort_waves = 16;

// (A template so that every translation unit may include it.)
template <int Waves = sort_waves>
__global__ __launch_bounds__(64 * Waves) void moe_sort_kernel(sort_problem p, sort_capacity cap, const int* ids,
                                                              sort_outputs o) {
  arch::declare_codegen_targets<4 * (2 * max_local_experts + 4), 1>();  // one workgroup: any occupancy
  WAVEKIT_LDS_ARRAY(int, count, max_local_experts);
  WAVEKIT_LDS_ARRAY(int, offset, max_local_experts + 1);
  WAVEKIT_LDS_ARRAY(int, invalid, 1);
  const int tid = static_cast<int>(threadIdx.x), lane = tid % 64;
  const int wave = __builtin_amdgcn_readfirstlane(tid / 64);
  const int slots = p.tokens * p.top_k;
  const std::uint64_t below = (std::uint64_t{1} << lane) - 1;  // lanes under this one
  if (tid == 0) invalid[0] = 0;
  __syncthreads();
  // 1. Counts, and the slots whose id is no expert's.
  for (int e = wave; e < p.local_experts; e += Waves) {
    int n = 0;
    for (int base = 0; base < slots; base += 64) {
      const int s = base + lane;
      const std::uint64_t match = __ballot(s < slots && ids[s] == p.expert_begin + e);
      n += __builtin_popcountll(match);
    }
    if (lane == 0) count[e] = n;
  }
  int my_invalid = 0;
  for (int s = tid; s < slots; s += 64 * Waves) my_invalid += ids[s] < 0 || ids[s] >= p.experts;
  if (my_invalid) atomicAdd(&invalid[0], my_invalid);
  __syncthreads();
  // 2. Padded offsets.
  if (tid == 0) {
    int at = 0;
    for (int e = 0; e < p.local_experts; ++e) {
      offset[e] = at;
      at += ceil_div(count[e], p.tile_m) * p.tile_m;
    }
    offset[p.local_experts] = at;
    o.invalid_ids[0] = invalid[0];
  }
  __syncthreads();
  for (int e = tid; e < p.local_experts; e += 64 * Waves) o.counts[e] = count[e], o.offsets[e] = offset[e];
  if (tid == 0) o.offsets[p.local_experts] = offset[p.local_experts];
  // 3. Rows, in slot order inside each expert.
  for (int e = wave; e < p.local_experts; e += Waves) {
    int placed = 0;
    for (int base = 0; base < slots; base += 64) {
      const int s = base + lane;
      const bool mine = s < slots && ids[s] == p.expert_begin + e;
      const std::uint64_t match = __ballot(mine);
      if (mine) {
        const int row = offset[e] + placed + __builtin_popcountll(match & below);
        o.sorted_slots[row] = s, o.sorted_tokens[row] = s / p.top_k, o.row_index[row] = row, o.inverse[s] = row;
      }
      placed += __builtin_popcountll(match);
    }
    for (int row = offset[e] + placed + lane; row < offset[e + 1]; row += 64)
      o.sorted_slots[row] = -1, o.sorted_tokens[row] = -1, o.row_index[row] = -1;
  }
  const int used = offset[p.local_experts];
  for (int row = used + tid; row < cap.rows; row += 64 * Waves)
    o.sorted_slots[row] = -1, o.sorted_tokens[row] = -1, o.row_index[row] = -1;
  for (int s = tid; s < slots; s += 64 * Waves)
    if (ids[s] < p.expert_begin || ids[s] >= p.expert_begin + p.local_experts) o.inverse[s] = -1;
  for (int tile = tid; tile < cap.tiles; tile += 64 * Waves) {
    const int row = tile * p.tile_m;
    int expert = -1;
    if (row < used) {  // the last expert whose first row is at or before this tile's
      int lo = 0, hi = p.local_experts - 1;
      while (lo < hi) {
        const int mid = (lo + hi + 1) / 2;
        if (offset[mid] <= row)
          lo = mid;
        else
          hi = mid - 1;
      }
      expert = lo;
    }
    o.tile_expert[tile] = expert;
  }
}

// Validates, then launches the sort on `stream`. No host synchronisation.
inline status sort(const sort_problem& p, const int* ids, const sort_outputs& o, hipStream_t stream) {
  if (status s = validate_sort(p, ids, o); !s.ok()) return s;
  hipLaunchKernelGGL(moe_sort_kernel<sort_waves>, dim3(1), dim3(64 * sort_waves), 0, stream, p, capacity(p), ids, o);
  if (hipError_t e = hipGetLastError(); e != hipSuccess)
    return {status_code::launch_failed, "moe sort " + p.str() + ": " + hipGetErrorString(e)};
  return status::success();
}

}  // namespace wavekit::ops::moe
