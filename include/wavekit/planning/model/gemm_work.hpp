// The launches of a tiled GEMM for the performance model (planning/model/launch_time.hpp): the main kernel
// over tiles x K splits, and with split-K the reduce of the fp32 partials. Every GEMM op (fp8
// block-scaled and scaled, bf16/fp16, MX) describes its config with gemm_tile and its operands with
// gemm_operands; the traffic is the kernels' (each block loads its A rows and B columns over its K
// range; LDS holds each step's tiles, and each wave reads its rows and columns of them), which the
// ops' tests check against the emulator's counters.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "wavekit/arch/target.hpp"
#include "wavekit/planning/model/kernel_profile.hpp"
#include "wavekit/planning/model/launch_time.hpp"

namespace wavekit::planning {

struct gemm_tile {
  int block_m, block_n, block_k;  // block_k in elements
  int wave_m, wave_n;             // one wave's share of the tile
  int threads;
  // The K elements split-K cuts in (0: block_k; the block-scaled GEMMs cut at their 128-K scale
  // groups, block::splitk_cut over them).
  int split_unit_k = 0;
};

// The tile of a config whose K step depends on the target (the fp8 GEMMs' block_k_on: gfx950's
// f8f6f4 MFMAs take twice the K of gfx942's fp8 ones).
template <class C>
gemm_tile gemm_tile_on(arch::target t) {
  const int bk = t == arch::target::gfx950 ? C::template block_k_on<arch::target::gfx950>
                                           : C::template block_k_on<arch::target::gfx942>;
  return {C::block_m, C::block_n, bk, C::wave_m, C::wave_n, C::threads};
}

struct gemm_operands {
  double a_bytes, b_bytes, c_bytes;  // per element (fp4: 0.5), what the tiles carry through LDS
  // Scale bytes a block loads per K step beyond its A and B tiles (block-scaled: B's group scale,
  // brought by each of the block's row threads; per-tensor: 0).
  double scale_bytes_per_step = 0;
  // Scale bytes of the whole problem beyond a_scale_bytes' and b_scale_bytes', each once (what
  // DRAM serves).
  double scale_bytes_once = 0;
  // Scale bytes a block loads once, in its epilogue: per block (per-tensor scales), and per row
  // and per column of C in it (per-channel scales; rows past M and columns past N load none).
  double scale_bytes_per_block = 0;
  double scale_bytes_per_row = 0, scale_bytes_per_col = 0;
  // The scales of A's rows and B's columns, per element, loaded from global memory beside the
  // tiles (rows past M and columns past N load none): block-scaled A's fp32 per 128, MX's e8m0
  // per 32. A block loads its rows' and columns' once, or with scales_per_wave each wave its own
  // (MX: every MFMA takes its lanes' scales; a block loads A's once per wave column and B's once
  // per wave row). DRAM serves each once.
  double a_scale_bytes = 0, b_scale_bytes = 0;
  bool scales_per_wave = false;
};

// The bytes a tiled GEMM's XCDs fetch into their L2s (docs/performance-model.md). The grid is (N
// tiles, M tiles, splits), its flat workgroup index N tile fastest, and workgroup w runs on XCD w mod
// xcds. An M tile's row of workgroups (consecutive indices) spans min(N tiles, xcds) XCDs, each
// fetching the tile's A rows once; an N tile's column (indices N tiles apart) spans
// min(M tiles, xcds / gcd(N tiles, xcds)) of them, each fetching its B columns once.
inline double l2_fetch_bytes(int m, int n, int k, double tiles_m, double tiles_n, const gemm_operands& o,
                             int xcds = 8) {
  const long long gx = static_cast<long long>(tiles_n);
  long long a = gx % xcds, b = xcds;  // gcd(N tiles, xcds)
  while (a != 0) {
    const long long r = b % a;
    b = a, a = r;
  }
  const double rows_per_xcd = std::min<double>(tiles_n, xcds), cols_per_xcd = std::min<double>(tiles_m, xcds / b);
  return double(m) * k * (o.a_bytes + o.a_scale_bytes) * rows_per_xcd +
         double(n) * k * (o.b_bytes + o.b_scale_bytes) * cols_per_xcd + o.scale_bytes_once;
}

// The main kernel and, for splits > 1, the reduce (`reduce` its profile). K is cut as the launchers
// cut it (block::splitk_cut): each split a whole number of units, the splits that get any run.
inline std::vector<launch_work> gemm_launches(int m, int n, int k, const gemm_tile& t, const gemm_operands& o,
                                              int splits, const kernel_profile* main, const kernel_profile* reduce) {
  const double tiles_m = std::ceil(double(m) / t.block_m), tiles_n = std::ceil(double(n) / t.block_n);
  const double steps_total = std::ceil(double(k) / t.block_k);
  const int unit = t.split_unit_k > 0 ? t.split_unit_k : t.block_k;
  const double units = std::ceil(double(k) / unit), per_split = std::ceil(units / splits);
  const double used_splits = std::ceil(units / per_split);
  const double steps = std::min(steps_total, per_split * unit / t.block_k);  // a block's K steps (at most)
  launch_work w;
  w.profile = main;
  w.what = "main loop" + (splits > 1 ? ", " + std::to_string(splits) + " K splits" : std::string());
  w.workgroups = tiles_m * tiles_n * used_splits;
  w.waves_per_workgroup = t.threads / 64;
  // A wave's multiply-adds over its K range, in the loop's units (the profile's MFMA work).
  const double wave_macs = double(t.wave_m) * t.wave_n * steps * t.block_k;
  if (main && main->loop_mfma_work > 0) w.loop_iterations_per_wave = wave_macs / (8192.0 * main->loop_mfma_work);
  const double tile_bytes = t.block_m * t.block_k * o.a_bytes + t.block_n * t.block_k * o.b_bytes;
  const double wave_reads = (t.wave_m * o.a_bytes + t.wave_n * o.b_bytes) * t.block_k * (t.threads / 64);
  w.lds_bytes_per_workgroup = steps * (tile_bytes + wave_reads);
  // Rows past M and columns past N load nothing; the splits' blocks of a tile together run its K
  // steps. A tile loads its rows' (columns') scales once, or once per wave column (row).
  const double a_scale_loads = o.scales_per_wave ? t.block_n / t.wave_n : 1;
  const double b_scale_loads = o.scales_per_wave ? t.block_m / t.wave_m : 1;
  w.loaded_bytes =
      tiles_n * double(m) * k * (o.a_bytes + a_scale_loads * o.a_scale_bytes) +
      tiles_m * double(n) * k * (o.b_bytes + b_scale_loads * o.b_scale_bytes) +
      tiles_m * tiles_n * steps_total * o.scale_bytes_per_step + w.workgroups * o.scale_bytes_per_block +
      used_splits * (tiles_n * double(m) * o.scale_bytes_per_row + tiles_m * double(n) * o.scale_bytes_per_col);
  w.dram_read_bytes = double(m) * k * (o.a_bytes + o.a_scale_bytes) + double(n) * k * (o.b_bytes + o.b_scale_bytes) +
                      o.scale_bytes_once;
  w.l2_fetch_bytes = l2_fetch_bytes(m, n, k, tiles_m, tiles_n, o);
  w.written_bytes = splits > 1 ? 4.0 * used_splits * m * n : o.c_bytes * m * n;
  std::vector<launch_work> out{w};
  if (splits > 1) {
    launch_work r;
    r.profile = reduce;
    r.what = "split-K reduce";
    r.workgroups = std::ceil(double(m) * n / (256.0 * 4));  // 256 threads, 4 outputs a thread
    r.waves_per_workgroup = 4;
    r.loaded_bytes = r.dram_read_bytes = 4.0 * used_splits * m * n;
    r.written_bytes = o.c_bytes * m * n;
    out.push_back(r);
  }
  return out;
}

// Bytes of A and B that every GEMM of p's batch reads (an operand whose batch stride is 0), for
// elements of a_bytes and b_bytes.
template <class Problem>
double shared_operand_bytes(const Problem& p, double a_bytes, double b_bytes) {
  return double(p.k) * ((p.batch.a == 0 ? p.m * a_bytes : 0.0) + (p.batch.b == 0 ? p.n * b_bytes : 0.0));
}

// The launches of a batch of `count` GEMMs (core/gemm_view.hpp) where `one` are one GEMM's: the
// same blocks count times over, their bytes count times, but for `shared_read_bytes` of the first
// launch's distinct reads (an A or B every GEMM of the batch reads: batch stride 0), read from DRAM
// once. The model's calibration holds single GEMMs; a batch is this linear extension of it.
inline std::vector<launch_work> batched_launches(std::vector<launch_work> one, int count,
                                                 double shared_read_bytes = 0) {
  for (launch_work& w : one) {
    w.workgroups *= count;
    w.loaded_bytes *= count, w.dram_read_bytes *= count, w.written_bytes *= count;
    if (w.l2_fetch_bytes >= 0) w.l2_fetch_bytes *= count;
  }
  if (!one.empty()) one.front().dram_read_bytes -= (count - 1) * shared_read_bytes;
  return one;
}

}  // namespace wavekit::planning
