// How an MLA decode call splits its KV rows (flash decoding), asked on the host before launching
// (plain C++, no HIP), with the kernel config it launches. Each sequence's rows are cut into chunks of `chunk` rows,
// one workgroup per (sequence, chunk) computing every head and query row of the sequence over its chunk (so each KV row
// is read once for all heads); where a sequence has more than one chunk, the workgroups write partial outputs with
// their log-sum-exp and a reduce merges them (block/lse_merge.hpp). With one chunk per sequence the decode kernel
// writes the output itself and no reduce runs.
//
// The heuristic, from the batch, the KV lengths, the heads and the device's CUs:
//   - a split must read at least 8x the bytes it costs besides its KV rows (its queries, read by
//     every split, and its partial output: H x 512 fp32 values written once and read once by the
//     reduce, for each query row), so that splitting adds well under a tenth to the bytes read:
//     min_chunk rows, which grows with H (about 37 H rows);
//   - beyond that, aim for two workgroups per CU over the whole batch: chunk = the batch's KV rows
//     / (2 x CUs), so a large batch of short sequences is not split at all;
//   - chunks are whole KV tiles of the kernel, and at most max_splits of them per sequence (the
//     partial buffers are sized by it; the longest sequence decides).
// The plan depends on the lengths only through these figures: a captured launch stays valid for
// other lengths as long as every sequence fits in max_splits chunks (plan::covers). What else it
// was chosen for (the cache's element bytes, the heads, the device's CUs) it records, and a launch
// with another cache type, heads or device is refused (check_plan, check_plan_device): such a plan
// would still compute the right output, with splits sized for another problem.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

#include "wavekit/arch/device_facts.hpp"
#include "wavekit/core/status.hpp"
#include "wavekit/ops/mla_decode/configs.hpp"
#include "wavekit/ops/mla_decode/problem.hpp"

namespace wavekit::ops::mla_decode {

inline constexpr int max_splits = 64;

struct split_plan {
  int chunk = 1;   // KV rows per split (a multiple of the kernel's KV tile)
  int splits = 1;  // splits of the longest sequence: the grid's split extent
  // What choose_splits sized the chunk for, besides the lengths. A plan written by hand ({chunk,
  // splits}) leaves them 0: it states its own chunk and serves any cache, heads and device.
  int kv_element_bytes = 0;  // the cache's elements: 2 bf16, 1 fp8
  int heads = 0;             // the problem's query heads
  int compute_units = 0;     // the device's CUs
  bool reduce() const { return splits > 1; }
  int splits_of(int kv_len) const {
    return kv_len <= chunk ? 1 : static_cast<int>((std::int64_t{kv_len} + chunk - 1) / chunk);
  }
  // Whether this plan serves sequences of kv_len rows.
  bool covers(int kv_len) const { return splits_of(kv_len) <= splits; }
};

// KV rows a split reads at least, so that its queries (bf16) and its partial output (written and
// read back, fp32) cost at most an eighth of its KV bytes (rows of 576 elements of kv_element_bytes:
// 2 for bf16, 1 for fp8): rounded up to whole KV tiles.
inline int min_chunk(int heads, int q_rows_per_sequence, int kv_tile, int kv_element_bytes = 2) {
  const double split_bytes = double(heads) * q_rows_per_sequence * (2.0 * (v_dim + 1) * 4 + qk_dim * 2);
  const int rows = static_cast<int>(8.0 * split_bytes / (qk_dim * kv_element_bytes) + 0.999999);
  return std::max(kv_tile, (rows + kv_tile - 1) / kv_tile * kv_tile);
}

// The split plan for sequences s on a device with the given facts; the sequences must be valid
// (validate_sequences).
inline split_plan choose_splits(const problem& p, const sequences_view& s, const arch::device_facts& device,
                                int kv_tile, int kv_element_bytes = 2) {
  long total = 0;
  int longest = 0, max_q = 1;
  for (int b = 0; b < p.batch; ++b) {
    total += s.kv_len(b), longest = std::max(longest, s.kv_len(b));
    max_q = std::max(max_q, s.qo_indptr[b + 1] - s.qo_indptr[b]);
  }
  split_plan plan;
  const long workgroups = 2L * device.compute_units;
  const long per_workgroup = (total + workgroups - 1) / workgroups;
  long chunk = std::max<long>(min_chunk(p.heads, max_q, kv_tile, kv_element_bytes),
                              (per_workgroup + kv_tile - 1) / kv_tile * kv_tile);
  chunk = std::max<long>(chunk, ((longest + max_splits - 1) / max_splits + kv_tile - 1) / kv_tile * kv_tile);
  plan.chunk = static_cast<int>(std::max<long>(chunk, kv_tile));
  plan.splits = plan.splits_of(longest);
  plan.kv_element_bytes = kv_element_bytes, plan.heads = p.heads, plan.compute_units = device.compute_units;
  return plan;
}

namespace detail {
inline std::string a_cache_of(int element_bytes) {
  return element_bytes == 2   ? "a bf16 cache"
         : element_bytes == 1 ? "an fp8 cache"
                              : "a cache of " + std::to_string(element_bytes) + "-byte elements";
}
}  // namespace detail

// The plan rules of a launch reading a cache of kv_element_bytes elements: chunks of whole 32-row
// KV tiles, 1 to max_splits splits, and a chosen plan used with the cache type and heads it was
// chosen for (a hand-written plan's are 0: any).
inline status check_plan(const problem& p, const split_plan& plan, int kv_element_bytes) {
  const auto what = lazy([&] { return "mla_decode " + p.str() + ": "; });
  if (plan.chunk < 32 || plan.chunk % 32 || plan.splits < 1 || plan.splits > max_splits)
    return {status_code::bad_config, what + "the split plan needs a chunk of whole 32-row KV tiles and 1 to " +
                                         std::to_string(max_splits) + " splits"};
  if (plan.kv_element_bytes != 0 && plan.kv_element_bytes != kv_element_bytes)
    return {status_code::bad_config,
            what + "argument plan was chosen for " + detail::a_cache_of(plan.kv_element_bytes) +
                " and this call reads " + detail::a_cache_of(kv_element_bytes) +
                " (a split's rows are sized by a row's bytes): plan with mla_decode_plan<KV> of the cache's type"};
  if (plan.heads != 0 && plan.heads != p.heads)
    return {status_code::bad_config, what + "argument plan was chosen for " + std::to_string(plan.heads) +
                                         " heads and this problem has " + std::to_string(p.heads) +
                                         " (a split's least rows grow with the heads): plan for this problem"};
  return status::success();
}

// The device rule: a chosen plan runs on a device of the CU count it was chosen for (its chunks
// aim at two workgroups a CU). device: where the launch runs, named `device_name` in the status.
inline status check_plan_device(const problem& p, const split_plan& plan, const arch::device_facts& device,
                                const std::string& device_name) {
  if (plan.compute_units == 0 || plan.compute_units == device.compute_units) return status::success();
  return {status_code::bad_config, "mla_decode " + p.str() + ": argument plan was chosen for a device of " +
                                       std::to_string(plan.compute_units) + " CUs and this " + device_name + " has " +
                                       std::to_string(device.compute_units) +
                                       " (chunks aim at two workgroups a CU): plan on the device that runs it"};
}

// The config for a problem: the fewest rows a workgroup that still holds every sequence's (query
// row, head) rows, so that each KV row is read once (a sequence with more than 128 rows takes
// several workgroups, each reading its KV rows).
inline config_id choose_config(const problem& p, const sequences_view& s) {
  int max_rows = 0;
  for (int b = 0; b < p.batch; ++b) max_rows = std::max(max_rows, (s.qo_indptr[b + 1] - s.qo_indptr[b]) * p.heads);
  return max_rows <= config_rows64::rows ? config_id::rows64 : config_id::rows128;
}

}  // namespace wavekit::ops::mla_decode
