// gfx950 (CDNA4: MI355X): the fp8 formats its matrix cores read and thin wrappers over
// the instructions wavekit uses (device facts: arch/device_facts.hpp). Semantics: docs/hardware.md.
//
// clang-19 does not know gfx950: wavekit's gfx950 device code is compiled by clang-19 as a
// gfx942 pass with gfx950's macros and lowered by a newer LLVM (tools/lower_gfx950.py). The
// fp8 MFMA builtins below exist in clang-19 and select the same instructions, which on gfx950
// read OCP fp8 (docs/hardware.md 1.1, 2.1).
#pragma once

#include <hip/hip_runtime.h>  // the platform: HIP on the device, the emulator's shim on the CPU

#include "wavekit/arch/matrix_formats.hpp"
#include "wavekit/core/numeric_types.hpp"
#include "wavekit/core/platform.hpp"
#include "wavekit/core/vector.hpp"

namespace wavekit::arch::gfx950 {

// The formats its matrix cores read, as decided in arch/matrix_formats.hpp.
using fp8 = fp8_of<target::gfx950>;
using bf8 = bf8_of<target::gfx950>;

// v_mfma_f32_32x32x16_fp8_fp8 (OCP e4m3 on gfx950): D (32x32 fp32) = A (32x16) * B (16x32) + C.
WAVEKIT_DEVICE WAVEKIT_FORCEINLINE floatx16 mfma_f32_32x32x16_fp8_fp8(long a, long b, floatx16 c) {
  return __builtin_amdgcn_mfma_f32_32x32x16_fp8_fp8(a, b, c, 0, 0, 0);
}
// v_mfma_f32_16x16x32_fp8_fp8 (OCP e4m3 on gfx950): D (16x16 fp32) = A (16x32) * B (32x16) + C.
WAVEKIT_DEVICE WAVEKIT_FORCEINLINE floatx4 mfma_f32_16x16x32_fp8_fp8(long a, long b, floatx4 c) {
  return __builtin_amdgcn_mfma_f32_16x16x32_fp8_fp8(a, b, c, 0, 0, 0);
}

}  // namespace wavekit::arch::gfx950
