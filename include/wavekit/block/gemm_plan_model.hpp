// The performance model GEMM plans are chosen with (plain C++, no HIP): a candidate (tile config,
// K splits) on a target's flagship part takes the larger of its compute time and its memory time.
// Compute counts whole waves of blocks over the CUs (a partial last wave costs a full one) at the
// matrix rate the kernel's instructions reach, discounted for small wave tiles; memory counts A
// once per column of tiles, B once per row of tiles, C, and for split-K the fp32 partials written
// and read back. Device facts are the target's own (arch/device_facts.hpp). No AMD GPU was
// available to fit it: it orders candidates, it does not promise times.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>
#include <type_traits>

#include "wavekit/arch/device_facts.hpp"
#include "wavekit/core/status.hpp"

namespace wavekit::block {

// What the model needs of a tile config.
struct gemm_tile_facts {
  int block_m, block_n, wave_m, wave_n, lds_bytes;
};

// Bytes per element of A, B and C as the kernel moves them.
struct gemm_element_bytes {
  double a, b, c;
};

// The device facts of a target plans are made for (gfx942 or gfx950; the public queries refuse
// anything else before asking).
inline arch::device_facts planned_facts(arch::target t) { return arch::facts_for(t); }

// Estimated seconds of an m x n x k GEMM cut into `splits` K splits with tile f, its matrix
// instructions reaching `tflops` on target t.
inline double gemm_model_seconds(int m, int n, int k, const gemm_tile_facts& f, int splits, double tflops,
                                 gemm_element_bytes bytes_of, arch::target t) {
  const arch::device_facts device = planned_facts(t);
  const double cus = device.compute_units, flops_per_cu = tflops * 1e12 / cus, hbm = device.hbm_tb_per_s * 1e12;
  const double tiles_m = std::ceil(double(m) / f.block_m), tiles_n = std::ceil(double(n) / f.block_n);
  const double blocks = tiles_m * tiles_n * splits;
  const int per_cu = std::max(1, std::min(2, device.lds_bytes_per_cu / f.lds_bytes));  // LDS-limited blocks per CU
  const double waves = std::ceil(blocks / (cus * per_cu));
  // Small wave tiles reach a smaller share of the MFMA rate (operand reads per MFMA grow).
  const double efficiency = std::min(1.0, (f.wave_m * f.wave_n) / (64.0 * 64.0)) * 0.6 + 0.25;
  const double block_flops = 2.0 * f.block_m * f.block_n * (double(k) / splits);
  const double compute = waves * block_flops / (flops_per_cu / per_cu * efficiency);
  const double bytes = bytes_of.a * m * k * tiles_n + bytes_of.b * double(n) * k * tiles_m + bytes_of.c * m * n +
                       (splits > 1 ? 8.0 * splits * m * n : 0.0);
  return std::max(compute, bytes / hbm) + (splits > 1 ? 3e-6 : 0.0);  // + the reduction launch
}

// Multiply-adds a tile executes over the problem, the padding of partial tiles included.
inline double gemm_padded_flops(int m, int n, int k, const gemm_tile_facts& f) {
  return 2.0 * std::ceil(double(m) / f.block_m) * f.block_m * std::ceil(double(n) / f.block_n) * f.block_n * k;
}

// Whether candidate (time, work) beats the best so far: faster by more than 2%, or within 2% (a
// tie for the model, typically where memory bounds every plan) with less padded work.
inline bool gemm_model_prefers(double time, double work, double best_time, double best_work) {
  return time < best_time * 0.98 || (time <= best_time * 1.02 && work < best_work * 0.98);
}

// What a GEMM's plan query answers: the plan a call runs (config and K splits), its name, and the
// workspace it uses next to what the plan chosen with unlimited workspace would.
template <class Plan>
struct gemm_plan_info {
  Plan plan;                                  // configuration and number of K splits
  std::string name;                           // e.g. "gemm_fp8_bs<256x128x64, w4x2, mfma32x32x16, sk2>"
  std::size_t workspace_bytes = 0;            // what this plan uses of the workspace
  std::size_t preferred_workspace_bytes = 0;  // what the plan chosen with unlimited workspace uses
  bool workspace_limited = false;             // this plan differs from that one for lack of workspace
};

// The target rule every plan query shares: plans are made for gfx942 or gfx950. `what` names the
// op and the problem ("gemm_half 64x64x256 k_contiguous").
inline status check_plan_target(const std::string& what, arch::target t) {
  if (t != arch::target::gfx942 && t != arch::target::gfx950)
    return {status_code::bad_config, what + ": plans are for gfx942 or gfx950, not " + arch::to_string(t)};
  return status::success();
}

// The answer of a plan query given `workspace` bytes: choose(bytes) picks a plan with at most that
// much workspace, name(plan) names it, bytes_for(splits) is the workspace a number of splits uses.
template <class Choose, class Name, class Bytes>
auto describe_plan(std::size_t workspace, Choose choose, Name name, Bytes bytes_for) {
  const auto preferred = choose(~std::size_t{0}), chosen = choose(workspace);
  gemm_plan_info<std::remove_cv_t<decltype(chosen)>> info;
  info.plan = chosen;
  info.name = name(chosen);
  info.workspace_bytes = bytes_for(chosen.splits);
  info.preferred_workspace_bytes = bytes_for(preferred.splits);
  info.workspace_limited = chosen.config != preferred.config || chosen.splits != preferred.splits;
  return info;
}

// Bytes of the fp32 split-K partials ([splits][M][N]) of an m x n output; 0 without split-K.
inline std::size_t splitk_workspace_bytes(int m, int n, int splits) {
  return splits > 1 ? std::size_t(splits) * std::size_t(m) * std::size_t(n) * sizeof(float) : 0;
}

}  // namespace wavekit::block
