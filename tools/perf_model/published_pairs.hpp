// The published code-and-time pairs the performance model is calibrated on (docs/performance.md
// shows the table): kernels whose code is public, compiled here by the same compiler as wavekit's
// (tools/foreign_kernels/README.md says how), each with its published MI300X times. A kernel's
// profile is the row `tools/codegen_report.py profile` prints for its assembly, and each timed case
// is the launches the timed region runs, described as `wavekit_perf_model --launch` reads them: the
// calibration predicts them by the path a user's kernel takes.
//
// Published times whose code is not public or does not build here (aiter's assembly and CK kernels,
// HipKittens' MLA, the MX GEMM and MoE task times) are not pairs: the report sets them beside
// wavekit's predictions, outside the claimed error.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "perf_model/profile_text.hpp"

namespace wavekit::perf_text {

struct timed_launch {
  std::string profile;  // a profile row, or "" (no codegen figures: a copy or a host-side step)
  std::string launch;   // a launch description
};

struct published_pair {
  std::string id, family, source;
  double published_us;
  bool fit;  // in the fit set; otherwise held out
  std::vector<timed_launch> launches;
};

// RadeonFlow's FP8 block-scale GEMM (the seed; shared/reference/problems.md 1 and 5) at
// RadeonFlow_Kernels@685749e, each timed kernel compiled device-only for gfx942 by clang-19 -O3 with
// clang's default contraction, as RadeonFlow's build compiles it (tools/foreign_kernels/README.md:
// its transposes, its GEMM instance per shape, its split-K reduce). The rows are what
// `tools/codegen_report.py profile` prints for each (kernel names shortened); a kernel compiled
// for one shape without a loop is described whole, run once a wave (iterations=1). The rows carry
// no loop_load_trips (read as 1): profiled again after that figure was added, the looped instances
// print 1.0 (one K step an iteration, its loads waited for once) with every other field as here.
inline const char* const seed_gemm_row =
    "target=gfx942 kernel=gemm_kernel::gemm_kernel vgpr=221 agpr=0 lds=53248 occupancy=2 loop_instructions=198 "
    "loop_mfma=64 loop_mfma_work=64.0 loop_mfma_cycles=1024.0 loop_barriers=2 loop_valu=64 loop_vmem_loads=8 "
    "loop_load_cover=0.118 loop_mfma_kind=fp8";
// N = 576: the bounds-checked epilogue moves the scale load's wait (same loop otherwise).
inline const char* const seed_gemm_row_n576 =
    "target=gfx942 kernel=gemm_kernel::gemm_kernel vgpr=222 agpr=0 lds=53248 occupancy=2 loop_instructions=198 "
    "loop_mfma=64 loop_mfma_work=64.0 loop_mfma_cycles=1024.0 loop_barriers=2 loop_valu=64 loop_vmem_loads=8 "
    "loop_load_cover=0.946 loop_mfma_kind=fp8";
// K = 256: two K steps, unrolled; the whole kernel.
inline const char* const seed_gemm_row_k256 =
    "target=gfx942 kernel=gemm_kernel::gemm_kernel vgpr=199 agpr=0 lds=53248 occupancy=2 loop_instructions=835 "
    "loop_mfma=128 loop_mfma_work=128.0 loop_mfma_cycles=2048.0 loop_barriers=3 loop_valu=435 loop_vmem_loads=14 "
    "loop_load_cover=0.0 loop_mfma_kind=fp8";

// A transpose instance's row, by its <rows, columns> (the whole kernel: no loop).
inline std::string seed_transpose_row(int vgpr, int lds, int occupancy, int instructions, int valu, int loads) {
  return "target=gfx942 kernel=transpose_kernel::transpose_kernel vgpr=" + std::to_string(vgpr) +
         " agpr=0 lds=" + std::to_string(lds) + " occupancy=" + std::to_string(occupancy) +
         " loop_instructions=" + std::to_string(instructions) +
         " loop_mfma=0 loop_mfma_work=0 loop_mfma_cycles=0 loop_barriers=1 loop_valu=" + std::to_string(valu) +
         " loop_vmem_loads=" + std::to_string(loads) + " loop_load_cover=0 loop_mfma_kind=none";
}
inline std::string seed_reduce_row(int vgpr, int instructions, int valu, int loads) {
  return "target=gfx942 kernel=gemm_kernel::reduce_kernel vgpr=" + std::to_string(vgpr) +
         " agpr=0 lds=0 occupancy=8 loop_instructions=" + std::to_string(instructions) +
         " loop_mfma=0 loop_mfma_work=0 loop_mfma_cycles=0 loop_barriers=0 loop_valu=" + std::to_string(valu) +
         " loop_vmem_loads=" + std::to_string(loads) + " loop_load_cover=0 loop_mfma_kind=none";
}

struct seed_transpose {
  int dim0, dim1, tile, threads;  // transpose_kernel<fp8, DIM0, DIM1, TILE, BLOCK, VEC>: [DIM0][DIM1] -> [DIM1][DIM0]
  int vgpr, lds, occupancy, instructions, valu, loads;
};

// launch_transpose: grid (DIM1 / TILE, DIM0 / TILE) of BLOCK threads, every byte read and written
// once, each workgroup's TILE x TILE bytes through LDS (written, then read).
inline timed_launch transpose_launch(const seed_transpose& t) {
  planning::launch_work w;
  w.workgroups = std::ceil(double(t.dim1) / t.tile) * std::ceil(double(t.dim0) / t.tile);
  w.waves_per_workgroup = t.threads / 64;
  w.loop_iterations_per_wave = 1;
  w.loaded_bytes = w.dram_read_bytes = w.written_bytes = double(t.dim0) * t.dim1;
  w.lds_bytes_per_workgroup = 2.0 * t.tile * t.tile;
  return {seed_transpose_row(t.vgpr, t.lds, t.occupancy, t.instructions, t.valu, t.loads), launch_text(w)};
}

// The seed GEMM's launch: grid (2 ceil(N/128), ceil(M/256) / 2, S) of 512 threads, the block
// (x, y) computing tile (N tile x >> 1, M tile 2y + (x & 1)) over K/S; a wave's 64 x 64 share runs
// K/S/128 steps of 64 MFMAs. Each step every lane loads its A and B tile bytes (16-byte loads) and
// two fp32 scales (4096 B a block); LDS takes the 256 x 128 and 128 x 128 tiles and the A scales,
// and each wave reads its 64 rows of each. The XCDs' fetches follow the swizzled grid.
inline planning::launch_work seed_gemm_launch(int m, int n, int k, int splits) {
  const int tiles_n = (n + 127) / 128, tiles_m = (m + 255) / 256, gx = 2 * tiles_n, gy = tiles_m / 2;
  const int steps = k / splits / 128;
  planning::launch_work w;
  w.workgroups = double(gx) * gy * splits;
  w.waves_per_workgroup = 8;
  w.loop_iterations_per_wave = steps;
  const double n_padded = tiles_n * 128.0;
  w.loaded_bytes = double(tiles_n) * m * k + double(tiles_m) * n_padded * k + w.workgroups * steps * 4096.0;
  w.dram_read_bytes = double(m) * k + n_padded * k + (k / 128.0) * (m + tiles_n) * 4;
  w.written_bytes = splits > 1 ? 4.0 * splits * m * n : 2.0 * m * n;
  w.lds_bytes_per_workgroup = steps * (256.0 * 128 + 128.0 * 128 + 256 * 4 + 8 * (64.0 * 128 + 64.0 * 128));
  // Each XCD fetches the A rows and B columns of the tiles its workgroups (index mod 8) compute.
  double fetch = 0;
  for (int xcd = 0; xcd < 8; ++xcd) {
    std::vector<char> a_tile(std::size_t(tiles_m) * splits), b_tile(std::size_t(tiles_n) * splits);
    for (int z = 0; z < splits; ++z)
      for (int y = 0; y < gy; ++y)
        for (int x = 0; x < gx; ++x)
          if ((x + gx * (y + gy * z)) % 8 == xcd)
            a_tile[std::size_t(z) * tiles_m + 2 * y + (x & 1)] = 1, b_tile[std::size_t(z) * tiles_n + (x >> 1)] = 1;
    for (char t : a_tile) fetch += t * 256.0 * k / splits;
    for (char t : b_tile) fetch += t * 128.0 * k / splits;
  }
  w.l2_fetch_bytes = fetch;
  return w;
}

// The seed's six published times (its README, MI300X: the checker's best of 5 calls, hipEvents
// around its transposes of B and A, the GEMM and, with split-K, the reduce; no cache flush).
// Cases 0, 2 and 4 are fitted on; 1, 3 and 5 are held out.
inline std::vector<published_pair> seed_pairs() {
  struct c {
    int m, n, k, splits;
    double us;
    seed_transpose b, a;
    const char* gemm_row;
    int reduce_vgpr, reduce_instructions, reduce_valu, reduce_loads;
  } const cases[] = {
      // clang-format off
      // M, N, K, splits, us; transpose of B and of A (DIM0, DIM1, tile, threads; VGPRs, LDS,
      // occupancy, instructions, VALU, loads); the GEMM's row; the reduce's VGPRs, instructions,
      // VALU, loads (no reduce without split-K)
      {1024, 1536, 7168, 4, 76.33, {7168, 1536, 128, 1024, 20, 16896, 8, 81, 42, 2},
       {7168, 1024, 64, 256, 24, 4352, 8, 100, 52, 4}, seed_gemm_row, 19, 61, 34, 4},
      {1024, 3072, 1536, 2, 42.78, {1536, 3072, 64, 512, 12, 4352, 8, 63, 31, 2},
       {1536, 1024, 64, 1024, 7, 4352, 8, 40, 20, 1}, seed_gemm_row, 11, 45, 26, 2},
      {1024, 576, 7168, 8, 45.14, {7168, 576, 64, 512, 12, 4352, 8, 63, 31, 2},
       {7168, 1024, 64, 256, 24, 4352, 8, 100, 52, 4}, seed_gemm_row_n576, 35, 94, 50, 8},
      {1024, 7168, 256, 1, 20.37, {256, 7168, 64, 256, 20, 4608, 8, 78, 40, 2},
       {256, 1024, 64, 256, 24, 4352, 8, 98, 51, 4}, seed_gemm_row_k256, 0, 0, 0, 0},
      {1024, 7168, 2048, 1, 75.29, {2048, 7168, 128, 512, 38, 16896, 6, 139, 75, 4},
       {2048, 1024, 64, 1024, 7, 4352, 8, 39, 20, 1}, seed_gemm_row, 0, 0, 0, 0},
      {1024, 4608, 7168, 2, 136.35, {7168, 4608, 128, 512, 38, 16896, 6, 142, 76, 4},
       {7168, 1024, 64, 256, 24, 4352, 8, 100, 52, 4}, seed_gemm_row, 11, 45, 26, 2},
      // clang-format on
  };
  std::vector<published_pair> out;
  int i = 0;
  for (const c& s : cases) {
    published_pair p{"seed " + std::to_string(i),
                     "fp8 block-scale GEMM (RadeonFlow)",
                     "RadeonFlow_Kernels README, case " + std::to_string(i),
                     s.us,
                     i % 2 == 0,
                     {}};
    p.launches.push_back(transpose_launch(s.b));
    p.launches.push_back(transpose_launch(s.a));
    planning::launch_work g = seed_gemm_launch(s.m, s.n, s.k, s.splits);
    if (s.k / s.splits == 256) g.loop_iterations_per_wave = 1;  // the unrolled kernel runs once
    p.launches.push_back({s.gemm_row, launch_text(g)});
    if (s.splits > 1) {  // reduce_kernel: M N / 4 threads of 256, each summing S float4 partials
      planning::launch_work r;
      r.workgroups = double(s.m) * s.n / 4 / 256;
      r.waves_per_workgroup = 4;
      r.loop_iterations_per_wave = 1;
      r.loaded_bytes = r.dram_read_bytes = 4.0 * s.splits * s.m * s.n;
      r.written_bytes = 2.0 * s.m * s.n;
      p.launches.push_back(
          {seed_reduce_row(s.reduce_vgpr, s.reduce_instructions, s.reduce_valu, s.reduce_loads), launch_text(r)});
    }
    out.push_back(std::move(p));
    ++i;
  }
  return out;
}

inline std::vector<published_pair> published_pairs() { return seed_pairs(); }

}  // namespace wavekit::perf_text
