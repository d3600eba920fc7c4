// gfx942 (CDNA3: MI300X, MI325X): the fp8 formats its matrix cores read and thin
// wrappers over the instructions wavekit uses (device facts: arch/device_facts.hpp). Semantics:
// docs/hardware.md.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <hip/hip_runtime.h>  // the platform: HIP on the device, the emulator's shim on the CPU

#include "wavekit/arch/matrix_formats.hpp"
#include "wavekit/core/numeric_types.hpp"
#include "wavekit/core/platform.hpp"
#include "wavekit/core/vector.hpp"

namespace wavekit::arch::gfx942 {

// The formats its matrix cores read, as decided in arch/matrix_formats.hpp.
using fp8 = fp8_of<target::gfx942>;
using bf8 = bf8_of<target::gfx942>;

// v_mfma_f32_32x32x16_fp8_fp8: D (32x32 fp32, 16 regs) = A (32x16) * B (16x32) + C.
// Each operand is 8 fp8 values per lane packed in a 64-bit register pair (docs/hardware.md 1.2).
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

// The CDNA3 16-bit forms (also on gfx950): 4 K values per lane, f16 as _Float16, bf16 as its bits.
// v_mfma_f32_32x32x8_f16 / _bf16 (the "_1k" builtins: bf16 at the f16 rate): D (32x32) = A (32x8) * B.
WAVEKIT_DEVICE WAVEKIT_FORCEINLINE floatx16 mfma_f32_32x32x8_f16(f16x4 a, f16x4 b, floatx16 c) {
  return __builtin_amdgcn_mfma_f32_32x32x8f16(a, b, c, 0, 0, 0);
}
WAVEKIT_DEVICE WAVEKIT_FORCEINLINE floatx16 mfma_f32_32x32x8_bf16(i16x4 a, i16x4 b, floatx16 c) {
  return __builtin_amdgcn_mfma_f32_32x32x8bf16_1k(a, b, c, 0, 0, 0);
}
// v_mfma_f32_16x16x16_f16 / _bf16: D (16x16) = A (16x16) * B (16x16) + C.
WAVEKIT_DEVICE WAVEKIT_FORCEINLINE floatx4 mfma_f32_16x16x16_f16(f16x4 a, f16x4 b, floatx4 c) {
  return __builtin_amdgcn_mfma_f32_16x16x16f16(a, b, c, 0, 0, 0);
}
WAVEKIT_DEVICE WAVEKIT_FORCEINLINE floatx4 mfma_f32_16x16x16_bf16(i16x4 a, i16x4 b, floatx4 c) {
  return __builtin_amdgcn_mfma_f32_16x16x16bf16_1k(a, b, c, 0, 0, 0);
}

// v_smfmac_f32_16x16x64_fp8_fp8: D (16x16 fp32) = A (16x64, 2:4 sparse along K) * B (64x16) + D.
// A arrives compressed, 8 fp8 values per lane (the two non-zeros of each of its four groups of four
// K), and `index` says where they sit: bits [4 g, 4 g + 4) of the index half that ABID names hold
// the two 2-bit positions of group g (docs/hardware.md 1.7). B is 16 fp8 values per lane. The
// accumulator is also the destination.
WAVEKIT_DEVICE WAVEKIT_FORCEINLINE floatx4 smfmac_f32_16x16x64_fp8_fp8(int32x2 a, int32x4 b, floatx4 c, int index) {
  return __builtin_amdgcn_smfmac_f32_16x16x64_fp8_fp8(a, b, c, index, 0, 0);
}

}  // namespace wavekit::arch::gfx942
