// The performance model's view of SwiGLU + fp8 (planning/model/launch_time.hpp), and the grid it
// chooses: workgroups(p, t) workgroups of 256 threads, each taking its rows in turn, an item (8
// gate and 8 up values a lane) a pass of the hot loop; every byte read and written once.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <cmath>
#include <vector>

#include "wavekit/arch/target.hpp"
#include "wavekit/ops/swiglu_quant/problem.hpp"
#include "wavekit/planning/model/launch_time.hpp"
#include "wavekit/planning/model/profiles.hpp"
#include "wavekit/planning/row_grid.hpp"

namespace wavekit::ops::swiglu_quant {

// `grid`: the launch's workgroups.
inline std::vector<planning::launch_work> model_launches(const problem& p, arch::target t, int grid) {
  planning::launch_work w;
  w.profile = planning::find_profile(
      t, planning::family_named("swiglu_quant"),
      p.out_scales == scale_granularity::tensor ? "swiglu_quant_kernel<fp16" : "swiglu_quant_kernel<bf16");
  w.what = "SwiGLU + fp8";
  w.workgroups = grid;
  w.waves_per_workgroup = row_threads / 64;
  w.loop_iterations_per_wave = std::ceil(double(p.tokens) / grid) * std::ceil(p.d / 8.0 / row_threads);
  const double scales = p.out_scales == scale_granularity::group_1x128 ? double(p.tokens) * p.d / 128 * 4 : 0;
  w.loaded_bytes = w.dram_read_bytes = 4.0 * p.tokens * p.d;
  w.written_bytes = double(p.tokens) * p.d + scales;
  return {w};
}

// How many workgroups a launch takes on a device of target `device`: the model's choice among a
// workgroup a row and 1 to 8 a CU (planning/row_grid.hpp). Nothing is loaded once a workgroup, so
// fewer workgroups only launch fewer.
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

}  // namespace wavekit::ops::swiglu_quant
