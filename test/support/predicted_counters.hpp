// The performance model's prediction for a benchmark case, as counters beside what the case
// measures (or, on the emulator, counts): predicted_us and its calibrated interval
// (perf::prediction_interval, the model's held-out error). On a GPU the measured time sits beside
// them in the same row; docs/performance-model.md says what the interval means.
#pragma once

#include <benchmark/benchmark.h>

#include "wavekit/perf/calibration.hpp"
#include "wavekit/perf/launch_time.hpp"

namespace wavekit::test {

inline void set_predicted(benchmark::State& state, const perf::op_time& predicted) {
  const perf::interval band = perf::prediction_interval(predicted.us);
  state.counters["predicted_us"] = predicted.us;
  state.counters["predicted_low_us"] = band.low_us;
  state.counters["predicted_high_us"] = band.high_us;
}

}  // namespace wavekit::test
