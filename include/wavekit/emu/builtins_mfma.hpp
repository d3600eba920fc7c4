// The AMDGPU matrix-core builtins (clang names) for emulator builds. gfx942 and gfx950 share the
// fp8/bf8 32x32x16 and 16x16x32 forms (fnuz on gfx942, OCP on gfx950) and the CDNA3 f16/bf16 forms.
#pragma once

#include <cstdint>

#include "wavekit/core/vector.hpp"
#include "wavekit/emu/mfma.hpp"

namespace wavekit::emu::mfma {
using half4 = _Float16 __attribute__((ext_vector_type(4)));
using short4 = short __attribute__((ext_vector_type(4)));
using int32x16 = std::int32_t __attribute__((ext_vector_type(16)));
}  // namespace wavekit::emu::mfma

// __builtin_amdgcn_<op>: instruction v_<op> of the given shape and element formats.
#define WAVEKIT_EMU_MFMA(op, shape_m, shape_n, shape_k, bits, fa, fb, Operand, Accumulator)                         \
  inline Accumulator __builtin_amdgcn_##op(Operand a, Operand b, Accumulator c, int cbsz, int abid, int blgp,       \
                                           wavekit::emu::source_site site = wavekit::emu::source_site::current()) { \
    using namespace wavekit::emu::mfma;                                                                             \
    return instruction<Operand, Accumulator>("v_" #op, shape{shape_m, shape_n, shape_k, bits}, element_format::fa,  \
                                             element_format::fb, a, b, c, cbsz, abid, blgp, site);                  \
  }

WAVEKIT_EMU_MFMA(mfma_f32_32x32x16_fp8_fp8, 32, 32, 16, 8, fp8, fp8, long, wavekit::floatx16)
WAVEKIT_EMU_MFMA(mfma_f32_32x32x16_fp8_bf8, 32, 32, 16, 8, fp8, bf8, long, wavekit::floatx16)
WAVEKIT_EMU_MFMA(mfma_f32_32x32x16_bf8_fp8, 32, 32, 16, 8, bf8, fp8, long, wavekit::floatx16)
WAVEKIT_EMU_MFMA(mfma_f32_32x32x16_bf8_bf8, 32, 32, 16, 8, bf8, bf8, long, wavekit::floatx16)
WAVEKIT_EMU_MFMA(mfma_f32_16x16x32_fp8_fp8, 16, 16, 32, 8, fp8, fp8, long, wavekit::floatx4)
WAVEKIT_EMU_MFMA(mfma_f32_16x16x32_fp8_bf8, 16, 16, 32, 8, fp8, bf8, long, wavekit::floatx4)
WAVEKIT_EMU_MFMA(mfma_f32_16x16x32_bf8_fp8, 16, 16, 32, 8, bf8, fp8, long, wavekit::floatx4)
WAVEKIT_EMU_MFMA(mfma_f32_16x16x32_bf8_bf8, 16, 16, 32, 8, bf8, bf8, long, wavekit::floatx4)
WAVEKIT_EMU_MFMA(mfma_f32_32x32x8f16, 32, 32, 8, 16, f16, f16, wavekit::emu::mfma::half4, wavekit::floatx16)
WAVEKIT_EMU_MFMA(mfma_f32_16x16x16f16, 16, 16, 16, 16, f16, f16, wavekit::emu::mfma::half4, wavekit::floatx4)
WAVEKIT_EMU_MFMA(mfma_f32_32x32x8bf16_1k, 32, 32, 8, 16, bf16, bf16, wavekit::emu::mfma::short4, wavekit::floatx16)
WAVEKIT_EMU_MFMA(mfma_f32_16x16x16bf16_1k, 16, 16, 16, 16, bf16, bf16, wavekit::emu::mfma::short4, wavekit::floatx4)

WAVEKIT_EMU_MFMA(mfma_i32_32x32x16_i8, 32, 32, 16, 8, i8, i8, long, wavekit::emu::mfma::int32x16)
WAVEKIT_EMU_MFMA(mfma_i32_16x16x32_i8, 16, 16, 32, 8, i8, i8, long, wavekit::int32x4)

#undef WAVEKIT_EMU_MFMA
