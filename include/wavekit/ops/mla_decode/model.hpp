// The performance model's view of an MLA decode call (perf/launch_time.hpp): the decode kernel over
// (row groups, splits, sequences), each workgroup reading its chunk of KV rows once for all heads
// (the hot loop is one 32-row KV tile), and with more than one split the LSE reduce. The plan is the
// launch's own (choose_config, choose_splits with the target's device facts).
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
#include "wavekit/perf/launch_time.hpp"
#include "wavekit/perf/profiles.hpp"

namespace wavekit::ops::mla_decode {

// kv_bytes: 2 (bf16 cache) or 1 (fp8: e4m3fnuz on gfx942, e4m3fn on gfx950); queries bf16.
inline std::vector<perf::launch_work> model_launches(const problem& p, const sequences_view& s, int kv_bytes,
                                                     arch::target t) {
  const config_id id = choose_config(p, s);
  const int waves = with_config(id, [](auto c) { return decltype(c)::waves; });
  const int rows = with_config(id, [](auto c) { return decltype(c)::rows; });
  const int kv_tile = with_config(id, [](auto c) { return decltype(c)::kv_tile; });
  const split_plan plan = choose_splits(p, s, arch::facts_for(t), kv_tile, kv_bytes);
  const std::string kv = kv_bytes == 2 ? "bf16" : t == arch::target::gfx950 ? "e4m3fn" : "e4m3fnuz";
  perf::launch_work w;
  w.profile = perf::find_profile(t, "mla_decode", "mla_decode_kernel<config<" + std::to_string(waves) + ", 32>, " + kv,
                                 "bf16>");
  w.what = "decode, " + std::to_string(plan.splits) + " KV splits";
  w.waves_per_workgroup = waves;
  double kv_rows = 0, q_rows = 0, workgroups = 0, partial_rows = 0, q_loaded = 0;
  for (int b = 0; b < p.batch; ++b) {
    const int len = s.kv_len(b), q = s.qo_indptr[b + 1] - s.qo_indptr[b];
    const double groups = std::ceil(double(q) * p.heads / rows), splits = plan.splits_of(len);
    kv_rows += len * groups, q_rows += q, workgroups += groups * splits;
    q_loaded += splits * q * p.heads * qk_dim * 2.0;  // every split reads its sequence's queries
    partial_rows += plan.reduce() ? double(q) * p.heads * splits : 0;
  }
  w.workgroups = workgroups;
  // A workgroup's KV tiles (the longest chunk), each written to LDS and read by every wave.
  w.loop_iterations_per_wave = std::ceil(double(std::min(plan.chunk, s.kv_len(0))) / kv_tile);
  w.lds_bytes_per_workgroup = w.loop_iterations_per_wave * kv_tile * qk_dim * kv_bytes * (1.0 + waves);
  const double q_bytes = q_rows * p.heads * qk_dim * 2.0;
  w.loaded_bytes = kv_rows * qk_dim * kv_bytes + q_loaded;
  w.dram_read_bytes = kv_rows * qk_dim * kv_bytes + q_bytes;
  const double out_bytes = q_rows * p.heads * v_dim * 2.0;
  w.written_bytes = plan.reduce() ? partial_rows * (v_dim + 1) * 4.0 : out_bytes;
  std::vector<perf::launch_work> out{w};
  if (plan.reduce()) {
    perf::launch_work r;
    r.profile = perf::find_profile(t, "mla_decode_reduce", "mla_reduce_kernel<bf16");
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

inline perf::op_time model_time(const problem& p, const sequences_view& s, int kv_bytes, arch::target t) {
  return perf::predict(model_launches(p, s, kv_bytes, t), t);
}

}  // namespace wavekit::ops::mla_decode
