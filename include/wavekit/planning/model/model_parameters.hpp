// The performance model's free parameters (planning/model/launch_time.hpp): the figures no public source
// gives for wavekit's kernels, fitted to published code-and-time pairs by `wavekit_perf_model
// --calibrate` (docs/performance-model.md). Plain C++, no HIP.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

namespace wavekit::planning {

struct model_parameters {
  double load_latency_ns;  // a vector-memory load's round trip under load
  double exposed_lds;      // when a single workgroup fills a CU, its K steps' LDS writes and fragment
                           // reads run between barriers with nothing to overlap them: they take this
                           // many times their time at the LDS's full width (latency, bank conflicts)
  double launch_us;        // a launch's fixed cost, back to back on one stream
};

// How far the model's predictions fall from published times it was not fitted to: predicted /
// published, lowest and highest over the held-out pairs. A prediction p is given as the interval
// [p / ratio_high, p / ratio_low].
struct model_error {
  double ratio_low, ratio_high;
};

struct interval {
  double low_us, high_us;
};

}  // namespace wavekit::planning
