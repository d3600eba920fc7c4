// planning::predict on launches whose every term can be worked out by hand (MI300X: 304 CUs, 2.1 GHz,
// 5.3 TB/s at 78%, 8 XCDs x 2048 B/clk of L2, 128 B/clk of LDS), with explicit parameters so the
// checks do not move when the calibration is refitted.
#include <catch2/catch.hpp>

#include "wavekit/planning/model/gemm_work.hpp"
#include "wavekit/planning/model/launch_time.hpp"

using namespace wavekit;
using arch::target;

namespace {

// A kernel of 8 waves at 2 waves per SIMD (one workgroup a CU), its loop 100 instructions: 10 MFMAs
// holding the matrix pipe 160 cycles, 50 VALU instructions, no barriers, no loads, no MFMA kind
// (so the cycles_per_us stays at its peak).
planning::kernel_profile make_kernel() {
  planning::kernel_profile k{target::gfx942, "test", "test", 128, 0, 32768, 2, 100, 10, 10.0, 160.0, 0};
  k.loop_valu = 50;
  return k;
}
const planning::kernel_profile kernel = make_kernel();

// load round trip 500 ns (1050 cycles at 2.1 GHz), exposed LDS phases at 3 times their full-width
// time, 2 us a launch
constexpr planning::model_parameters params{500, 3, 2};
constexpr double cycles_per_us = 2100;  // at the 2.1 GHz peak
constexpr double hbm = 5.3e6 * 0.78;    // bytes per us

planning::launch_work compute_launch(const planning::kernel_profile* k) {
  planning::launch_work w;
  w.profile = k;
  w.workgroups = 304 * 3 + 1;  // a partial fourth round costs a whole one
  w.waves_per_workgroup = 8;
  w.loop_iterations_per_wave = 1000;
  return w;
}

}  // namespace

TEST_CASE("VALU and MFMA instructions of all waves on a SIMD share one issue port", "[perf]") {
  const planning::launch_time t = planning::predict(compute_launch(&kernel), target::gfx942, params);
  CHECK(t.rounds == 4);
  CHECK(t.workgroups_per_cu == 1);
  // 2 waves on a SIMD x 1000 iterations x 160 cycles, 4 rounds.
  CHECK(t.matrix_us == Approx(4 * 320000 / cycles_per_us));
  // The port: 2 waves x 1000 x (50 VALU + 10 MFMA) x 4 clocks = 480,000, more than one wave's
  // own 1000 x 100 instructions x 4 = 400,000.
  CHECK(t.issue_us == Approx(4 * 480000 / cycles_per_us));
  CHECK(t.bound == "issue");
  CHECK(t.us == Approx(t.issue_us + 2.0));
  // With fewer VALU instructions one wave's own stream bounds issue.
  planning::kernel_profile lean = kernel;
  lean.loop_valu = 10;
  CHECK(planning::predict(compute_launch(&lean), target::gfx942, params).issue_us ==
        Approx(4 * 400000 / cycles_per_us));
}

TEST_CASE("a load's round trip over the loop's prefetch cover bounds each iteration", "[perf]") {
  planning::kernel_profile k = kernel;
  planning::launch_work w = compute_launch(&k);
  // A wait half an iteration after the load: the round trip plus the rest of the iteration's work
  // (one wave's 100 instructions x 4 = 400 cycles, more than its 160 MFMA cycles).
  k.loop_load_cover = 0.5;
  CHECK(planning::predict(w, target::gfx942, params).latency_us ==
        Approx(4 * 1000 * (1050 + 0.5 * 400) / cycles_per_us));
  // Loaded two iterations ahead: the round trip is spread over them.
  k.loop_load_cover = 2;
  CHECK(planning::predict(w, target::gfx942, params).latency_us == Approx(4 * 1000 * 1050 / 2.0 / cycles_per_us));
  // Loads in a round: one round trip to fill it; stores: the last round's drain at HBM.
  w.loaded_bytes = 1e6;
  w.written_bytes = 4e6;
  const planning::launch_time t = planning::predict(w, target::gfx942, params);
  CHECK(t.latency_us == Approx(4 * 1000 * 1050 / 2.0 / cycles_per_us + 4 * 1050 / cycles_per_us + 4e6 / 4 / hbm));
}

TEST_CASE("LDS phases between barriers are exposed only when one workgroup fills a CU", "[perf]") {
  planning::kernel_profile k = kernel;
  k.loop_barriers = 2;
  planning::launch_work w = compute_launch(&k);
  w.lds_bytes_per_workgroup = 128.0 * 1000;  // 1000 cycles of LDS a workgroup
  planning::launch_time t = planning::predict(w, target::gfx942, params);
  CHECK(t.lds_us == Approx(4 * 1000 / cycles_per_us));
  CHECK(t.exposed_lds_us == Approx(3 * t.lds_us));
  CHECK(t.us == Approx(t.issue_us + t.exposed_lds_us + 2.0));
  // Two workgroups a CU (4 waves each): one's LDS phases hide under the other's work.
  w.waves_per_workgroup = 4;
  t = planning::predict(w, target::gfx942, params);
  CHECK(t.workgroups_per_cu == 2);
  CHECK(t.exposed_lds_us == 0);
}

TEST_CASE("a launch busy in the matrix pipe runs at the cycles_per_us a saturating GEMM sustains", "[perf]") {
  planning::kernel_profile k = kernel;
  k.loop_instructions = 20, k.loop_valu = 0, k.loop_mfma_kind = "fp8";  // matrix-bound
  const planning::launch_time t = planning::predict(compute_launch(&k), target::gfx942, params);
  CHECK(t.bound == "matrix");
  // Busy all the time: MI300X's measured fp8 GEMM cycles_per_us, 1230 MHz.
  CHECK(t.clock_ghz == Approx(1.23));
  CHECK(t.matrix_us == Approx(4 * 320000 / 1230.0));
  // Without MFMAs the cycles_per_us stays at its 2.1 GHz peak.
  planning::launch_work copy;
  copy.workgroups = 1000;
  copy.loaded_bytes = copy.dram_read_bytes = copy.written_bytes = 1e8;
  CHECK(planning::predict(copy, target::gfx942, params).clock_ghz == Approx(2.1));
}

TEST_CASE("a memory-bound launch: distinct and written bytes at 78% of HBM", "[perf]") {
  planning::launch_work w;
  w.workgroups = 10000;
  w.loaded_bytes = 2e9;
  w.dram_read_bytes = 1e9;
  w.written_bytes = 0.5e9;
  const planning::launch_time t = planning::predict(w, target::gfx942, params);
  CHECK(t.dram_us == Approx(1.5e9 / hbm));
  CHECK(t.l2_us == Approx(2e9 / (2048.0 * 8 * cycles_per_us)));
  // The L2s fetch the distinct bytes once when the launch does not say otherwise: at the
  // Infinity Cache's 17.2 TB/s (78% achievable).
  CHECK(t.fabric_us == Approx(1.5e9 / (17.2e6 * 0.78)));
  // No profile: one workgroup a CU, each pulling its loaded bytes at 64 B a cycles_per_us.
  CHECK(t.l1_us == Approx(double(t.rounds) * (2e9 / 10000) / 64 / cycles_per_us));
  CHECK(t.bound == "DRAM");
  CHECK(t.us == Approx(t.dram_us + 2.0));
  // L2 misses from XCDs re-fetching the same bytes: charged on the fabric.
  w.l2_fetch_bytes = 8 * 8e9;
  CHECK(planning::predict(w, target::gfx942, params).bound == "fabric");
}

TEST_CASE("a small grid: a CU holds ceil(workgroups / CUs) workgroups, up to its occupancy", "[perf]") {
  planning::launch_work w;
  w.profile = &kernel;
  w.waves_per_workgroup = 2;  // 4 a CU by occupancy (2 waves a SIMD x 4 SIMDs / 2), 2 by LDS (64 KiB / 32 KiB)
  w.loop_iterations_per_wave = 10;
  w.workgroups = 5;
  planning::launch_time t = planning::predict(w, target::gfx942, params);
  CHECK(t.rounds == 1);
  CHECK(t.workgroups_per_cu == 1);
  w.workgroups = 3000;  // the LDS allows 2 a CU: 5 rounds
  t = planning::predict(w, target::gfx942, params);
  CHECK(t.workgroups_per_cu == 2);
  CHECK(t.rounds == 5);
}

TEST_CASE("a GEMM's launches: tiles x splits, bytes per block, the reduce with split-K", "[perf]") {
  // 256 x 256 x 1024 on 128 x 128 x 64 tiles, 4 waves of 64 x 64, fp8 in, bf16 out, 2 splits.
  const planning::gemm_tile tile{128, 128, 64, 64, 64, 256};
  const auto launches = planning::gemm_launches(256, 256, 1024, tile, {1, 1, 2}, 2, &kernel, nullptr);
  REQUIRE(launches.size() == 2);
  const planning::launch_work& g = launches[0];
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
  // Round-robin XCDs: an M tile's two workgroups of a split land on 2 XCDs, an N tile's on 2 (2 N
  // tiles apart, over 8 XCDs), each fetching its rows or columns.
  CHECK(g.l2_fetch_bytes == 2 * 256.0 * 1024 + 2 * 256.0 * 1024);
}

TEST_CASE("the XCDs' fetches of a wide GEMM grid", "[perf]") {
  // 16 N tiles: an M tile's row spans all 8 XCDs; gcd(16, 8) = 8, so an N tile's column stays on
  // one XCD. 6 N tiles: rows span 6 XCDs; gcd(6, 8) = 2, a column visits 4.
  CHECK(planning::l2_fetch_bytes(512, 2048, 1024, 4, 16, {1, 1, 2}) == 512.0 * 1024 * 8 + 2048.0 * 1024 * 1);
  CHECK(planning::l2_fetch_bytes(512, 768, 1024, 4, 6, {1, 1, 2}) == 512.0 * 1024 * 6 + 768.0 * 1024 * 4);
}
