// gfx950 (CDNA4: MI355X): the fp8 formats its matrix cores read and thin wrappers over
// the instructions wavekit uses (device facts: arch/device_facts.hpp). Semantics: docs/hardware.md.
//
// clang-19 does not know gfx950: wavekit's gfx950 device code is compiled by clang-19 as a
// gfx942 pass with gfx950's macros and lowered by a newer LLVM (tools/lower_gfx950.py). The
// fp8 MFMA builtins below exist in clang-19 and select the same instructions, which on gfx950
// read OCP fp8 (docs/hardware.md 1.1, 2.1). gfx950's own instructions (the K = 32 / 16 f16 and
// bf16 forms, the scaled f8f6f4 forms) have no clang-19 builtin: the HIP compiler calls their
// LLVM intrinsics by name (an asm label on a declaration), which the newer LLVM selects; the
// emulator's HIP shim defines them under the builtin names.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <hip/hip_runtime.h>  // the platform: HIP on the device, the emulator's shim on the CPU

#include <cstdint>

#include "wavekit/arch/matrix_formats.hpp"
#include "wavekit/arch/target.hpp"
#include "wavekit/core/numeric_types.hpp"
#include "wavekit/core/platform.hpp"
#include "wavekit/core/vector.hpp"

#if defined(__HIP__)
namespace wavekit::arch::gfx950::intrinsic {
// clang-format off
extern "C" {
__device__ floatx4 wavekit_gfx950_mfma_f32_16x16x32_f16(f16x8, f16x8, floatx4, int, int, int) __asm("llvm.amdgcn.mfma.f32.16x16x32.f16");
__device__ floatx16 wavekit_gfx950_mfma_f32_32x32x16_f16(f16x8, f16x8, floatx16, int, int, int) __asm("llvm.amdgcn.mfma.f32.32x32x16.f16");
__device__ floatx4 wavekit_gfx950_mfma_f32_16x16x32_bf16(bf16x8, bf16x8, floatx4, int, int, int) __asm("llvm.amdgcn.mfma.f32.16x16x32.bf16");
__device__ floatx16 wavekit_gfx950_mfma_f32_32x32x16_bf16(bf16x8, bf16x8, floatx16, int, int, int) __asm("llvm.amdgcn.mfma.f32.32x32x16.bf16");
__device__ floatx4 wavekit_gfx950_mfma_scale_f32_16x16x128_f8f6f4(int32x8, int32x8, floatx4, int, int, int, int, int, int) __asm("llvm.amdgcn.mfma.scale.f32.16x16x128.f8f6f4.v8i32.v8i32");
__device__ floatx16 wavekit_gfx950_mfma_scale_f32_32x32x64_f8f6f4(int32x8, int32x8, floatx16, int, int, int, int, int, int) __asm("llvm.amdgcn.mfma.scale.f32.32x32x64.f8f6f4.v8i32.v8i32");
__device__ unsigned wavekit_gfx950_cvt_scalef32_pk_fp4_f32(unsigned, float, float, float, int) __asm("llvm.amdgcn.cvt.scalef32.pk.fp4.f32");
__device__ bf16x2 wavekit_gfx950_cvt_scalef32_pk_bf16_fp8(unsigned, float, bool) __asm("llvm.amdgcn.cvt.scalef32.pk.bf16.fp8");
__device__ bf16x2 wavekit_gfx950_cvt_scalef32_pk_bf16_fp4(unsigned, float, int) __asm("llvm.amdgcn.cvt.scalef32.pk.bf16.fp4");
__device__ i16x4 wavekit_gfx950_ds_read_tr16_b64(__attribute__((address_space(3))) void*) __asm("llvm.amdgcn.ds.read.tr16.b64.v4i16");
}
// clang-format on
}  // namespace wavekit::arch::gfx950::intrinsic
#define WAVEKIT_GFX950_INSTRUCTION(name) ::wavekit::arch::gfx950::intrinsic::wavekit_gfx950_##name
#else
#define WAVEKIT_GFX950_INSTRUCTION(name) __builtin_amdgcn_##name
#endif

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
// The bf8 forms (OCP e5m2 on gfx950).
WAVEKIT_DEVICE WAVEKIT_FORCEINLINE floatx16 mfma_f32_32x32x16_bf8_bf8(long a, long b, floatx16 c) {
  return __builtin_amdgcn_mfma_f32_32x32x16_bf8_bf8(a, b, c, 0, 0, 0);
}
WAVEKIT_DEVICE WAVEKIT_FORCEINLINE floatx4 mfma_f32_16x16x32_bf8_bf8(long a, long b, floatx4 c) {
  return __builtin_amdgcn_mfma_f32_16x16x32_bf8_bf8(a, b, c, 0, 0, 0);
}

// v_mfma_f32_{16x16x32,32x32x16}_{f16,bf16}: 8 K values per lane (docs/hardware.md 1.2).
WAVEKIT_DEVICE WAVEKIT_FORCEINLINE floatx4 mfma_f32_16x16x32_f16(f16x8 a, f16x8 b, floatx4 c) {
  return WAVEKIT_GFX950_INSTRUCTION(mfma_f32_16x16x32_f16)(a, b, c, 0, 0, 0);
}
WAVEKIT_DEVICE WAVEKIT_FORCEINLINE floatx16 mfma_f32_32x32x16_f16(f16x8 a, f16x8 b, floatx16 c) {
  return WAVEKIT_GFX950_INSTRUCTION(mfma_f32_32x32x16_f16)(a, b, c, 0, 0, 0);
}
WAVEKIT_DEVICE WAVEKIT_FORCEINLINE floatx4 mfma_f32_16x16x32_bf16(bf16x8 a, bf16x8 b, floatx4 c) {
  return WAVEKIT_GFX950_INSTRUCTION(mfma_f32_16x16x32_bf16)(a, b, c, 0, 0, 0);
}
WAVEKIT_DEVICE WAVEKIT_FORCEINLINE floatx16 mfma_f32_32x32x16_bf16(bf16x8 a, bf16x8 b, floatx16 c) {
  return WAVEKIT_GFX950_INSTRUCTION(mfma_f32_32x32x16_bf16)(a, b, c, 0, 0, 0);
}

// v_mfma_scale_f32_{16x16x128,32x32x64}_f8f6f4 (docs/hardware.md 1.4): FormatA / FormatB are
// the operand format codes (0 fp8 e4m3, 1 bf8 e5m2, 2 fp6 e2m3, 3 bf6 e3m2, 4 fp4 e2m1), the
// scales are e8m0 bytes: byte OpselA of scale_a (127 = 1.0), likewise for B.
template <int FormatA, int FormatB, int OpselA = 0, int OpselB = 0>
WAVEKIT_DEVICE WAVEKIT_FORCEINLINE floatx4 mfma_scale_f32_16x16x128_f8f6f4(int32x8 a, int32x8 b, floatx4 c, int scale_a,
                                                                           int scale_b) {
  return WAVEKIT_GFX950_INSTRUCTION(mfma_scale_f32_16x16x128_f8f6f4)(a, b, c, FormatA, FormatB, OpselA, scale_a, OpselB,
                                                                     scale_b);
}
template <int FormatA, int FormatB, int OpselA = 0, int OpselB = 0>
WAVEKIT_DEVICE WAVEKIT_FORCEINLINE floatx16 mfma_scale_f32_32x32x64_f8f6f4(int32x8 a, int32x8 b, floatx16 c,
                                                                           int scale_a, int scale_b) {
  return WAVEKIT_GFX950_INSTRUCTION(mfma_scale_f32_32x32x64_f8f6f4)(a, b, c, FormatA, FormatB, OpselA, scale_a, OpselB,
                                                                    scale_b);
}

// v_cvt_scalef32_pk_fp4_f32 (docs/hardware.md 2.3): a and b divided by the scale, exactly, then
// rounded to nearest-even e2m1 saturating at +-6, into byte Byte of old (a in the low nibble). Only
// the scale's exponent field e counts: the divisor is 2^(e - 127), an e8m0 code as it stands.
template <int Byte>
WAVEKIT_DEVICE WAVEKIT_FORCEINLINE std::uint32_t cvt_scalef32_pk_fp4_f32(std::uint32_t old, float a, float b,
                                                                         float scale) {
  static_assert(Byte >= 0 && Byte < 4, "cvt_scalef32_pk_fp4_f32: byte 0 to 3");
#if defined(__HIP__) || WAVEKIT_TARGET_GFX950
  return WAVEKIT_GFX950_INSTRUCTION(cvt_scalef32_pk_fp4_f32)(old, a, b, scale, Byte);
#else
  // The emulator has gfx950's conversions in its gfx950 builds only; callers check the target.
  (void)old, (void)a, (void)b, (void)scale;
  __builtin_trap();
#endif
}
}  // namespace wavekit::arch::gfx950
