// The launches of a tiled GEMM for the performance model (perf/launch_time.hpp): the main kernel
// over tiles x K splits, and with split-K the reduce of the fp32 partials. Every GEMM op (fp8
// block-scaled and scaled, bf16/fp16, MX) describes its config with gemm_tile and its operands with
// gemm_operands; the traffic is the kernels' (each block loads its A rows and B columns over its K
// range; LDS holds each step's tiles, and each wave reads its rows and columns of them), which the
// ops' tests check against the emulator's counters.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "wavekit/arch/target.hpp"
#include "wavekit/perf/kernel_profile.hpp"
#include "wavekit/perf/launch_time.hpp"

namespace wavekit::perf {

struct gemm_tile {
  int block_m, block_n, block_k;  // block_k in elements
  int wave_m, wave_n;             // one wave's share of the tile
  int threads;
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
  double a_bytes, b_bytes, c_bytes;  // per element (fp4: 0.5)
  // Scale bytes a block loads per K step beyond its A and B tiles (block-scaled: its A rows' and
  // B's group scales; MX: one byte per 32 elements of each row and column; per-tensor: 0).
  double scale_bytes_per_step = 0;
  // Scale bytes of the whole problem, each once (what DRAM serves of them).
  double scale_bytes_once = 0;
  // Scale bytes a block loads once, in its epilogue (per-tensor and per-channel scales).
  double scale_bytes_per_block = 0;
};

// The main kernel and, for splits > 1, the reduce (`reduce` its profile).
inline std::vector<launch_work> gemm_launches(int m, int n, int k, const gemm_tile& t, const gemm_operands& o,
                                              int splits, const kernel_profile* main, const kernel_profile* reduce) {
  const double tiles_m = std::ceil(double(m) / t.block_m), tiles_n = std::ceil(double(n) / t.block_n);
  const double steps_total = std::ceil(double(k) / t.block_k);
  const double steps = std::ceil(steps_total / splits);  // per block: its split's K steps
  launch_work w;
  w.profile = main;
  w.what = "main loop" + (splits > 1 ? ", " + std::to_string(splits) + " K splits" : std::string());
  w.workgroups = tiles_m * tiles_n * splits;
  w.waves_per_workgroup = t.threads / 64;
  // A wave's multiply-adds over its K range, in the loop's units (the profile's MFMA work).
  const double wave_macs = double(t.wave_m) * t.wave_n * steps * t.block_k;
  if (main && main->loop_mfma_work > 0) w.loop_iterations_per_wave = wave_macs / (8192.0 * main->loop_mfma_work);
  const double tile_bytes = t.block_m * t.block_k * o.a_bytes + t.block_n * t.block_k * o.b_bytes;
  const double wave_reads = (t.wave_m * o.a_bytes + t.wave_n * o.b_bytes) * t.block_k * (t.threads / 64);
  w.lds_bytes_per_workgroup = steps * (tile_bytes + wave_reads);
  const double kk = std::min<double>(k, steps * t.block_k * splits);
  w.loaded_bytes = tiles_n * double(m) * kk * o.a_bytes + tiles_m * double(n) * kk * o.b_bytes +
                   w.workgroups * (steps * o.scale_bytes_per_step + o.scale_bytes_per_block);
  w.dram_read_bytes = double(m) * k * o.a_bytes + double(n) * k * o.b_bytes + o.scale_bytes_once;
  w.written_bytes = splits > 1 ? 4.0 * splits * m * n : o.c_bytes * m * n;
  std::vector<launch_work> out{w};
  if (splits > 1) {
    launch_work r;
    r.profile = reduce;
    r.what = "split-K reduce";
    r.workgroups = std::ceil(double(m) * n / (256.0 * 4));  // 256 threads, 4 outputs a thread
    r.waves_per_workgroup = 4;
    r.loaded_bytes = r.dram_read_bytes = 4.0 * splits * m * n;
    r.written_bytes = o.c_bytes * m * n;
    out.push_back(r);
  }
  return out;
}

}  // namespace wavekit::perf
