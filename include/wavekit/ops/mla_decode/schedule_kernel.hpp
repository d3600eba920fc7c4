// MLA decode's balanced schedule on the device (ops/mla_decode/balanced_split.hpp), from the device
// copies of the tables: every worker's segments, listed in worker order (worker w's are entries
// segment_begin[w] .. segment_begin[w + 1] - 1), and the runs' counters zeroed. One wave, in three
// passes with a barrier between them (each reads what the one before wrote):
//   1. lanes over blocks of sequences: unit_begin[b] and run_begin[b], the units and the runs
//      (row groups) of sequences 0 .. b - 1, by a scan of the lanes' sums;
//   2. lanes over workers: the segments of each (the runs its range meets), scanned into
//      segment_begin;
//   3. lanes over workers: each writes its segments.
// A step's layers share it (args::schedule_ready): every merge leaves its counter at zero again.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <hip/hip_runtime.h>

#include <cstdint>

#include "wavekit/arch/codegen_targets.hpp"
#include "wavekit/ops/mla_decode/balanced_split.hpp"
#include "wavekit/ops/mla_decode/reduce_kernel.hpp"

namespace wavekit::ops::mla_decode {

struct schedule_params {
  const int* qo_indptr;  // [batch + 1]
  const int* kv_indptr;  // ragged: [batch + 1]; else null
  const int* kv_lens;    // paged: [batch]; else null
  int batch, heads;
  int group_rows, kv_tile;  // the decode config's rows a workgroup and KV tile
  int workers;
  int segment_capacity;     // entries `segments` holds (max_segments of the most runs the rows allow)
  int* unit_begin;          // [batch + 1]
  int* run_begin;           // [batch + 1]
  int* segment_begin;       // [workers + 1]
  int* counters;            // [workers]
  segment_entry* segments;  // [segment_capacity]
};

namespace detail {

// The inclusive sum over lanes 0 .. lane of `own` (every lane of the wave calls it).
template <int Lanes>
WAVEKIT_DEVICE WAVEKIT_FORCEINLINE int wave_inclusive_sum(int own, int lane) {
  int through = own;
#pragma unroll
  for (int d = 1; d < Lanes; d *= 2) {
    const int before = __shfl_up(through, static_cast<unsigned>(d));
    if (lane >= d) through += before;
  }
  return through;
}

}  // namespace detail

// Lanes: the wave's (a template, so that the header defines the kernel in every unit that includes it).
template <int Lanes = 64>
__global__ __launch_bounds__(Lanes) void mla_schedule_kernel(schedule_params p) {
  static_assert(Lanes == 64, "mla_schedule_kernel: one wave64");
  arch::declare_codegen_targets<0, 1>();
  const int lane = static_cast<int>(threadIdx.x);
  auto kv_len_of = [&](int b) { return p.kv_indptr ? p.kv_indptr[b + 1] - p.kv_indptr[b] : p.kv_lens[b]; };
  auto tiles_of = [&](int b) { return static_cast<int>(units_of(1, 1, kv_len_of(b), p.kv_tile)); };
  auto groups_of = [&](int b) {
    const std::int64_t rows = std::int64_t{p.qo_indptr[b + 1] - p.qo_indptr[b]} * p.heads;
    return static_cast<int>((rows + p.group_rows - 1) / p.group_rows);
  };
  // 1. The units' and the runs' prefixes (the host checked that the units fit 32 bits).
  {
    const int per_lane = (p.batch + Lanes - 1) / Lanes, first = lane * per_lane;
    const int last = first + per_lane < p.batch ? first + per_lane : p.batch;
    // Each sequence's units and runs left in its entries, then turned into the prefixes there (the
    // tables are read once: the lane's own stores are what it reads back).
    int units = 0, runs = 0;
    for (int b = first; b < last; ++b) {
      const int groups = groups_of(b), sequence_units = groups * tiles_of(b);
      p.unit_begin[b] = sequence_units, p.run_begin[b] = groups;
      units += sequence_units, runs += groups;
    }
    const int units_through = detail::wave_inclusive_sum<Lanes>(units, lane);
    const int runs_through = detail::wave_inclusive_sum<Lanes>(runs, lane);
    int unit_at = units_through - units, run_at = runs_through - runs;
    for (int b = first; b < last; ++b) {
      const int sequence_units = p.unit_begin[b], groups = p.run_begin[b];
      p.unit_begin[b] = unit_at, p.run_begin[b] = run_at;
      unit_at += sequence_units, run_at += groups;
    }
    if (lane == Lanes - 1) p.unit_begin[p.batch] = units_through, p.run_begin[p.batch] = runs_through;
  }
  __syncthreads();  // the prefixes written, for every lane to read
  // The cut over at most one worker a unit (balanced_split's rule: no worker's range empty, so a
  // cut run's pieces are the workers worker_of names); the workers past it get no segments.
  const int total = p.unit_begin[p.batch];
  const balanced_split cut{total, total < p.workers ? total : p.workers};
  // The run of unit u: its index, and its sequence.
  auto run_of = [&](int u, int& b) {
    b = sequence_of(p.unit_begin, p.batch, u);
    return p.run_begin[b] + (u - p.unit_begin[b]) / tiles_of(b);
  };
  auto segments_of = [&](int w) {
    if (w >= cut.workers) return 0;
    const int begin = cut.begin(w), end = cut.begin(w + 1);
    int b = 0;
    const int first = run_of(begin, b);
    return run_of(end - 1, b) - first + 1;
  };
  // 2. Every worker's segment count, scanned.
  const int per_lane = (p.workers + Lanes - 1) / Lanes, w_first = lane * per_lane;
  const int w_last = w_first + per_lane < p.workers ? w_first + per_lane : p.workers;
  {
    int own = 0;
    for (int w = w_first; w < w_last; ++w) {  // counted once, left in the entries as above
      const int segments = segments_of(w);
      p.segment_begin[w] = segments;
      own += segments;
    }
    const int through = detail::wave_inclusive_sum<Lanes>(own, lane);
    int at = through - own;
    for (int w = w_first; w < w_last; ++w) {
      const int segments = p.segment_begin[w];
      p.segment_begin[w] = at;
      at += segments;
      p.counters[w] = 0;
    }
    if (lane == Lanes - 1) p.segment_begin[p.workers] = through;
  }
  __syncthreads();
  // 3. The segments, worker by worker: the runs from the one holding the range's first unit.
  for (int w = w_first; w < (w_last < cut.workers ? w_last : cut.workers); ++w) {
    const int begin = cut.begin(w), end = cut.begin(w + 1);
    int at = p.segment_begin[w];
    for (int u = begin; u < end; ++at) {
      int b = 0;
      const int run = run_of(u, b), tiles = tiles_of(b);
      const int run_first = p.unit_begin[b] + (run - p.run_begin[b]) * tiles;
      const segment seg = segment_at(cut, w, u, run_first, tiles);
      const int kv_len = kv_len_of(b);
      const std::int64_t j_end = std::int64_t{seg.tile_end} * p.kv_tile;
      if (at < p.segment_capacity)
        p.segments[at] = segment_entry{b,
                                       (run - p.run_begin[b]) * p.group_rows,
                                       seg.tile_begin * p.kv_tile,
                                       j_end < kv_len ? static_cast<int>(j_end) : kv_len,
                                       seg.whole ? -1 : seg.slot,
                                       seg.first_worker,
                                       seg.pieces,
                                       0};
      u = run_first + seg.tile_end;
    }
  }
}

}  // namespace wavekit::ops::mla_decode
