// The performance model's view of residual + RMSNorm + fp8 (planning/model/launch_time.hpp), and the grid it
// chooses: one launch of workgroups(p, t) workgroups of 512 threads, each normalizing its rows in turn (the hot loop is
// a row), reading x and the residual once, the weight once a workgroup (the emulator's distinct bytes: once), writing
// the residual, q and its scales.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <cmath>
#include <vector>

#include "wavekit/arch/target.hpp"
#include "wavekit/ops/rmsnorm_quant/problem.hpp"
#include "wavekit/planning/model/launch_time.hpp"
#include "wavekit/planning/model/profiles.hpp"
#include "wavekit/planning/row_grid.hpp"

namespace wavekit::ops::rmsnorm_quant {

// element_bytes: 2 (bf16, fp16). The codegen instances: fp16 per tensor and bf16 1x128 (both with
// the residual); a problem takes the one of its scale kind. `grid`: the launch's workgroups.
inline std::vector<planning::launch_work> model_launches(const problem& p, arch::target t, int grid) {
  planning::launch_work w;
  w.profile = planning::find_profile(
      t, planning::family_named("rmsnorm_quant"),
      p.out_scales == scale_granularity::tensor ? "rmsnorm_quant_kernel<fp16" : "rmsnorm_quant_kernel<bf16");
  w.what = "residual + RMSNorm + fp8";
  w.workgroups = grid;
  w.waves_per_workgroup = row_threads / 64;
  w.loop_iterations_per_wave = std::ceil(p.tokens / w.workgroups);
  const double row = 2.0 * p.hidden, rows = double(p.tokens) * row, weight = 2.0 * p.hidden;
  const bool residual = p.residual == residual_mode::add;
  const double scales = p.out_scales == scale_granularity::group_1x128 ? double(p.tokens) * p.hidden / 128 * 4 : 0;
  w.loaded_bytes = rows * (residual ? 2 : 1) + w.workgroups * weight;
  w.dram_read_bytes = rows * (residual ? 2 : 1) + weight;
  w.written_bytes = (residual ? rows : 0) + double(p.tokens) * p.hidden + scales;
  return {w};
}

// How many workgroups a launch takes on a device of target `device`: a workgroup normalizes rows
// t, t + grid, ... and loads the weight once, keeping it in registers across its rows; the model
// chooses the grid (planning/row_grid.hpp): more workgroups put more rows in flight at once, fewer
// read the weight fewer times.
inline int workgroups(const problem& p, arch::target device) {
  return planning::choose_row_grid(p.tokens, device,
                                   [&](int grid, arch::target t) { return model_launches(p, t, grid); });
}

// The launches of the grid the launch takes (what the tests compare with the emulator's counts).
inline std::vector<planning::launch_work> model_launches(const problem& p, arch::target t) {
  return model_launches(p, t, workgroups(p, t));
}

inline planning::op_time model_time(const problem& p, arch::target t) {
  return planning::predict(model_launches(p, t), t);
}

}  // namespace wavekit::ops::rmsnorm_quant
