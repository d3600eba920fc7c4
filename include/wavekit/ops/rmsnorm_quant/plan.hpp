// How many workgroups a launch takes (plain C++): the performance model's choice, workgroups(p, t)
// in model.hpp (a workgroup normalizes rows t, t + grid, ... and reads the weight once).
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include "wavekit/ops/rmsnorm_quant/model.hpp"
