// How many workgroups a launch takes (plain C++). A workgroup normalizes rows t, t + grid, ... and
// loads the weight once, keeping it in registers across its rows: up to two workgroups a compute
// unit each row has its own workgroup (decode: every row in flight at once; the weight's repeats
// are L2 hits), past that rows share them and the weight is read once per workgroup.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <algorithm>

#include "wavekit/arch/device_facts.hpp"
#include "wavekit/arch/target.hpp"
#include "wavekit/ops/rmsnorm_quant/problem.hpp"

namespace wavekit::ops::rmsnorm_quant {

inline int workgroups(const problem& p, arch::target t) {
  return std::min(p.tokens, 2 * arch::facts_for(t).compute_units);
}

}  // namespace wavekit::ops::rmsnorm_quant
