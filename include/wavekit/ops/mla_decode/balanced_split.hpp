// MLA decode's balanced schedule (a split plan with workers > 0, ops/mla_decode/plan.hpp): a fixed
// number of workgroups, the workers, stay resident and share the batch's work evenly whatever the
// sequences' lengths (stream-K's cut, applied to flash decoding). Plain C++, host and device.
//
// The work is counted in units: one KV tile (kv_tile rows) of one row group (a config's `rows`
// (query row, head) rows) of a sequence. A sequence of q_len * heads rows in G groups and kv_len
// KV rows has G * max(1, ceil(kv_len / kv_tile)) units (a sequence without KV rows keeps one unit:
// its rows get zeros and lse = -inf). Units are numbered sequence by sequence, then group by group
// (a group's units are a run), then tile by tile, and the U units of the batch are cut into W
// ranges of floor or ceil(U / W) (W at most U: the plan's workers past U stay idle): worker w takes
// units [begin(w), begin(w + 1)), begin(w) = floor(w U / W), one segment for each run its range
// meets.
//
// A run wholly inside one worker's range is a whole segment: that worker writes its output. A run
// cut between workers w0 .. w1 leaves a piece in each, its fp32 partial output and LSE: piece k
// (worker w0 + k) in partial slot 2 (w0 + k) + (k == 0) (a worker holds at most one run's head,
// its last segment, and one run's tail or middle, its first), and the worker finishing last,
// counted by the run's counter (counters[w0]), merges the pieces in worker order
// (block/lse_merge.hpp), so the result does not depend on which worker finishes last.
//
// The schedule kernel (schedule_kernel.hpp) lists every worker's segments from the device copies
// of the tables, once per step (every layer's launch reads the list): the workers' loop reads a
// segment and runs it, nothing more.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <cstdint>

#include "wavekit/core/platform.hpp"

namespace wavekit::ops::mla_decode {

inline constexpr int max_workers = 1024;  // the partial slots and the merge's LDS are sized by it

// The units of a sequence with `rows` (query row, head) rows and kv_len KV rows, for a config of
// group_rows rows a workgroup and kv_tile-row tiles (64-bit: a caller's lengths never wrap).
WAVEKIT_HOST_DEVICE constexpr std::int64_t units_of(std::int64_t rows, int group_rows, std::int64_t kv_len,
                                                    int kv_tile) {
  const std::int64_t groups = (rows + group_rows - 1) / group_rows;
  const std::int64_t tiles = kv_len > kv_tile ? (kv_len + kv_tile - 1) / kv_tile : 1;
  return groups * tiles;
}

// The cut of `units` units over `workers` workers (units < 2^31, 1 <= workers <= units: no range
// empty, so the workers from worker_of(a run's first unit) to worker_of(its last) each hold a piece
// of it; a plan of more workers than units cuts over one a unit and leaves the rest idle).
struct balanced_split {
  int units, workers;
  // The first unit of worker w (w = workers: units).
  WAVEKIT_HOST_DEVICE constexpr int begin(int w) const { return static_cast<int>(std::int64_t{w} * units / workers); }
  // The worker whose range holds unit u: the last w with begin(w) <= u (a worker of an empty range
  // holds none).
  WAVEKIT_HOST_DEVICE constexpr int worker_of(int u) const {
    return static_cast<int>((std::int64_t{u + 1} * workers - 1) / units);
  }
};

// Worker `worker`'s segment of a run of `tiles` units from unit run_first, starting at unit
// `unit` (the run's first unit in the worker's range): its tiles [tile_begin, tile_end), whether it
// is the whole run, and where its piece goes if not (the partial slot, the run's first worker,
// whose counter counts its pieces, and how many pieces the run has).
struct segment {
  int tile_begin, tile_end;
  bool whole;
  int slot, first_worker, pieces;
};

WAVEKIT_HOST_DEVICE constexpr segment segment_at(const balanced_split& split, int worker, int unit, int run_first,
                                                 int tiles) {
  const int run_end = run_first + tiles, end = split.begin(worker + 1) < run_end ? split.begin(worker + 1) : run_end;
  segment s{unit - run_first, end - run_first, unit == run_first && end == run_end, 0, 0, 1};
  if (!s.whole) {
    s.first_worker = split.worker_of(run_first);
    s.pieces = split.worker_of(run_end - 1) - s.first_worker + 1;
    s.slot = 2 * worker + (worker == s.first_worker ? 1 : 0);
  }
  return s;
}

// The partial slot of piece k of a cut run whose first worker is w0.
WAVEKIT_HOST_DEVICE constexpr int piece_slot(int w0, int k) { return 2 * (w0 + k) + (k == 0 ? 1 : 0); }

// A segment as the schedule kernel lists it for the workers (32 bytes, two 16-byte loads): the
// sequence, the row group's first row, the KV rows [j_begin, j_end), and for a piece (slot >= 0;
// a whole run: -1) its slot, its run's first worker and pieces.
struct segment_entry {
  int sequence, row0, j_begin, j_end;
  int slot, first_worker, pieces, unused;
};
static_assert(sizeof(segment_entry) == 32);

// The segments the schedule lists at most: one per run and one more per worker (a worker's range
// starts inside at most one run it shares with the worker before it).
constexpr std::int64_t max_segments(std::int64_t runs, int workers) { return runs + workers; }

}  // namespace wavekit::ops::mla_decode
