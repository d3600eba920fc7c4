// The AMDGPU matrix-core builtins (clang names) for emulator builds. gfx942 and gfx950 share the
// fp8/bf8 32x32x16 and 16x16x32 forms (fnuz on gfx942, OCP on gfx950) and the CDNA3 f16/bf16 forms.
#pragma once

#include <cstdint>

#include "wavekit/arch/target.hpp"
#include "wavekit/core/vector.hpp"
#include "wavekit/emu/mfma.hpp"
#include "wavekit/emu/mfma_scaled.hpp"
#include "wavekit/emu/mfma_sparse.hpp"

namespace wavekit::emu::mfma {
using int32x16 = std::int32_t __attribute__((ext_vector_type(16)));

// gfx950's new instructions are defined for both emulated targets, so that arch/gfx950.hpp
// compiles in every pass as on the device compiler; executing one on gfx942 is an error, as the
// instruction does not exist there.
inline void require_gfx950(const char* name, source_site site) {
  if (!WAVEKIT_TARGET_GFX950)
    wavekit::emu::detail::fail(std::string(name) + " at " + site.str() +
                               ": a gfx950 instruction, executed on emulated gfx942");
}
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
WAVEKIT_EMU_MFMA(mfma_f32_32x32x8f16, 32, 32, 8, 16, f16, f16, wavekit::f16x4, wavekit::floatx16)
WAVEKIT_EMU_MFMA(mfma_f32_16x16x16f16, 16, 16, 16, 16, f16, f16, wavekit::f16x4, wavekit::floatx4)
WAVEKIT_EMU_MFMA(mfma_f32_32x32x8bf16_1k, 32, 32, 8, 16, bf16, bf16, wavekit::i16x4, wavekit::floatx16)
WAVEKIT_EMU_MFMA(mfma_f32_16x16x16bf16_1k, 16, 16, 16, 16, bf16, bf16, wavekit::i16x4, wavekit::floatx4)

WAVEKIT_EMU_MFMA(mfma_i32_32x32x16_i8, 32, 32, 16, 8, i8, i8, long, wavekit::emu::mfma::int32x16)
WAVEKIT_EMU_MFMA(mfma_i32_16x16x32_i8, 16, 16, 32, 8, i8, i8, long, wavekit::int32x4)

// gfx950 f16/bf16 forms with 8 K values per lane.
#define WAVEKIT_EMU_MFMA_GFX950(op, shape_m, shape_n, shape_k, bits, fa, fb, Operand, Accumulator)                  \
  inline Accumulator __builtin_amdgcn_##op(Operand a, Operand b, Accumulator c, int cbsz, int abid, int blgp,       \
                                           wavekit::emu::source_site site = wavekit::emu::source_site::current()) { \
    using namespace wavekit::emu::mfma;                                                                             \
    require_gfx950("v_" #op, site);                                                                                 \
    return instruction<Operand, Accumulator>("v_" #op, shape{shape_m, shape_n, shape_k, bits}, element_format::fa,  \
                                             element_format::fb, a, b, c, cbsz, abid, blgp, site);                  \
  }
WAVEKIT_EMU_MFMA_GFX950(mfma_f32_16x16x32_f16, 16, 16, 32, 16, f16, f16, wavekit::f16x8, wavekit::floatx4)
WAVEKIT_EMU_MFMA_GFX950(mfma_f32_32x32x16_f16, 32, 32, 16, 16, f16, f16, wavekit::f16x8, wavekit::floatx16)
WAVEKIT_EMU_MFMA_GFX950(mfma_f32_16x16x32_bf16, 16, 16, 32, 16, bf16, bf16, wavekit::bf16x8, wavekit::floatx4)
WAVEKIT_EMU_MFMA_GFX950(mfma_f32_32x32x16_bf16, 32, 32, 16, 16, bf16, bf16, wavekit::bf16x8, wavekit::floatx16)
#undef WAVEKIT_EMU_MFMA_GFX950

// gfx950 block-scaled forms (mfma_scaled.hpp). Argument order as clang's builtins:
// (a, b, c, cbsz = A format, blgp = B format, opsel_a, scale_a, opsel_b, scale_b).
#define WAVEKIT_EMU_MFMA_SCALE(op, shape_m, shape_n, shape_k, Accumulator)                                            \
  inline Accumulator __builtin_amdgcn_##op(wavekit::int32x8 a, wavekit::int32x8 b, Accumulator c, int cbsz, int blgp, \
                                           int opsel_a, int scale_a, int opsel_b, int scale_b,                        \
                                           wavekit::emu::source_site site = wavekit::emu::source_site::current()) {   \
    wavekit::emu::mfma::require_gfx950("v_" #op, site);                                                               \
    return wavekit::emu::mfma::scaled_instruction<Accumulator>("v_" #op, {shape_m, shape_n, shape_k, 8}, a, b, c,     \
                                                               cbsz, blgp, opsel_a, scale_a, opsel_b, scale_b, site); \
  }
WAVEKIT_EMU_MFMA_SCALE(mfma_scale_f32_16x16x128_f8f6f4, 16, 16, 128, wavekit::floatx4)
WAVEKIT_EMU_MFMA_SCALE(mfma_scale_f32_32x32x64_f8f6f4, 32, 32, 64, wavekit::floatx16)
#undef WAVEKIT_EMU_MFMA_SCALE

// The sparse form wavekit's skinny fp8 GEMM runs (mfma_sparse.hpp). Argument order as clang's:
// (a, b, c, index, cbsz, abid).
inline wavekit::floatx4 __builtin_amdgcn_smfmac_f32_16x16x64_fp8_fp8(
    wavekit::int32x2 a, wavekit::int32x4 b, wavekit::floatx4 c, int index, int cbsz, int abid,
    wavekit::emu::source_site site = wavekit::emu::source_site::current()) {
  return wavekit::emu::mfma::sparse_instruction_16x16x64_fp8("v_smfmac_f32_16x16x64_fp8_fp8", a, b, c, index, cbsz,
                                                             abid, site);
}

#undef WAVEKIT_EMU_MFMA
