// perf::predict on launches whose every term can be worked out by hand (MI300X: 304 CUs, 2.1 GHz,
// 5.3 TB/s, 8 XCDs x 2048 B/clk of L2, 128 B/clk of LDS).
#include <catch2/catch.hpp>

#include "wavekit/perf/gemm_work.hpp"
#include "wavekit/perf/launch_time.hpp"

using namespace wavekit;
using arch::target;

namespace {

// A kernel of 8 waves at 2 waves per SIMD (one workgroup a CU), its loop 100 instructions of which
// 10 MFMAs holding the matrix pipe 160 cycles.
const perf::kernel_profile kernel{target::gfx942, "test", "test", 128, 0, 32768, 2, 100, 10, 10.0, 160.0, 1};

}  // namespace

TEST_CASE("a compute-bound launch: rounds x the busiest SIMD's matrix cycles, plus the launch cost", "[perf]") {
  perf::launch_work w;
  w.profile = &kernel;
  w.workgroups = 304 * 3 + 1;  // a partial fourth round costs a whole one
  w.waves_per_workgroup = 8;
  w.loop_iterations_per_wave = 1000;
  const perf::launch_time t = perf::predict(w, target::gfx942);
  CHECK(t.rounds == 4);
  CHECK(t.workgroups_per_cu == 1);
  // 2 waves on a SIMD x 1000 iterations x 160 cycles = 320,000 cycles at 2.1 GHz, 4 rounds.
  CHECK(t.matrix_us == Approx(4 * 320000 / 2100.0));
  // Issue: 2 waves x 1000 x 100 instructions x 4 clocks, the 2 waves sharing slots.
  CHECK(t.issue_us == Approx(4 * 400000 / 2100.0));
  CHECK(t.bound == "issue");
  CHECK(t.us == Approx(t.issue_us + 2.0));
}

TEST_CASE("a memory-bound launch: distinct and written bytes at 78% of HBM", "[perf]") {
  perf::launch_work w;
  w.workgroups = 10000;
  w.loaded_bytes = 2e9;
  w.dram_read_bytes = 1e9;
  w.written_bytes = 0.5e9;
  const perf::launch_time t = perf::predict(w, target::gfx942);
  CHECK(t.dram_us == Approx(1.5e9 / (5.3e6 * 0.78)));
  CHECK(t.l2_us == Approx(2e9 / (2048.0 * 8 * 2100)));
  // No profile: one workgroup a CU, each pulling its loaded bytes at 64 B a clock.
  CHECK(t.l1_us == Approx(double(t.rounds) * (2e9 / 10000) / 64 / 2100));
  CHECK(t.bound == "DRAM");
  CHECK(t.us == Approx(t.dram_us + 2.0));
}

TEST_CASE("a small grid: a CU holds ceil(workgroups / CUs) workgroups, up to its occupancy", "[perf]") {
  perf::launch_work w;
  w.profile = &kernel;
  w.waves_per_workgroup = 2;  // 4 a CU by occupancy (2 waves a SIMD x 4 SIMDs / 2), 2 by LDS (64 KiB / 32 KiB)
  w.loop_iterations_per_wave = 10;
  w.workgroups = 5;
  perf::launch_time t = perf::predict(w, target::gfx942);
  CHECK(t.rounds == 1);
  CHECK(t.workgroups_per_cu == 1);
  w.workgroups = 3000;  // the LDS allows 2 a CU: 5 rounds
  t = perf::predict(w, target::gfx942);
  CHECK(t.workgroups_per_cu == 2);
  CHECK(t.rounds == 5);
}

TEST_CASE("a GEMM's launches: tiles x splits, bytes per block, the reduce with split-K", "[perf]") {
  // 256 x 256 x 1024 on 128 x 128 x 64 tiles, 4 waves of 64 x 64, fp8 in, bf16 out, 2 splits.
  const perf::gemm_tile tile{128, 128, 64, 64, 64, 256};
  const auto launches = perf::gemm_launches(256, 256, 1024, tile, {1, 1, 2}, 2, &kernel, nullptr);
  REQUIRE(launches.size() == 2);
  const perf::launch_work& g = launches[0];
  CHECK(g.workgroups == 2 * 2 * 2);
  // A wave: 64 x 64 x 512 multiply-adds over 10 x 8192 a loop pass.
  CHECK(g.loop_iterations_per_wave == Approx(64.0 * 64 * 512 / (10 * 8192.0)));
  // A once per column of tiles, B once per row of tiles; DRAM each once; fp32 partials written.
  CHECK(g.loaded_bytes == 2 * 256.0 * 1024 + 2 * 256.0 * 1024);
  CHECK(g.dram_read_bytes == 2 * 256.0 * 1024);
  CHECK(g.written_bytes == 4.0 * 2 * 256 * 256);
  // LDS: 8 steps of (the tiles written, each wave reading its 64 rows and 64 columns).
  CHECK(g.lds_bytes_per_workgroup == 8 * ((128 + 128) * 64 + 4 * (64 + 64) * 64));
  CHECK(launches[1].loaded_bytes == 4.0 * 2 * 256 * 256);
  CHECK(launches[1].written_bytes == 2.0 * 256 * 256);
}
