// The fp8 format a test must hand the device: e4m3fnuz on gfx942, OCP e4m3fn on gfx950. On the
// emulator the emulated target is fixed at compile time; in a GPU build one binary serves both
// targets, so the device is asked at run time (gpu_catch_main.cpp has skipped other devices).
#pragma once

#include <hip/hip_runtime.h>

#include <type_traits>

#include "wavekit/arch/device.hpp"
#include "wavekit/arch/target.hpp"
#include "wavekit/core/numeric_types.hpp"

namespace wavekit::test {

// The format that is not the device's: what the API must refuse.
template <class Fp8>
using other_fp8_t = std::conditional_t<std::is_same_v<Fp8, fp8_e4m3fn>, fp8_e4m3fnuz, fp8_e4m3fn>;

// f(Fp8{}) with the device's format: the library's one decision (arch/device.hpp).
using arch::with_device_fp8;

}  // namespace wavekit::test
