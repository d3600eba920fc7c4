// Register vector types of the AMDGPU builtins (clang ext_vector_type). Device-side code only:
// these need clang, which both the device compiler and the CPU emulator build use.
#pragma once

#if !defined(__clang__)
#error \
    "wavekit/core/vector.hpp needs clang (ext_vector_type): it is device and emulator code; host-only code includes core/, host/ and the plan queries without it"
#endif

#include <cstdint>

namespace wavekit {

using floatx4 = float __attribute__((ext_vector_type(4)));
using floatx16 = float __attribute__((ext_vector_type(16)));
using int32x4 = std::int32_t __attribute__((ext_vector_type(4)));
using int32x8 = std::int32_t __attribute__((ext_vector_type(8)));

}  // namespace wavekit
