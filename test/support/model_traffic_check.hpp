// The performance model against the emulator: a single-launch op's model (ops/<op>/model.hpp)
// moves exactly the bytes the emulator counted for the launch: its workgroups, every byte loaded,
// each byte loaded once (DRAM) and every byte written. A tiled GEMM's launches (perf::gemm_launches:
// the main loop and the split-K reduce) the same against the counters summed over them.
#pragma once

#include <catch2/catch.hpp>

#include <vector>

#include "wavekit/emu/counters.hpp"
#include "wavekit/perf/launch_time.hpp"

namespace wavekit::test {

inline void check_model_traffic(const std::vector<perf::launch_work>& model, const emu::launch_counters& c) {
  REQUIRE(model.size() == 1);
  CHECK(model[0].workgroups == double(c.blocks));
  CHECK(model[0].loaded_bytes == double(c.global_bytes_read));
  CHECK(model[0].dram_read_bytes == double(c.global_bytes_read_distinct));
  CHECK(model[0].written_bytes == double(c.global_bytes_written));
}

// launches: the model's, in order; c: the emulator's counters accumulated over the same launches.
inline void check_model_traffic_summed(const std::vector<perf::launch_work>& launches, const emu::launch_counters& c) {
  double workgroups = 0, loaded = 0, distinct = 0, written = 0;
  for (const perf::launch_work& w : launches)
    workgroups += w.workgroups, loaded += w.loaded_bytes, distinct += w.dram_read_bytes, written += w.written_bytes;
  CHECK(workgroups == double(c.blocks));
  CHECK(loaded == double(c.global_bytes_read));
  CHECK(distinct == double(c.global_bytes_read_distinct));
  CHECK(written == double(c.global_bytes_written));
}

}  // namespace wavekit::test
