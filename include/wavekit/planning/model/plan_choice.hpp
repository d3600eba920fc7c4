// Choosing among plans by the performance model as far as it is right: the model predicts each
// plan's time with an error (planning/model/calibration.hpp: predicted / published over the held-out pairs
// spans [ratio_low, ratio_high]). Two predictions p <= q cannot be told apart when their intervals
// overlap, q / ratio_high <= p / ratio_low. Among the plans that cannot be told apart from the
// fastest, the one most tolerant of what the model gets wrong runs: the most waves resident at once
// (more latency hidden, fewer idle CUs) up to two on every SIMD (one's stalls covered by the
// other's issue; past that more waves add nothing), then the deepest prefetch (its loop's load
// cover), then the least padded work, then the fastest. Plain C++, no HIP.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <algorithm>
#include <cmath>
#include <vector>

#include "wavekit/planning/model/calibration.hpp"
#include "wavekit/planning/model/launch_time.hpp"

namespace wavekit::planning {

template <class Plan>
struct scored_plan {
  Plan plan;
  double us;               // the model's time
  double work = 0;         // multiply-adds the plan executes, padding included (0: not compared)
  double waves_in_flight;  // of its main launch, at most two a SIMD (launch_time::waves_in_flight)
  double load_cover;       // of its main kernel's hot loop (kernel_profile::loop_load_cover)
};

// The scores of a plan from its predicted launches. Its main launch is the first whose kernel
// runs MFMAs (a GEMM's main loop rather than a sort, a quantization or a reduce), else the first.
template <class Plan>
scored_plan<Plan> score(Plan plan, const op_time& t, double work = 0) {
  std::size_t main = 0;
  for (std::size_t i = 0; i < t.work.size(); ++i)
    if (t.work[i].profile && t.work[i].profile->loop_mfma > 0) {
      main = i;
      break;
    }
  if (main >= t.launches.size()) return {plan, t.us, work, 0.0, 0.0};
  const kernel_profile* profile = t.work[main].profile;
  const launch_time& l = t.launches[main];
  return {plan, t.us, work, std::min(l.waves_in_flight, 2 * l.simds), profile ? profile->loop_load_cover : 0.0};
}

// Whether `q` microseconds cannot be told from the fastest `p` within the model's error.
inline bool within_model_error(double q, double p, const model_error& e = held_out_error) {
  return q / e.ratio_high <= p / e.ratio_low;
}

// a more robust than b (header comment). Waves compare in steps of 10% and covers in steps of
// 0.1 iterations (figures that close count as equal), padded work in steps of 2%: whole steps keep
// the order transitive, so the most robust of several plans is well defined.
template <class Plan>
bool more_robust(const scored_plan<Plan>& a, const scored_plan<Plan>& b) {
  const auto steps = [](double v, double ratio) { return v > 0 ? std::floor(std::log(v) / std::log(ratio)) : -1e9; };
  const double waves_a = steps(a.waves_in_flight, 1.1), waves_b = steps(b.waves_in_flight, 1.1);
  if (waves_a != waves_b) return waves_a > waves_b;
  const double cover_a = std::floor(a.load_cover * 10), cover_b = std::floor(b.load_cover * 10);
  if (cover_a != cover_b) return cover_a > cover_b;
  const double work_a = steps(a.work, 1.02), work_b = steps(b.work, 1.02);
  if (work_a != work_b) return work_a < work_b;
  return a.us < b.us;
}

// The plan to run among `candidates` (non-empty; ties keep the earlier one).
template <class Plan>
Plan choose_within_model_error(const std::vector<scored_plan<Plan>>& candidates,
                               const model_error& e = held_out_error) {
  double fastest = candidates.front().us;
  for (const auto& c : candidates) fastest = c.us < fastest ? c.us : fastest;
  const scored_plan<Plan>* best = nullptr;
  for (const auto& c : candidates)
    if (within_model_error(c.us, fastest, e) && (!best || more_robust(c, *best))) best = &c;
  return best->plan;
}

}  // namespace wavekit::planning
