// The performance model against the emulator: a single-launch op's model (ops/<op>/model.hpp)
// moves exactly the bytes the emulator counted for the launch: its workgroups, every byte loaded,
// each byte loaded once (DRAM) and every byte written.
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

}  // namespace wavekit::test
