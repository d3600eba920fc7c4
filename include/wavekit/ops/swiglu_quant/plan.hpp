// How many workgroups a launch takes (plain C++): the performance model's choice, workgroups(p, t)
// in model.hpp (a workgroup takes rows t, t + grid, ...).
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include "wavekit/ops/swiglu_quant/model.hpp"
