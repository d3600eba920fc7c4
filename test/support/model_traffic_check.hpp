// The performance model against the emulator: a single-launch op's model (ops/<op>/model.hpp)
// moves exactly the bytes the emulator counted for the launch: its workgroups, every byte loaded,
// each byte loaded once (DRAM) and every byte written. A multi-launch op's (a tiled GEMM's
// planning::gemm_launches: the main loop and the split-K reduce; the MoE layer's pipeline) the same
// against the counters summed over its launches.
#pragma once

#include <catch2/catch.hpp>

#include <sstream>
#include <string>
#include <vector>

#include "wavekit/emu/counters.hpp"
#include "wavekit/planning/model/launch_time.hpp"

namespace wavekit::test {

// The model's launches, one a line, for the failure message.
inline std::string model_traffic_str(const std::vector<planning::launch_work>& launches) {
  std::ostringstream s;
  s.precision(17);
  for (const planning::launch_work& w : launches)
    s << "  model " << w.what << ": workgroups " << w.workgroups << ", loaded " << w.loaded_bytes << ", distinct "
      << w.dram_read_bytes << ", written " << w.written_bytes << "\n";
  return s.str();
}

inline void check_model_traffic(const std::vector<planning::launch_work>& model, const emu::launch_counters& c) {
  REQUIRE(model.size() == 1);
  INFO(model_traffic_str(model) << "  emulator " << c.summary());
  CHECK(model[0].workgroups == double(c.blocks));
  CHECK(model[0].loaded_bytes == double(c.global_bytes_read));
  CHECK(model[0].dram_read_bytes == double(c.global_bytes_read_distinct));
  CHECK(model[0].written_bytes == double(c.global_bytes_written));
}

// launches: the model's, in order; c: the emulator's counters accumulated over the same launches
// (emu::reset_counters before the first, emu::accumulated_counters after the last).
inline void check_model_traffic_summed(const std::vector<planning::launch_work>& launches,
                                       const emu::launch_counters& c) {
  double workgroups = 0, loaded = 0, distinct = 0, written = 0;
  for (const planning::launch_work& w : launches)
    workgroups += w.workgroups, loaded += w.loaded_bytes, distinct += w.dram_read_bytes, written += w.written_bytes;
  INFO(model_traffic_str(launches) << "  emulator " << c.summary());
  CHECK(workgroups == double(c.blocks));
  CHECK(loaded == double(c.global_bytes_read));
  CHECK(distinct == double(c.global_bytes_read_distinct));
  CHECK(written == double(c.global_bytes_written));
}

// launches: the model's, in order; logged: each launch's counters (emu::launch_log), the same
// launches in the same order. Each launch's workgroups and bytes.
inline void check_model_traffic_each(const std::vector<planning::launch_work>& launches,
                                     const std::vector<emu::launch_counters>& logged) {
  INFO(model_traffic_str(launches));
  REQUIRE(launches.size() == logged.size());
  for (std::size_t i = 0; i < launches.size(); ++i) {
    const planning::launch_work& w = launches[i];
    const emu::launch_counters& c = logged[i];
    INFO("launch " << i << ", " << w.what << "; emulator " << c.summary());
    CHECK(w.workgroups == double(c.blocks));
    CHECK(w.loaded_bytes == double(c.global_bytes_read));
    CHECK(w.dram_read_bytes == double(c.global_bytes_read_distinct));
    CHECK(w.written_bytes == double(c.global_bytes_written));
  }
}

}  // namespace wavekit::test
