// The performance model's prediction for a benchmark case, as counters beside what the case
// measures (or, on the emulator, counts): predicted_us and its calibrated interval
// (planning::prediction_interval, the model's held-out error). On a GPU the measured time sits beside
// them in the same row; docs/performance-model.md says what the interval means.
#pragma once

#include <benchmark/benchmark.h>

#include "wavekit/planning/model/calibration.hpp"
#include "wavekit/planning/model/launch_time.hpp"

namespace wavekit::test {

inline void set_predicted(benchmark::State& state, const planning::op_time& predicted) {
  const planning::interval band = planning::prediction_interval(predicted.us);
  state.counters["predicted_us"] = predicted.us;
  state.counters["predicted_low_us"] = band.low_us;
  state.counters["predicted_high_us"] = band.high_us;
}

}  // namespace wavekit::test
