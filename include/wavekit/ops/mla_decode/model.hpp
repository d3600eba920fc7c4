// The performance model's view of an MLA decode call (planning/model/launch_time.hpp): the decode kernel over
// (row groups, splits, sequences), each workgroup reading its chunk of KV rows once for all heads
// (the hot loop is one 32-row KV tile), and with more than one split the LSE reduce; and the split
// plan the model chooses, which the launch takes (mla_decode_plan).
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "wavekit/arch/target.hpp"
#include "wavekit/ops/mla_decode/balanced_split.hpp"
#include "wavekit/ops/mla_decode/configs.hpp"
#include "wavekit/ops/mla_decode/plan.hpp"
#include "wavekit/ops/mla_decode/problem.hpp"
#include "wavekit/planning/model/launch_time.hpp"
#include "wavekit/planning/model/plan_choice.hpp"
#include "wavekit/planning/model/profiles.hpp"

namespace wavekit::ops::mla_decode {

// What a balanced plan does (balanced_split.hpp), counted run by run: the units, the segments
// (each loads its row group's queries), the cut runs, their pieces (fp32 partials written, read
// back by the merge) and the most pieces one run has.
struct balanced_figures {
  double units = 0, segments = 0, cut_runs = 0, piece_rows = 0, most_pieces = 0, q_loaded_rows = 0, kv_rows = 0;
};

inline balanced_figures balanced_count(const problem& p, const sequences_view& s, int group_rows, int kv_tile,
                                       int workers) {
  balanced_figures f;
  const std::int64_t units = batch_units(p, s, group_rows, kv_tile);
  f.units = double(units);
  if (units == 0 || units > std::numeric_limits<std::int32_t>::max()) return f;
  const balanced_split cut{static_cast<int>(units), static_cast<int>(std::min<std::int64_t>(workers, units))};
  int run_first = 0;
  for (int b = 0; b < p.batch; ++b) {
    const int rows = (s.qo_indptr[b + 1] - s.qo_indptr[b]) * p.heads, len = s.kv_len(b);
    const int tiles = static_cast<int>(units_of(1, 1, len, kv_tile));
    for (int row0 = 0; row0 < rows; row0 += group_rows, run_first += tiles) {
      const double group = std::min(group_rows, rows - row0);
      const int pieces = cut.worker_of(run_first + tiles - 1) - cut.worker_of(run_first) + 1;
      f.segments += pieces, f.q_loaded_rows += pieces * group, f.kv_rows += len;
      if (pieces > 1) f.cut_runs += 1, f.piece_rows += pieces * group;
      f.most_pieces = std::max<double>(f.most_pieces, pieces);
    }
  }
  return f;
}

// The launches of a balanced plan: the schedule kernel (one wave; no codegen figures: its cost is
// the launch), the workers over their equal shares of the units (each segment loads its queries
// again; a cut run's pieces write fp32 partials), and the merges of the cut runs as a tail of that
// launch: the run with the most pieces merged by one workgroup after the loop (the reduce
// kernel's loop: merge_splits_in_flight pieces a pass, for each of the rows its threads merge
// at once).
inline std::vector<planning::launch_work> balanced_launches(const problem& p, const sequences_view& s, arch::target t,
                                                            const split_plan& plan, int kv_bits, int q_bits,
                                                            const std::string& kernel_args, double lds_bytes_per_tile) {
  const auto [waves, rows, kv_tile, k_ways] = sizes_of(choose_config(p, s));
  const balanced_figures f = balanced_count(p, s, rows, kv_tile, plan.workers);
  const double partial_bytes = f.piece_rows * (v_dim + 1) * 4.0;
  planning::launch_work schedule;
  schedule.what = "balanced schedule";
  schedule.workgroups = 1;
  schedule.loaded_bytes = schedule.dram_read_bytes = p.batch * 12.0;
  schedule.written_bytes = (p.batch + 1.0 + plan.workers) * 4.0;
  planning::launch_work w;
  w.profile = planning::find_profile(t, planning::family_named("mla_decode_balanced"),
                                     "mla_decode_balanced_kernel" + kernel_args);
  w.what = "decode, " + std::to_string(plan.workers) + " balanced workers";
  w.waves_per_workgroup = waves;
  w.workgroups = std::min<double>(plan.workers, std::max(1.0, f.units));
  w.loop_iterations_per_wave = std::ceil(f.units / plan.workers);
  w.lds_bytes_per_workgroup = w.loop_iterations_per_wave * lds_bytes_per_tile;
  const double q_row_bytes = qk_dim * q_bits / 8.0;
  w.loaded_bytes = f.kv_rows * kv_row_bytes(kv_bits) + f.q_loaded_rows * q_row_bytes + f.segments * 32.0;
  w.dram_read_bytes = f.kv_rows * kv_row_bytes(kv_bits) + s.q_rows() * double(p.heads) * q_row_bytes;
  w.written_bytes = s.q_rows() * double(p.heads) * v_dim * 2.0 + partial_bytes;
  std::vector<planning::launch_work> out{schedule, w};
  if (f.cut_runs > 0) {
    planning::launch_work m;
    m.profile = planning::find_profile(t, planning::family_named("mla_decode_reduce"), "mla_reduce_kernel<bf16");
    m.what = "merge of the cut runs";
    m.phase_of_previous = true;
    m.workgroups = f.cut_runs;
    m.waves_per_workgroup = waves;
    m.loop_iterations_per_wave =
        std::ceil(f.most_pieces / merge_splits_in_flight) * std::ceil(rows / (waves * 64.0 / (v_dim / 4)));
    m.loaded_bytes = m.dram_read_bytes = partial_bytes;
    out.push_back(m);
  }
  return out;
}

// The launches of split plan `plan`. kv_bits: 16 (bf16 cache), 8 (fp8: e4m3fnuz on gfx942, e4m3fn
// on gfx950) or 4 (MXFP4, gfx950: its block scales counted in a row's bytes); q_bits: 16 (bf16
// queries) or 8 (the cache's fp8 format; over an fp8 cache, the kernel's fp8 products).
inline std::vector<planning::launch_work> model_launches(const problem& p, const sequences_view& s, int kv_bits,
                                                         arch::target t, const split_plan& plan, int q_bits = 16) {
  const config_id id = choose_config(p, s);
  const auto [waves, rows, kv_tile, k_ways] = sizes_of(id);
  const std::string fp8 = t == arch::target::gfx950 ? "e4m3fn" : "e4m3fnuz";
  const std::string kv = kv_bits == 16 ? "bf16" : kv_bits == 4 ? "fp4x2_e2m1" : fp8;
  const bool fp8_products = kv_bits == 8 && q_bits == 8;
  const double q_element_bytes = q_bits / 8.0;
  const double row_bytes = kv_row_bytes(kv_bits);
  const std::string kernel_args =
      "<config<" + std::to_string(waves) + ", 32, " + std::to_string(k_ways) + ">, " + kv + ", ";
  const std::string q_type = (q_bits == 16 ? std::string("bf16") : fp8) + ">";
  // The tile is bf16 in LDS (a narrower cache widened on its way), or with fp8 products fp8, whose
  // V columns are transposed once into V^T (read, written) and V^T read by every row group.
  const double groups = double(waves) / k_ways;
  const double lds_bytes_per_tile = fp8_products ? kv_tile * (qk_dim * (1.0 + groups) + v_dim * (2.0 + groups))
                                                 : kv_tile * qk_dim * 2.0 * (1.0 + groups);
  const double out_bytes = s.q_rows() * double(p.heads) * v_dim * 2.0;
  if (plan.balanced())
    return balanced_launches(p, s, t, plan, kv_bits, q_bits, kernel_args + q_type, lds_bytes_per_tile);
  planning::launch_work w;
  w.profile =
      planning::find_profile(t, planning::family_named("mla_decode"), "mla_decode_kernel" + kernel_args, q_type);
  w.what = "decode, " + std::to_string(plan.splits) + " KV splits";
  w.waves_per_workgroup = waves;
  double kv_rows = 0, q_rows = 0, workgroups = 0, partial_rows = 0, q_loaded = 0;
  int longest_chunk = 0;
  for (int b = 0; b < p.batch; ++b) {
    const int len = s.kv_len(b), q = s.qo_indptr[b + 1] - s.qo_indptr[b];
    const double row_groups = std::ceil(double(q) * p.heads / rows), splits = plan.splits_of(len);
    kv_rows += len * row_groups, q_rows += q, workgroups += row_groups * splits;
    q_loaded += splits * q * p.heads * qk_dim * q_element_bytes;  // every split reads its sequence's queries
    partial_rows += plan.reduce() ? double(q) * p.heads * splits : 0;
    longest_chunk = std::max(longest_chunk, std::min(plan.chunk, len));
  }
  w.workgroups = workgroups;
  // A workgroup's KV tiles (the longest chunk), each written to LDS and read by every group of
  // rows (each wave of the row configs; the waves of a k_ways config share one reading).
  w.loop_iterations_per_wave = std::ceil(double(longest_chunk) / kv_tile);
  w.lds_bytes_per_workgroup = w.loop_iterations_per_wave * lds_bytes_per_tile;
  const double q_bytes = q_rows * p.heads * qk_dim * q_element_bytes;
  w.loaded_bytes = kv_rows * row_bytes + q_loaded;
  w.dram_read_bytes = kv_rows * row_bytes + q_bytes;
  w.written_bytes = plan.reduce() ? partial_rows * (v_dim + 1) * 4.0 : out_bytes;
  std::vector<planning::launch_work> out{w};
  if (plan.reduce()) {
    planning::launch_work r;
    r.profile = planning::find_profile(t, planning::family_named("mla_decode_reduce"), "mla_reduce_kernel<bf16");
    r.what = "LSE reduce";
    r.workgroups = q_rows * p.heads;
    r.waves_per_workgroup = 2;  // v_dim / 4 threads
    r.loop_iterations_per_wave = std::ceil(double(plan.splits) / merge_splits_in_flight);
    r.loaded_bytes = r.dram_read_bytes = partial_rows * (v_dim + 1) * 4.0;
    r.written_bytes = out_bytes;
    out.push_back(r);
  }
  return out;
}

// The bytes a split plan reads beyond the KV rows, queries and outputs once: each further split
// reads its sequence's queries again, and the reduce reads back the fp32 partials with their LSE.
// The model weighs them (model_launches counts them); the traffic tests check the emulator's count
// against them.
inline double split_extra_read_bytes(const problem& p, const sequences_view& s, const split_plan& plan,
                                     int q_bits = 16) {
  if (plan.balanced()) {
    // A segment past a run's first reads the run's queries again; the merges read the cut runs'
    // pieces back; the workers read their segment list (the schedule kernel's reads of the tables,
    // a few words a sequence, are left out).
    const config_sizes c = sizes_of(choose_config(p, s));
    const balanced_figures f = balanced_count(p, s, c.rows, c.kv_tile, plan.workers);
    return (f.q_loaded_rows - s.q_rows() * double(p.heads)) * qk_dim * q_bits / 8.0 + f.piece_rows * (v_dim + 1) * 4.0 +
           f.segments * 32.0 + plan.workers * 8.0;
  }
  double extra = 0;
  for (int b = 0; b < p.batch; ++b) {
    const double q = double(s.qo_indptr[b + 1] - s.qo_indptr[b]) * p.heads, splits = plan.splits_of(s.kv_len(b));
    if (splits > 1) extra += (splits - 1) * q * qk_dim * q_bits / 8.0 + splits * q * (v_dim + 1) * 4.0;
  }
  return extra;
}

// The split plan for sequences s (valid: validate_sequences) on a device of target `device`: the
// chunk the performance model chooses (planning/model/plan_choice.hpp: among the chunks within the model's
// error of the fastest, the one keeping the most waves in flight). The candidates cut the longest
// sequence into 1 to max_splits chunks of whole KV tiles; the model weighs what a split adds (its
// queries read again, fp32 partials the reduce reads back: split_extra_read_bytes; the reduce's
// launch) against the workgroups it supplies.
inline split_plan choose_splits(const problem& p, const sequences_view& s, arch::target device,
                                int kv_element_bits = 16, int q_bits = 16) {
  // A device that is neither target (the host) plans as gfx942, as its device facts do.
  const arch::target t = device == arch::target::gfx950 ? device : arch::target::gfx942;
  const int kv_tile = with_config(choose_config(p, s), [](auto c) { return decltype(c)::kv_tile; });
  int longest = 0;
  for (int b = 0; b < p.batch; ++b) longest = std::max(longest, s.kv_len(b));
  std::vector<planning::scored_plan<split_plan>> candidates;
  int last_chunk = -1;
  for (int n = 1; n <= max_splits; ++n) {  // every cut (distinct chunks): the model's time is cheap
    const long rows = (std::max(longest, 1) + n - 1L) / n;
    split_plan plan;
    plan.chunk = static_cast<int>(std::max<long>(kv_tile, (rows + kv_tile - 1) / kv_tile * kv_tile));
    plan.splits = plan.splits_of(longest);
    if (plan.chunk == last_chunk || plan.splits > max_splits) continue;
    last_chunk = plan.chunk;
    plan.kv_element_bits = kv_element_bits, plan.heads = p.heads, plan.compute_units = arch::facts_for(t).compute_units;
    candidates.push_back(
        planning::score(plan, planning::predict(model_launches(p, s, kv_element_bits, t, plan, q_bits), t)));
  }
  return planning::choose_within_model_error(candidates);
}

// The plan a launch takes (mla_decode_plan): the grid of chunks choose_splits picks, or the balanced
// schedule over 1/4 to 4 workers a CU (at most one a unit, at most max_workers), as the model
// weighs them (among plans within its error of the fastest, the most robust:
// planning/model/plan_choice.hpp). The balanced schedule pays its schedule launch and its merges'
// tail; it gains where lengths differ (the grid's chunks are sized by the longest sequence) and
// where a reduce launch is saved.
inline split_plan choose_plan(const problem& p, const sequences_view& s, arch::target device, int kv_element_bits = 16,
                              int q_bits = 16) {
  const arch::target t = device == arch::target::gfx950 ? device : arch::target::gfx942;
  const split_plan grid = choose_splits(p, s, t, kv_element_bits, q_bits);
  std::vector<planning::scored_plan<split_plan>> candidates{
      planning::score(grid, planning::predict(model_launches(p, s, kv_element_bits, t, grid, q_bits), t))};
  const config_id id = choose_config(p, s);
  const config_sizes c = sizes_of(id);
  const double units = double(batch_units(p, s, c.rows, c.kv_tile));
  if (units < 1 || units > std::numeric_limits<std::int32_t>::max()) return grid;
  const int cus = arch::facts_for(t).compute_units;
  int last = 0;
  for (int quarters : {1, 2, 4, 8, 12, 16}) {
    const int workers = static_cast<int>(std::min<double>({double(cus) * quarters / 4, units, double(max_workers)}));
    if (workers < 1 || workers == last) continue;
    last = workers;
    split_plan plan = split_plan::balanced_over(workers);
    plan.kv_element_bits = kv_element_bits, plan.heads = p.heads, plan.compute_units = cus;
    candidates.push_back(
        planning::score(plan, planning::predict(model_launches(p, s, kv_element_bits, t, plan, q_bits), t)));
  }
  return planning::choose_within_model_error(candidates);
}

inline std::vector<planning::launch_work> model_launches(const problem& p, const sequences_view& s, int kv_bits,
                                                         arch::target t, int q_bits = 16) {
  return model_launches(p, s, kv_bits, t, choose_plan(p, s, t, kv_bits, q_bits), q_bits);
}

inline planning::op_time model_time(const problem& p, const sequences_view& s, int kv_bits, arch::target t,
                                    int q_bits = 16) {
  return planning::predict(model_launches(p, s, kv_bits, t, q_bits), t);
}

}  // namespace wavekit::ops::mla_decode
