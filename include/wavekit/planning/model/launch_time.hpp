// The analytical performance model of one kernel launch (plain C++, no HIP): what the compiler
// says of the kernel (planning/model/kernel_profile.hpp), what the launch asks of it (its workgroups, the
// hot-loop iterations of each wave, the bytes it moves), the target's widths
// (arch/device_facts.hpp), the published measurements it assumes (model_assumptions) and the
// parameters fitted to published times (planning/model/calibration.hpp) give a predicted time and what
// bounds it. docs/performance-model.md derives each term and gives its source.
//
//   time = launch cost + max(CU time, DRAM time, L2 time, fabric time)
//   CU time = rounds x (fill + max(matrix, issue, LDS, L1, latency) + exposed LDS) + drain
//
// A round is one residency of workgroups on the CUs: as many per CU as the occupancy the report
// confirms and the LDS allow (a partial last round costs a whole one). In a round, per SIMD: the
// matrix pipe's cycles; issue (one port for every wave's VALU and MFMA instructions, a slot per
// wave every 4 clocks); LDS and L1 bytes over their widths; and each wave's loads' round trips
// over how far ahead its loop loads (the profile's load cover). A round waits one round trip to
// fill and the last round's stores drain; with one workgroup a CU its LDS phases run between
// barriers unhidden. The clock drops toward what a saturating GEMM sustains as the matrix pipe's
// share of the time grows. DRAM serves each byte the launch reads once and every byte written; L2
// every byte loaded; the Infinity Fabric what the XCDs' L2s fetch.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "wavekit/arch/device_facts.hpp"
#include "wavekit/arch/target.hpp"
#include "wavekit/planning/model/calibration.hpp"
#include "wavekit/planning/model/kernel_profile.hpp"
#include "wavekit/planning/model/model_parameters.hpp"

namespace wavekit::planning {

// What the model takes from published measurements and leaves unfitted (docs/performance-model.md
// gives each one's source).
struct model_assumptions {
  double hbm_efficiency = 0.78;  // achievable / peak HBM: STREAM-like copies on MI300X reach 77-81%
  double l1_bytes_per_clk = 64;  // what one CU's loads pull from L2 a clock (half the L1's width)
  double issue_cycles = 4;       // a SIMD offers each wave an issue slot every 4 clocks
  // MI300X's Infinity Cache peak (AMD's CDNA 3 white paper), at the HBM's achievable fraction; no
  // MI355X figure was found, so gfx950 uses the same.
  double infinity_cache_tb_per_s = 17.2;
  // The median engine clock MI300X sustains under a saturating dense GEMM (AMD's Max-Achievable
  // FLOPs measurements, hipBLASLt): fp8 1230, bf16 1207, fp16 1115 MHz of the 2100 peak. A launch
  // runs at the peak less that drop times the share of its time the matrix pipe is busy. gfx950
  // takes the same fractions of its 2400 MHz peak (no MI355X table was found).
  double sustained_fraction_fp8 = 1230.0 / 2100, sustained_fraction_bf16 = 1207.0 / 2100,
         sustained_fraction_f16 = 1115.0 / 2100;
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
  // Bytes the XCDs' L2s fetch from the Infinity Fabric: each XCD's distinct bytes, with workgroups
  // placed round-robin over the XCDs (planning/model/gemm_work.hpp counts a GEMM's). Negative: not counted,
  // taken as the distinct bytes (each byte fetched by one XCD).
  double l2_fetch_bytes = -1;
  // A phase of the launch before it (e.g. a tail its workgroups run after their loop), not a
  // launch of its own: no launch cost.
  bool phase_of_previous = false;
};

// The prediction and its terms, in microseconds.
struct launch_time {
  double us = 0;
  double matrix_us = 0, issue_us = 0, lds_us = 0, l1_us = 0;  // rounds x the CU terms
  double latency_us = 0, exposed_lds_us = 0;                  // the loads' exposed round trips; LDS phases unhidden
  double dram_us = 0, l2_us = 0, fabric_us = 0, launch_us = 0;
  double clock_ghz = 0;  // the clock the launch is predicted to run at
  int rounds = 0, workgroups_per_cu = 0;
  double waves_in_flight = 0;  // waves resident at once over the device in a full round
  double simds = 0;            // the device's SIMDs (CUs x 4)
  // The largest term: "matrix", "issue", "LDS", "L1", "latency", "DRAM", "L2", "fabric", "launch"
  std::string bound;
};

namespace detail {

inline double sustained_fraction(const kernel_profile* p, const model_assumptions& a) {
  if (!p || p->loop_mfma_kind.empty()) return 1.0;
  return p->loop_mfma_kind == "fp8"    ? a.sustained_fraction_fp8
         : p->loop_mfma_kind == "bf16" ? a.sustained_fraction_bf16
                                       : a.sustained_fraction_f16;
}

// The terms at a given engine clock (GHz).
inline launch_time terms_at(const launch_work& w, const arch::device_facts& d, double clock_ghz,
                            const model_parameters& f, const model_assumptions& a) {
  const double clock = clock_ghz * 1e3;  // cycles per microsecond
  launch_time r;
  r.clock_ghz = clock_ghz;
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
  r.waves_in_flight = std::min(w.workgroups, double(d.compute_units) * resident) * w.waves_per_workgroup;
  r.simds = double(d.compute_units) * d.simds_per_cu;
  // Waves on a CU's busiest SIMD in a round.
  const double waves_simd = std::ceil(resident * w.waves_per_workgroup / d.simds_per_cu);
  const double latency = f.load_latency_ns * clock_ghz;  // cycles
  if (p && p->loop_instructions > 0) {
    const double it = w.loop_iterations_per_wave;
    const double matrix = waves_simd * it * p->loop_mfma_cycles;
    // The SIMD's one issue port takes every VALU and MFMA instruction of all its waves; a wave
    // issues at most one instruction a slot, whatever its type.
    const double port = waves_simd * it * (p->loop_valu + p->loop_mfma) * a.issue_cycles;
    const double own = it * p->loop_instructions * a.issue_cycles;
    r.matrix_us = r.rounds * matrix / clock, r.issue_us = r.rounds * std::max(port, own) / clock;
    // A wave's loads must return before the wait that retires them. An iteration waits out `trips`
    // round trips one after another; with `cover` of its work between a load's issue and its wait
    // (cover x trips per trip), each trip takes at least the round trip over that cover, plus the
    // rest of the trip's share of the work where the wait comes within the same trip.
    if (p->loop_load_cover > 0) {
      const double work = std::max(p->loop_mfma_cycles, p->loop_instructions * a.issue_cycles);
      const double trips = p->loop_load_trips, cover = p->loop_load_cover * trips;
      r.latency_us = r.rounds * it * (trips * latency + std::max(0.0, 1 - cover) * work) / std::max(cover, 1.0) / clock;
    }
  }
  const double per_workgroup_loaded = w.workgroups > 0 ? w.loaded_bytes / w.workgroups : 0;
  r.lds_us = r.rounds * resident * w.lds_bytes_per_workgroup / d.lds_bytes_per_clk_per_cu / clock;
  // One workgroup on a CU: a barrier leaves its waves nothing to issue, so each K step's LDS
  // writes and fragment reads, between its barriers, add to the step's MFMAs instead of hiding
  // under another workgroup's, at the fitted multiple of their full-width time.
  if (p && p->loop_barriers > 0 && resident == 1) r.exposed_lds_us = r.lds_us * f.exposed_lds;
  r.l1_us = r.rounds * resident * per_workgroup_loaded / a.l1_bytes_per_clk / clock;
  r.dram_us = (w.dram_read_bytes + w.written_bytes) / (d.hbm_tb_per_s * 1e6 * a.hbm_efficiency);
  r.l2_us = w.loaded_bytes / (d.l2_bytes_per_clk_per_xcd * d.xcds * clock);
  const double fetched = w.l2_fetch_bytes >= 0 ? w.l2_fetch_bytes : w.dram_read_bytes;
  r.fabric_us = (fetched + w.written_bytes) / (a.infinity_cache_tb_per_s * 1e6 * a.hbm_efficiency);
  r.launch_us = w.phase_of_previous ? 0.0 : f.launch_us;
  // Each round first waits one round trip for its first loads (the pipeline's fill), and the last
  // round's stores drain after its loop, with no later round to hide them (earlier rounds' stores
  // overlap the next round's loop).
  const double fill = w.loaded_bytes > 0 ? r.rounds * latency / clock : 0.0;
  const double drain = r.rounds > 0 ? w.written_bytes / r.rounds / (d.hbm_tb_per_s * 1e6 * a.hbm_efficiency) : 0.0;
  const double cu =
      fill + std::max({r.matrix_us, r.issue_us, r.lds_us, r.l1_us, r.latency_us}) + r.exposed_lds_us + drain;
  r.latency_us += fill + drain;
  r.us = std::max({cu, r.dram_us, r.l2_us, r.fabric_us}) + r.launch_us;
  const std::pair<double, const char*> named[] = {
      {r.matrix_us, "matrix"},   {r.issue_us, "issue"}, {r.lds_us, "LDS"}, {r.l1_us, "L1"},
      {r.latency_us, "latency"}, {r.dram_us, "DRAM"},   {r.l2_us, "L2"},   {r.fabric_us, "fabric"}};
  r.bound = "launch";
  double largest = 0;
  for (const auto& [us, name] : named)
    if (us > largest) largest = us, r.bound = name;
  if (largest < r.launch_us) r.bound = "launch";
  return r;
}

}  // namespace detail

inline launch_time predict(const launch_work& w, arch::target t, const model_parameters& f = fitted_parameters(),
                           const model_assumptions& a = {}) {
  const arch::device_facts d = arch::facts_for(t);  // gfx942: MI300X, gfx950: MI355X
  // First at the peak clock; then at the clock the matrix pipe's share of the time sustains.
  const launch_time peak = detail::terms_at(w, d, d.clock_ghz, f, a);
  const double busy = peak.us > peak.launch_us ? peak.matrix_us / (peak.us - peak.launch_us) : 0.0;
  const double clock = d.clock_ghz * (1 - (1 - detail::sustained_fraction(w.profile, a)) * std::min(1.0, busy));
  return detail::terms_at(w, d, clock, f, a);
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

inline op_time predict(const std::vector<launch_work>& launches, arch::target t,
                       const model_parameters& f = fitted_parameters(), const model_assumptions& a = {}) {
  op_time o;
  o.work = launches;
  for (const auto& w : launches) {
    o.launches.push_back(predict(w, t, f, a));
    o.us += o.launches.back().us;
  }
  return o;
}

}  // namespace wavekit::planning
