// The grid of a row-wise op (RMSNorm, SwiGLU: a workgroup takes rows r, r + grid, ...), chosen by
// the performance model (plain C++, no HIP): among a workgroup a row and 1, 2, 4 or 8 workgroups a
// CU, the grid within the model's error of the fastest that is most robust (model/plan_choice.hpp).
// More workgroups put more rows in flight at once; fewer share what a workgroup loads once (the
// RMSNorm weight) over more rows and launch fewer workgroups.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <algorithm>
#include <vector>

#include "wavekit/arch/device_facts.hpp"
#include "wavekit/arch/target.hpp"
#include "wavekit/planning/model/launch_time.hpp"
#include "wavekit/planning/model/plan_choice.hpp"

namespace wavekit::planning {

// The grid for `rows` rows on a device of target `device` (the host plans as gfx942);
// launches(grid, t) gives the op's launches with that grid.
template <class Launches>
int choose_row_grid(int rows, arch::target device, Launches&& launches) {
  if (rows <= 0) return 1;
  const arch::target t = device == arch::target::gfx950 ? device : arch::target::gfx942;
  const int cus = arch::facts_for(t).compute_units;
  std::vector<scored_plan<int>> candidates;
  for (int grid :
       {rows, std::min(rows, cus), std::min(rows, 2 * cus), std::min(rows, 4 * cus), std::min(rows, 8 * cus)}) {
    const bool seen = std::any_of(candidates.begin(), candidates.end(), [&](const auto& c) { return c.plan == grid; });
    if (!seen) candidates.push_back(score(grid, predict(launches(grid, t), t)));
  }
  return choose_within_model_error(candidates);
}

}  // namespace wavekit::planning
