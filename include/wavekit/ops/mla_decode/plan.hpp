// How an MLA decode call splits its KV rows (flash decoding), asked on the host before launching
// (plain C++, no HIP), with the kernel config it launches. Each sequence's rows are cut into chunks of `chunk` rows,
// one workgroup per (sequence, chunk) computing every head and query row of the sequence over its chunk (so each KV row
// is read once for all heads); where a sequence has more than one chunk, the workgroups write partial outputs with
// their log-sum-exp and a reduce merges them (block/lse_merge.hpp). With one chunk per sequence the decode kernel
// writes the output itself and no reduce runs.
//
// The chunk comes from the performance model (model.hpp, choose_splits): it weighs what a split
// costs (its queries read again, its fp32 partials written and read back, the reduce's launch)
// against the workgroups it supplies, and among chunks it cannot tell apart keeps the most waves
// in flight. Chunks are whole KV tiles of the kernel, at most max_splits of them per sequence (the
// partial buffers are sized by it; the longest sequence decides).
// The plan depends on the lengths only through these figures: a captured launch stays valid for
// other lengths as long as every sequence fits in max_splits chunks (plan::covers). What else it
// was chosen for (the cache's element bytes, the heads, the device's CUs) it records, and a launch
// with another cache type, heads or device is refused (check_plan, check_plan_device): such a plan
// would still compute the right output, with splits sized for another problem.
//
// Or the balanced schedule (workers > 0,
// balanced_split.hpp): resident workers sharing the batch's KV tiles evenly, listed on the device
// from the lengths, a sequence cut between workers merged by the last of them; it serves any
// lengths (covers), and model.hpp's choose_plan weighs it against the best chunk.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>

#include "wavekit/arch/device_facts.hpp"
#include "wavekit/core/status.hpp"
#include "wavekit/ops/mla_decode/balanced_split.hpp"
#include "wavekit/ops/mla_decode/configs.hpp"
#include "wavekit/ops/mla_decode/problem.hpp"

namespace wavekit::ops::mla_decode {

inline constexpr int max_splits = 64;
// Splits (or balanced pieces) whose loads the LSE merge has in flight at once
// (block::lse_merge::in_flight; reduce_kernel.hpp checks they agree): a pass of the merge's loop.
inline constexpr int merge_splits_in_flight = 4;

struct split_plan {
  int chunk = 1;   // KV rows per split (a multiple of the kernel's KV tile)
  int splits = 1;  // splits of the longest sequence: the grid's split extent
  // What choose_splits (model.hpp) sized the chunk for, besides the lengths. A plan written by hand ({chunk,
  // splits}) leaves them 0: it states its own chunk and serves any cache, heads and device.
  int kv_element_bits = 0;  // the cache's values: 16 bf16, 8 fp8, 4 MXFP4 (kv_bits_of)
  int heads = 0;            // the problem's query heads
  int compute_units = 0;    // the device's CUs
  // 0: the grid of chunks above. > 0: the balanced schedule instead (balanced_split.hpp): this
  // many resident workgroups share the batch's KV tiles evenly, a sequence cut between workers
  // merged by the last of them (no reduce launch); chunk and splits are then 32 and 1
  // (balanced_over).
  int workers = 0;
  static split_plan balanced_over(int workers) {
    split_plan plan;
    plan.chunk = 32, plan.workers = workers;
    return plan;
  }
  bool balanced() const { return workers > 0; }
  bool reduce() const { return splits > 1; }  // a reduce launch after the decode (the grid of chunks)
  int splits_of(int kv_len) const {
    return kv_len <= chunk ? 1 : static_cast<int>((std::int64_t{kv_len} + chunk - 1) / chunk);
  }
  // Whether this plan serves sequences of kv_len rows (a balanced one: any).
  bool covers(int kv_len) const { return balanced() || splits_of(kv_len) <= splits; }
};

namespace detail {
inline std::string a_cache_of(int element_bits) {
  return element_bits == 16  ? "a bf16 cache"
         : element_bits == 8 ? "an fp8 cache"
         : element_bits == 4 ? "an MXFP4 cache"
                             : "a cache of " + std::to_string(element_bits) + "-bit values";
}
}  // namespace detail

// The plan rules of a launch reading a cache of kv_element_bits values: chunks of whole 32-row
// KV tiles, 1 to max_splits splits, and a chosen plan used with the cache type and heads it was
// chosen for (a hand-written plan's are 0: any).
inline status check_plan(const problem& p, const split_plan& plan, int kv_element_bits) {
  const auto what = lazy([&] { return "mla_decode " + p.str() + ": "; });
  if (plan.chunk < 32 || plan.chunk % 32 || plan.splits < 1 || plan.splits > max_splits)
    return {status_code::bad_config, what + "the split plan needs a chunk of whole 32-row KV tiles and 1 to " +
                                         std::to_string(max_splits) + " splits"};
  if (std::int64_t{plan.chunk} * plan.splits > std::numeric_limits<std::int32_t>::max())
    return {status_code::bad_config, what + "the split plan's chunk * splits must stay below 2^31 (KV row indices)"};
  if (plan.workers < 0 || plan.workers > max_workers || (plan.workers > 0 && (plan.chunk != 32 || plan.splits != 1)))
    return {status_code::bad_config, what + "a balanced plan has 1 to " + std::to_string(max_workers) +
                                         " workers, chunk 32 and 1 split (workers 0: the grid of chunks)"};
  if (plan.kv_element_bits != 0 && plan.kv_element_bits != kv_element_bits)
    return {status_code::bad_config,
            what + "argument plan was chosen for " + detail::a_cache_of(plan.kv_element_bits) +
                " and this call reads " + detail::a_cache_of(kv_element_bits) +
                " (a split's rows are sized by a row's bytes): plan with mla_decode_plan<KV> of the cache's type"};
  if (plan.heads != 0 && plan.heads != p.heads)
    return {status_code::bad_config, what + "argument plan was chosen for " + std::to_string(plan.heads) +
                                         " heads and this problem has " + std::to_string(p.heads) +
                                         " (a split's least rows grow with the heads): plan for this problem"};
  return status::success();
}

// The device rule: a chosen plan runs on a device of the CU count it was chosen for (its chunks
// are sized for that many CUs). device: where the launch runs, named `device_name` in the status.
inline status check_plan_device(const problem& p, const split_plan& plan, const arch::device_facts& device,
                                const std::string& device_name) {
  if (plan.compute_units == 0 || plan.compute_units == device.compute_units) return status::success();
  return {status_code::bad_config, "mla_decode " + p.str() + ": argument plan was chosen for a device of " +
                                       std::to_string(plan.compute_units) + " CUs and this " + device_name + " has " +
                                       std::to_string(device.compute_units) +
                                       " (chunks are sized for the CUs): plan on the device that runs it"};
}

// The config for a problem: the fewest rows a workgroup that still holds every sequence's (query
// row, head) rows, so that each KV row is read once (a sequence with more than 128 rows takes
// several workgroups, each reading its KV rows). Up to 16 rows, rows16's four waves share them, and
// up to 32 rows32's two groups of four (every SIMD busy, where rows64 would leave waves without
// rows).
inline config_id choose_config(const problem& p, const sequences_view& s) {
  int max_rows = 0;
  for (int b = 0; b < p.batch; ++b) max_rows = std::max(max_rows, (s.qo_indptr[b + 1] - s.qo_indptr[b]) * p.heads);
  return max_rows <= config_rows16::rows   ? config_id::rows16
         : max_rows <= config_rows32::rows ? config_id::rows32
         : max_rows <= config_rows64::rows ? config_id::rows64
                                           : config_id::rows128;
}

// A shipped config's sizes, for host code that has its id.
struct config_sizes {
  int waves, rows, kv_tile, k_ways;
};
inline config_sizes sizes_of(config_id id) {
  return with_config(id, [](auto c) {
    using C = decltype(c);
    return config_sizes{C::waves, C::rows, C::kv_tile, C::k_ways};
  });
}

// The batch's units (balanced_split.hpp) for a config of `rows` rows a workgroup and kv_tile-row
// tiles, in 64 bits: a balanced plan needs them in 32 (validate_args refuses more).
inline std::int64_t batch_units(const problem& p, const sequences_view& s, int rows, int kv_tile) {
  std::int64_t units = 0;
  for (int b = 0; b < p.batch; ++b)
    units += units_of(std::int64_t{s.qo_indptr[b + 1] - s.qo_indptr[b]} * p.heads, rows, s.kv_len(b), kv_tile);
  return units;
}

}  // namespace wavekit::ops::mla_decode
