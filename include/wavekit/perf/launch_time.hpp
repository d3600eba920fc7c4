// The analytical performance model of one kernel launch (plain C++, no HIP): what the compiler
// says of the kernel (perf/kernel_profile.hpp), what the launch asks of it (its workgroups, the
// hot-loop iterations of each wave, the bytes it moves) and the target's widths
// (arch/device_facts.hpp) give a predicted time and what bounds it. docs/performance-model.md
// derives each term and lists what it leaves out.
//
//   time = launch cost + max(rounds x per-round CU time, DRAM time, L2 time)
//
// A round is one residency of workgroups on the CUs: as many per CU as the occupancy the report
// confirms and the LDS allow (wave quantisation: a partial last round costs a whole one). A CU's
// time in a round is the largest of its SIMDs' matrix-pipe cycles, their issue cycles, its LDS
// traffic and the bytes it pulls through its L1 (each over its width). DRAM serves each byte the
// launch reads once (the emulator's distinct bytes) and every byte written, at the achievable
// fraction of peak; L2 serves every byte loaded, at its aggregate width.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "wavekit/arch/device_facts.hpp"
#include "wavekit/arch/target.hpp"
#include "wavekit/perf/kernel_profile.hpp"

namespace wavekit::perf {

// What the model assumes beyond the hardware's published widths (docs/performance-model.md says
// where each comes from). One place, so a measured GPU can replace them.
struct model_assumptions {
  double hbm_efficiency = 0.78;  // achievable / peak HBM: STREAM-like copies on MI300X reach 77-81%
  double launch_us = 2.0;        // a launch's fixed cost: start, first memory round trip, drain
  double l1_bytes_per_clk = 64;  // what one CU's loads pull from L2 a clock (half the L1's width)
  double issue_cycles = 4;       // a SIMD offers a wave an issue slot every 4 clocks
  int issue_overlap = 2;         // waves of a SIMD whose instructions issue in one slot (types differ)
};

// What one launch asks of its kernel.
struct launch_work {
  const kernel_profile* profile = nullptr;  // nullptr: no codegen figures (compute terms are 0)
  std::string what;                         // e.g. "gemm large, 2 K splits"
  double workgroups = 0;
  int waves_per_workgroup = 1;
  double loop_iterations_per_wave = 0;  // of the profile's hot loop
  double lds_bytes_per_workgroup = 0;   // LDS bytes written and read by a workgroup
  double loaded_bytes = 0;              // global bytes loaded, every load counted (L2 traffic)
  double dram_read_bytes = 0;           // global bytes loaded, each counted once
  double written_bytes = 0;             // global bytes stored
};

// The prediction and its terms, in microseconds.
struct launch_time {
  double us = 0;
  double matrix_us = 0, issue_us = 0, lds_us = 0, l1_us = 0;  // rounds x the CU terms
  double dram_us = 0, l2_us = 0, launch_us = 0;
  int rounds = 0, workgroups_per_cu = 0;
  std::string bound;  // the largest term: "matrix", "issue", "LDS", "L1", "DRAM", "L2", "launch"
};

inline launch_time predict(const launch_work& w, arch::target t, const model_assumptions& a = {}) {
  const arch::device_facts d = arch::facts_for(t);  // gfx942: MI300X, gfx950: MI355X
  const double clock = d.clock_ghz * 1e3;           // cycles per microsecond
  launch_time r;
  const kernel_profile* p = w.profile;
  // Residency: the report's occupancy (waves per SIMD) in whole workgroups, and the LDS.
  const int lds = p ? p->lds_bytes : 0;
  int per_cu = p ? std::max(1, p->occupancy * d.simds_per_cu / std::max(1, w.waves_per_workgroup)) : 1;
  if (lds > 0) per_cu = std::max(1, std::min(per_cu, d.lds_bytes_per_cu / lds));
  const double slots = double(d.compute_units) * per_cu;
  r.rounds = w.workgroups > 0 ? int(std::ceil(w.workgroups / slots)) : 0;
  // Workgroups a CU holds in a full round (fewer when the grid does not fill the CUs).
  const double resident = std::min<double>(per_cu, std::ceil(w.workgroups / d.compute_units));
  r.workgroups_per_cu = int(resident);
  // Waves on a CU's busiest SIMD in a round.
  const double waves_simd = std::ceil(resident * w.waves_per_workgroup / d.simds_per_cu);
  if (p && p->loop_instructions > 0) {
    const double matrix = waves_simd * w.loop_iterations_per_wave * p->loop_mfma_cycles;
    const double issue = waves_simd * w.loop_iterations_per_wave * p->loop_instructions * a.issue_cycles /
                         std::min<double>(waves_simd, a.issue_overlap);
    r.matrix_us = r.rounds * matrix / clock, r.issue_us = r.rounds * issue / clock;
  }
  const double per_workgroup_loaded = w.workgroups > 0 ? w.loaded_bytes / w.workgroups : 0;
  r.lds_us = r.rounds * resident * w.lds_bytes_per_workgroup / d.lds_bytes_per_clk_per_cu / clock;
  r.l1_us = r.rounds * resident * per_workgroup_loaded / a.l1_bytes_per_clk / clock;
  r.dram_us = (w.dram_read_bytes + w.written_bytes) / (d.hbm_tb_per_s * 1e6 * a.hbm_efficiency);
  r.l2_us = w.loaded_bytes / (d.l2_bytes_per_clk_per_xcd * d.xcds * clock);
  r.launch_us = a.launch_us;
  const std::pair<double, const char*> terms[] = {{r.matrix_us, "matrix"}, {r.issue_us, "issue"}, {r.lds_us, "LDS"},
                                                  {r.l1_us, "L1"},         {r.dram_us, "DRAM"},   {r.l2_us, "L2"}};
  double cu = std::max({r.matrix_us, r.issue_us, r.lds_us, r.l1_us});
  r.us = std::max({cu, r.dram_us, r.l2_us}) + r.launch_us;
  r.bound = "launch";
  double largest = 0;
  for (const auto& [us, name] : terms)
    if (us > largest) largest = us, r.bound = name;
  if (largest < r.launch_us) r.bound = "launch";
  return r;
}

// The prediction of an op: its launches in order, and their sum.
struct op_time {
  std::vector<launch_time> launches;
  std::vector<launch_work> work;
  double us = 0;
  double dram_bytes() const {
    double b = 0;
    for (const auto& w : work) b += w.dram_read_bytes + w.written_bytes;
    return b;
  }
};

inline op_time predict(const std::vector<launch_work>& launches, arch::target t, const model_assumptions& a = {}) {
  op_time o;
  o.work = launches;
  for (const auto& w : launches) {
    o.launches.push_back(predict(w, t, a));
    o.us += o.launches.back().us;
  }
  return o;
}

}  // namespace wavekit::perf
