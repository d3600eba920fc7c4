// The performance model's view of an MLA decode call (planning/model/launch_time.hpp): the decode kernel over
// (row groups, splits, sequences), each workgroup reading its chunk of KV rows once for all heads
// (the hot loop is one 32-row KV tile), and with more than one split the LSE reduce; and the split
// plan the model chooses, which the launch takes (mla_decode_plan).
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "wavekit/arch/target.hpp"
#include "wavekit/ops/mla_decode/configs.hpp"
#include "wavekit/ops/mla_decode/plan.hpp"
#include "wavekit/ops/mla_decode/problem.hpp"
#include "wavekit/planning/model/launch_time.hpp"
#include "wavekit/planning/model/plan_choice.hpp"
#include "wavekit/planning/model/profiles.hpp"

namespace wavekit::ops::mla_decode {

// The launches of split plan `plan`. kv_bits: 16 (bf16 cache), 8 (fp8: e4m3fnuz on gfx942, e4m3fn
// on gfx950) or 4 (MXFP4, gfx950: its block scales counted in a row's bytes); q_bits: 16 (bf16
// queries) or 8 (the cache's fp8 format; over an fp8 cache, the kernel's fp8 products).
inline std::vector<planning::launch_work> model_launches(const problem& p, const sequences_view& s, int kv_bits,
                                                         arch::target t, const split_plan& plan, int q_bits = 16) {
  const config_id id = choose_config(p, s);
  const int waves = with_config(id, [](auto c) { return decltype(c)::waves; });
  const int rows = with_config(id, [](auto c) { return decltype(c)::rows; });
  const int kv_tile = with_config(id, [](auto c) { return decltype(c)::kv_tile; });
  const int k_ways = with_config(id, [](auto c) { return decltype(c)::k_ways; });
  const std::string fp8 = t == arch::target::gfx950 ? "e4m3fn" : "e4m3fnuz";
  const std::string kv = kv_bits == 16 ? "bf16" : kv_bits == 4 ? "fp4x2_e2m1" : fp8;
  const bool fp8_products = kv_bits == 8 && q_bits == 8;
  const double q_element_bytes = q_bits / 8.0;
  const double row_bytes = kv_row_bytes(kv_bits);
  planning::launch_work w;
  w.profile = planning::find_profile(
      t, planning::family_named("mla_decode"),
      "mla_decode_kernel<config<" + std::to_string(waves) + ", 32, " + std::to_string(k_ways) + ">, " + kv,
      (q_bits == 16 ? std::string("bf16") : fp8) + ">");
  w.what = "decode, " + std::to_string(plan.splits) + " KV splits";
  w.waves_per_workgroup = waves;
  double kv_rows = 0, q_rows = 0, workgroups = 0, partial_rows = 0, q_loaded = 0;
  int longest_chunk = 0;
  for (int b = 0; b < p.batch; ++b) {
    const int len = s.kv_len(b), q = s.qo_indptr[b + 1] - s.qo_indptr[b];
    const double groups = std::ceil(double(q) * p.heads / rows), splits = plan.splits_of(len);
    kv_rows += len * groups, q_rows += q, workgroups += groups * splits;
    q_loaded += splits * q * p.heads * qk_dim * q_element_bytes;  // every split reads its sequence's queries
    partial_rows += plan.reduce() ? double(q) * p.heads * splits : 0;
    longest_chunk = std::max(longest_chunk, std::min(plan.chunk, len));
  }
  w.workgroups = workgroups;
  // A workgroup's KV tiles (the longest chunk), each written to LDS and read by every group of
  // rows (each wave of the row configs; the waves of a k_ways config share one reading).
  w.loop_iterations_per_wave = std::ceil(double(longest_chunk) / kv_tile);
  // The tile is bf16 in LDS (a narrower cache widened on its way), or with fp8 products fp8, whose
  // V columns are transposed once into V^T (read, written) and V^T read by every row group.
  const double groups = double(waves) / k_ways;
  w.lds_bytes_per_workgroup =
      fp8_products ? w.loop_iterations_per_wave * kv_tile * (qk_dim * (1.0 + groups) + v_dim * (2.0 + groups))
                   : w.loop_iterations_per_wave * kv_tile * qk_dim * 2.0 * (1.0 + groups);
  const double q_bytes = q_rows * p.heads * qk_dim * q_element_bytes;
  w.loaded_bytes = kv_rows * row_bytes + q_loaded;
  w.dram_read_bytes = kv_rows * row_bytes + q_bytes;
  const double out_bytes = q_rows * p.heads * v_dim * 2.0;
  w.written_bytes = plan.reduce() ? partial_rows * (v_dim + 1) * 4.0 : out_bytes;
  std::vector<planning::launch_work> out{w};
  if (plan.reduce()) {
    planning::launch_work r;
    r.profile = planning::find_profile(t, planning::family_named("mla_decode_reduce"), "mla_reduce_kernel<bf16");
    r.what = "LSE reduce";
    r.workgroups = q_rows * p.heads;
    r.waves_per_workgroup = 2;  // v_dim / 4 threads
    r.loop_iterations_per_wave = plan.splits;
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

inline std::vector<planning::launch_work> model_launches(const problem& p, const sequences_view& s, int kv_bits,
                                                         arch::target t, int q_bits = 16) {
  return model_launches(p, s, kv_bits, t, choose_splits(p, s, t, kv_bits, q_bits), q_bits);
}

inline planning::op_time model_time(const problem& p, const sequences_view& s, int kv_bits, arch::target t,
                                    int q_bits = 16) {
  return planning::predict(model_launches(p, s, kv_bits, t, q_bits), t);
}

}  // namespace wavekit::ops::mla_decode
