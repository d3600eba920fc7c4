// Register vector types of the AMDGPU builtins (clang ext_vector_type). Device-side code only:
// these need clang, which both the device compiler and the CPU emulator build use.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#if !defined(__clang__)
#error \
    "wavekit/core/vector.hpp needs clang (ext_vector_type): it is device and emulator code; host-only code includes core/, host/ and the plan queries without it"
#endif

#include <cstdint>

namespace wavekit {

using floatx2 = float __attribute__((ext_vector_type(2)));  // v_pk_fma_f32, v_pk_add_f32 operands
using floatx4 = float __attribute__((ext_vector_type(4)));
using floatx16 = float __attribute__((ext_vector_type(16)));
using int32x2 = std::int32_t __attribute__((ext_vector_type(2)));
using int32x4 = std::int32_t __attribute__((ext_vector_type(4)));
using int32x8 = std::int32_t __attribute__((ext_vector_type(8)));
// 16-bit MFMA operands: the CDNA3 forms take 4 values (f16 as _Float16, bf16 as raw int16 bits),
// gfx950's K = 32 / 16 forms 8 (f16 as _Float16, bf16 as __bf16).
using f16x4 = _Float16 __attribute__((ext_vector_type(4)));
using f16x8 = _Float16 __attribute__((ext_vector_type(8)));
using i16x4 = std::int16_t __attribute__((ext_vector_type(4)));
using bf16x2 = __bf16 __attribute__((ext_vector_type(2)));
using bf16x8 = __bf16 __attribute__((ext_vector_type(8)));

}  // namespace wavekit
