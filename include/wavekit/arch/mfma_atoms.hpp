// MFMA atoms: one matrix-core instruction each, as a type that carries what a kernel needs to feed
// it: element types and shape, register types, the targets that execute it, its name, and the
// register layouts of its operands and accumulator (docs/hardware.md 1.2). Warp MMAs, epilogues
// and tests read the layouts from the atom; nothing else restates them.
//
//   mfma_atom<A, B, M, N, K>         the unscaled instructions, one table line each below
//   mfma_scaled_atom<A, B, M, N>     gfx950's v_mfma_scale_f32_{16x16x128,32x32x64}_f8f6f4, run with
//                                    e8m0 scales: run<OpselA, OpselB>(a, b, c, scale_a, scale_b)
//
// A combination no target has is a compile error naming it; running an atom in the device pass of
// a target that lacks it is one too (kernels test runs_on_current_target<Atom> first, so the pass
// for the other target compiles a trap instead).
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <type_traits>

#include "wavekit/arch/gfx942.hpp"
#include "wavekit/arch/gfx950.hpp"
#include "wavekit/arch/target.hpp"
#include "wavekit/core/numeric_types.hpp"
#include "wavekit/core/platform.hpp"
#include "wavekit/core/vector.hpp"

namespace wavekit::arch {

// The register layouts of an M x N x K instruction whose A and B elements are ElementBits wide.
// A operand: lane l holds row operand_row(l) of A, its element e (bits [e * ElementBits, ...) of
// the lane's registers) is K index operand_k(l, e). B: column operand_row(l), same K. Accumulator:
// register r of lane l is C[acc_row(l, r)][acc_col(l)].
template <int M, int N, int K, int ElementBits>
struct mfma_layout {
  static_assert(M == N && (M == 16 || M == 32), "mfma_layout: the square 16x16 and 32x32 shapes");
  static constexpr int m = M, n = N, k = K, element_bits = ElementBits;
  static constexpr int lane_groups = 64 / M;                          // lanes sharing a row, one K range each
  static constexpr int k_per_lane = K / lane_groups;                  // elements of A (and B) per lane
  static constexpr int operand_bytes = k_per_lane * ElementBits / 8;  // bytes of them a lane holds
  static constexpr int acc_regs = M * N / 64;                         // accumulator registers per lane
  // gfx950's 8-bit f8f6f4 forms deal K to the lane groups in 16-element chunks, round robin.
  static constexpr bool chunked_k = k_per_lane > 16 && ElementBits == 8;

  WAVEKIT_HOST_DEVICE static constexpr int operand_row(int lane) { return lane % M; }
  WAVEKIT_HOST_DEVICE static constexpr int operand_k(int lane, int e) {
    return chunked_k ? 16 * ((e / 16) * lane_groups + lane / M) + e % 16 : (lane / M) * k_per_lane + e;
  }
  WAVEKIT_HOST_DEVICE static constexpr int acc_row(int lane, int r) {
    return M == 32 ? 8 * (r / 4) + 4 * (lane / 32) + r % 4 : 4 * (lane / 16) + r;
  }
  WAVEKIT_HOST_DEVICE static constexpr int acc_col(int lane) { return lane % N; }
};

template <class A, class B, int M, int N, int K>
struct mfma_atom {
  static_assert(dependent_false<A>,
                "mfma_atom: no matrix-core instruction multiplies these element types at this MxNxK on gfx942/gfx950");
};

// Which targets run an atom.
enum class atom_targets { gfx942, gfx950, both };
constexpr bool atom_runs_on(atom_targets on, target t) {
  return (on == atom_targets::gfx942 && t == target::gfx942) || (on == atom_targets::gfx950 && t == target::gfx950) ||
         (on == atom_targets::both && (t == target::gfx942 || t == target::gfx950));
}

// One line per instruction: element types, shape, register types, targets, and the wrapper in
// arch/gfx942.hpp or arch/gfx950.hpp that issues it (its name is the atom's name).
#define WAVEKIT_MFMA_ATOM(A, B, M, N, K, Operand, Accumulator, On, Ns, Instruction)                              \
  template <>                                                                                                    \
  struct mfma_atom<A, B, M, N, K> : mfma_layout<M, N, K, 8 * static_cast<int>(sizeof(Operand)) / (K * M / 64)> { \
    using a_type = A;                                                                                            \
    using b_type = B;                                                                                            \
    using operand = Operand;                                                                                     \
    using accumulator = Accumulator;                                                                             \
    static constexpr atom_targets targets = atom_targets::On;                                                    \
    static constexpr const char* name() { return #Instruction; }                                                 \
    /* A template so that the check waits for a use: kernels name atoms in every pass. */                        \
    template <int Use = 0>                                                                                       \
    WAVEKIT_DEVICE static WAVEKIT_FORCEINLINE accumulator run(operand a, operand b, accumulator c) {             \
      static_assert(Use != 0 || atom_runs_on(targets, current_target) || current_target == target::host,         \
                    "mfma_atom: this instruction does not exist on the target being compiled");                  \
      return Ns::Instruction(a, b, c);                                                                           \
    }                                                                                                            \
  };

// clang-format off
//                A             B             M   N   K   operand  accumulator on      wrapper
WAVEKIT_MFMA_ATOM(fp8_e4m3fnuz, fp8_e4m3fnuz, 32, 32, 16, long,    floatx16,   gfx942, gfx942, mfma_f32_32x32x16_fp8_fp8)
WAVEKIT_MFMA_ATOM(fp8_e4m3fnuz, fp8_e4m3fnuz, 16, 16, 32, long,    floatx4,    gfx942, gfx942, mfma_f32_16x16x32_fp8_fp8)
WAVEKIT_MFMA_ATOM(bf8_e5m2fnuz, bf8_e5m2fnuz, 32, 32, 16, long,    floatx16,   gfx942, gfx942, mfma_f32_32x32x16_bf8_bf8)
WAVEKIT_MFMA_ATOM(bf8_e5m2fnuz, bf8_e5m2fnuz, 16, 16, 32, long,    floatx4,    gfx942, gfx942, mfma_f32_16x16x32_bf8_bf8)
WAVEKIT_MFMA_ATOM(fp8_e4m3fn,   fp8_e4m3fn,   32, 32, 16, long,    floatx16,   gfx950, gfx950, mfma_f32_32x32x16_fp8_fp8)
WAVEKIT_MFMA_ATOM(fp8_e4m3fn,   fp8_e4m3fn,   16, 16, 32, long,    floatx4,    gfx950, gfx950, mfma_f32_16x16x32_fp8_fp8)
WAVEKIT_MFMA_ATOM(bf8_e5m2,     bf8_e5m2,     32, 32, 16, long,    floatx16,   gfx950, gfx950, mfma_f32_32x32x16_bf8_bf8)
WAVEKIT_MFMA_ATOM(bf8_e5m2,     bf8_e5m2,     16, 16, 32, long,    floatx4,    gfx950, gfx950, mfma_f32_16x16x32_bf8_bf8)
WAVEKIT_MFMA_ATOM(fp16,         fp16,         32, 32,  8, f16x4,   floatx16,   both,   gfx942, mfma_f32_32x32x8_f16)
WAVEKIT_MFMA_ATOM(fp16,         fp16,         16, 16, 16, f16x4,   floatx4,    both,   gfx942, mfma_f32_16x16x16_f16)
WAVEKIT_MFMA_ATOM(bf16,         bf16,         32, 32,  8, i16x4,   floatx16,   both,   gfx942, mfma_f32_32x32x8_bf16)
WAVEKIT_MFMA_ATOM(bf16,         bf16,         16, 16, 16, i16x4,   floatx4,    both,   gfx942, mfma_f32_16x16x16_bf16)
WAVEKIT_MFMA_ATOM(fp16,         fp16,         32, 32, 16, f16x8,   floatx16,   gfx950, gfx950, mfma_f32_32x32x16_f16)
WAVEKIT_MFMA_ATOM(fp16,         fp16,         16, 16, 32, f16x8,   floatx4,    gfx950, gfx950, mfma_f32_16x16x32_f16)
WAVEKIT_MFMA_ATOM(bf16,         bf16,         32, 32, 16, bf16x8,  floatx16,   gfx950, gfx950, mfma_f32_32x32x16_bf16)
WAVEKIT_MFMA_ATOM(bf16,         bf16,         16, 16, 32, bf16x8,  floatx4,    gfx950, gfx950, mfma_f32_16x16x32_bf16)
// clang-format on
#undef WAVEKIT_MFMA_ATOM

// The operand format code of gfx950's scaled instructions (docs/hardware.md 1.4).
template <class T>
inline constexpr int f8f6f4_format = -1;
template <>
inline constexpr int f8f6f4_format<fp8_e4m3fn> = 0;
template <>
inline constexpr int f8f6f4_format<bf8_e5m2> = 1;
template <>
inline constexpr int f8f6f4_format<fp6_e2m3> = 2;
template <>
inline constexpr int f8f6f4_format<bf6_e3m2> = 3;
template <>
inline constexpr int f8f6f4_format<fp4_e2m1> = 4;

template <class T>
inline constexpr int f8f6f4_bits = f8f6f4_format<T> <= 1   ? 8
                                   : f8f6f4_format<T> <= 3 ? 6
                                                           : 4;

// gfx950's scaled f8f6f4 family: 16x16x128 or 32x32x64, any pair of the five OCP formats, an
// e8m0 scale per row of A (column of B) per 32 K. Operands are 8 registers per lane (fp6 uses the
// first 6, fp4 the first 4). D = C + sum over 32-K blocks of 2^(sa + sb - 254) * the block's dot.
template <class A, class B, int M, int N>
struct mfma_scaled_atom : mfma_layout<M, N, M == 16 ? 128 : 64, f8f6f4_bits<A>> {
  static_assert(f8f6f4_format<A> >= 0 && f8f6f4_format<B> >= 0,
                "mfma_scaled_atom: A and B must be OCP fp8 e4m3fn, bf8 e5m2, fp6 e2m3, bf6 e3m2 or fp4 e2m1");
  static_assert(f8f6f4_bits<A> == f8f6f4_bits<B>,
                "mfma_scaled_atom: wavekit's layouts give A and B elements of the same width");
  static_assert(M == N && (M == 16 || M == 32), "mfma_scaled_atom: 16x16x128 or 32x32x64");
  using a_type = A;
  using b_type = B;
  using operand = int32x8;
  using accumulator = std::conditional_t<M == 16, floatx4, floatx16>;
  static constexpr atom_targets targets = atom_targets::gfx950;
  static constexpr int scale_k = 32;  // K elements per scale
  static constexpr const char* name() {
    return M == 16 ? "mfma_scale_f32_16x16x128_f8f6f4" : "mfma_scale_f32_32x32x64_f8f6f4";
  }
  static constexpr int neutral_scale = 127;  // e8m0 1.0
  // The scale of row i of A (column j of B) for the instruction's 32-K block b comes from lane
  // b * M + i: lane l gives the scale of its own row (column) for block scale_block(l). The blocks
  // are the atom's K order (operand_k), in which an 8-bit lane group's two 16-byte chunks belong
  // to different blocks.
  WAVEKIT_HOST_DEVICE static constexpr int scale_block(int lane) { return lane / M; }

  // scale_a / scale_b: byte OpselA / OpselB of each lane's value is the e8m0 scale of the row of A
  // (column of B) and 32-K block that lane's position names (docs/hardware.md 1.4).
  template <int OpselA = 0, int OpselB = 0>
  WAVEKIT_DEVICE static WAVEKIT_FORCEINLINE accumulator run(operand a, operand b, accumulator c, int scale_a,
                                                            int scale_b) {
    static_assert(OpselA < 0 || current_target != target::gfx942,
                  "mfma_scaled_atom: the scaled f8f6f4 MFMAs exist only on gfx950, not gfx942");
    if constexpr (M == 16)
      return gfx950::mfma_scale_f32_16x16x128_f8f6f4<f8f6f4_format<A>, f8f6f4_format<B>, OpselA, OpselB>(
          a, b, c, scale_a, scale_b);
    else
      return gfx950::mfma_scale_f32_32x32x64_f8f6f4<f8f6f4_format<A>, f8f6f4_format<B>, OpselA, OpselB>(
          a, b, c, scale_a, scale_b);
  }
};

// The atom an fp8 GEMM runs for MFMA tiles of edge M on target T: gfx950's scaled f8f6f4 form for
// OCP fp8 (the older K = 32 / 16 fp8 forms reportedly run at the bf16 rate there; only the f8f6f4
// ones reach the doubled fp8 rate; neutral e8m0 scales where the data is unscaled), else the
// K = 32 / 16 form (for a format the target does not read, an atom that traps there).
template <class Fp8, int M, target T = current_target>
using fp8_gemm_atom =
    std::conditional_t<T == target::gfx950 && f8f6f4_format<Fp8> == 0, mfma_scaled_atom<Fp8, Fp8, M, M>,
                       mfma_atom<Fp8, Fp8, M, M, M == 16 ? 32 : 16>>;

// The 16-bit (bf16 / fp16) atom a GEMM runs for MFMA tiles of edge M on target T: gfx950's K = 32 /
// 16 forms, gfx942's K = 16 / 8 (the host pass takes gfx942's; it never runs kernels).
template <class T, int M, target Target = current_target>
using half_gemm_atom = std::conditional_t<Target == target::gfx950, mfma_atom<T, T, M, M, M == 16 ? 32 : 16>,
                                          mfma_atom<T, T, M, M, M == 16 ? 16 : 8>>;

// True in the device pass of a target that executes Atom, and in the host pass (which parses
// kernels but never runs them). A kernel instantiated for another target traps instead of
// reinterpreting fnuz bits as OCP (or the reverse).
template <class Atom>
inline constexpr bool runs_on_current_target =
    atom_runs_on(Atom::targets, current_target) || current_target == target::host;

}  // namespace wavekit::arch
