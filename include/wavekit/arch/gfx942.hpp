// gfx942 (CDNA3: MI300X, MI325X): limits, the fp8 formats its matrix cores read, and thin
// wrappers over the instructions wavekit uses. Semantics: shared/spec/cdna.md.
#pragma once

#include <hip/hip_runtime.h>  // the platform: HIP on the device, the emulator's shim on the CPU

#include "wavekit/arch/device_facts.hpp"
#include "wavekit/arch/matrix_formats.hpp"
#include "wavekit/core/numeric_types.hpp"
#include "wavekit/core/platform.hpp"
#include "wavekit/core/vector.hpp"

namespace wavekit::arch::gfx942 {

// The formats its matrix cores read, as decided in arch/matrix_formats.hpp.
using fp8 = fp8_of<target::gfx942>;
using bf8 = bf8_of<target::gfx942>;

// Limits, from arch/device_facts.hpp.
inline constexpr int wave_size = facts_of<target::gfx942>.wave_size;
inline constexpr int simds_per_cu = facts_of<target::gfx942>.simds_per_cu;
inline constexpr int lds_bytes_per_cu = facts_of<target::gfx942>.lds_bytes_per_cu;
inline constexpr int lds_bytes_per_workgroup = facts_of<target::gfx942>.lds_bytes_per_workgroup;
inline constexpr int lds_banks = facts_of<target::gfx942>.lds_banks;
inline constexpr int max_waves_per_simd = facts_of<target::gfx942>.max_waves_per_simd;

// v_mfma_f32_32x32x16_fp8_fp8: D (32x32 fp32, 16 regs) = A (32x16) * B (16x32) + C.
// Each operand is 8 fp8 values per lane packed in a 64-bit register pair (spec 1.3).
WAVEKIT_DEVICE WAVEKIT_FORCEINLINE floatx16 mfma_f32_32x32x16_fp8_fp8(long a, long b, floatx16 c) {
  return __builtin_amdgcn_mfma_f32_32x32x16_fp8_fp8(a, b, c, 0, 0, 0);
}
WAVEKIT_DEVICE WAVEKIT_FORCEINLINE floatx16 mfma_f32_32x32x16_bf8_bf8(long a, long b, floatx16 c) {
  return __builtin_amdgcn_mfma_f32_32x32x16_bf8_bf8(a, b, c, 0, 0, 0);
}
// v_mfma_f32_16x16x32_fp8_fp8: D (16x16 fp32, 4 regs) = A (16x32) * B (32x16) + C.
WAVEKIT_DEVICE WAVEKIT_FORCEINLINE floatx4 mfma_f32_16x16x32_fp8_fp8(long a, long b, floatx4 c) {
  return __builtin_amdgcn_mfma_f32_16x16x32_fp8_fp8(a, b, c, 0, 0, 0);
}
WAVEKIT_DEVICE WAVEKIT_FORCEINLINE floatx4 mfma_f32_16x16x32_bf8_bf8(long a, long b, floatx4 c) {
  return __builtin_amdgcn_mfma_f32_16x16x32_bf8_bf8(a, b, c, 0, 0, 0);
}

}  // namespace wavekit::arch::gfx942
