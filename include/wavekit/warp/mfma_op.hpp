// A matrix-core instruction as a type: which element types and shape it multiplies, its register
// types, which target executes it, and its name. Kernels pick instructions through mfma_op so a
// combination no target supports fails at compile time with a message, never silently.
#pragma once

#include "wavekit/arch/gfx942.hpp"
#include "wavekit/arch/gfx950.hpp"
#include "wavekit/arch/target.hpp"
#include "wavekit/core/numeric_types.hpp"
#include "wavekit/core/platform.hpp"
#include "wavekit/core/vector.hpp"

namespace wavekit::warp {

template <class A, class B, int M, int N, int K>
struct mfma_op {
  static_assert(dependent_false<A>,
                "mfma_op: no matrix-core instruction multiplies these element types at this MxNxK on gfx942/gfx950");
};

// gfx942 fnuz fp8 forms. Operands: 8 fp8 values per lane in a 64-bit register pair.
template <>
struct mfma_op<fp8_e4m3fnuz, fp8_e4m3fnuz, 32, 32, 16> {
  static constexpr arch::target target = arch::target::gfx942;
  using operand = long;
  using accumulator = floatx16;
  static constexpr const char* name() { return "mfma_f32_32x32x16_fp8_fp8"; }
  WAVEKIT_DEVICE static WAVEKIT_FORCEINLINE accumulator run(operand a, operand b, accumulator c) {
    return arch::gfx942::mfma_f32_32x32x16_fp8_fp8(a, b, c);
  }
};

template <>
struct mfma_op<fp8_e4m3fnuz, fp8_e4m3fnuz, 16, 16, 32> {
  static constexpr arch::target target = arch::target::gfx942;
  using operand = long;
  using accumulator = floatx4;
  static constexpr const char* name() { return "mfma_f32_16x16x32_fp8_fp8"; }
  WAVEKIT_DEVICE static WAVEKIT_FORCEINLINE accumulator run(operand a, operand b, accumulator c) {
    return arch::gfx942::mfma_f32_16x16x32_fp8_fp8(a, b, c);
  }
};

// gfx950 OCP fp8 forms: the same instructions and register layouts, reading OCP e4m3.
template <>
struct mfma_op<fp8_e4m3fn, fp8_e4m3fn, 32, 32, 16> {
  static constexpr arch::target target = arch::target::gfx950;
  using operand = long;
  using accumulator = floatx16;
  static constexpr const char* name() { return "mfma_f32_32x32x16_fp8_fp8"; }
  WAVEKIT_DEVICE static WAVEKIT_FORCEINLINE accumulator run(operand a, operand b, accumulator c) {
    return arch::gfx950::mfma_f32_32x32x16_fp8_fp8(a, b, c);
  }
};

template <>
struct mfma_op<fp8_e4m3fn, fp8_e4m3fn, 16, 16, 32> {
  static constexpr arch::target target = arch::target::gfx950;
  using operand = long;
  using accumulator = floatx4;
  static constexpr const char* name() { return "mfma_f32_16x16x32_fp8_fp8"; }
  WAVEKIT_DEVICE static WAVEKIT_FORCEINLINE accumulator run(operand a, operand b, accumulator c) {
    return arch::gfx950::mfma_f32_16x16x32_fp8_fp8(a, b, c);
  }
};

// True in the device pass of the target that executes Op, and in the host pass (which parses
// kernels but never runs them). A kernel instantiated for the other target traps instead of
// reinterpreting fnuz bits as OCP (or the reverse).
template <class Op>
inline constexpr bool runs_on_current_target =
    arch::current_target == Op::target || arch::current_target == arch::target::host;

}  // namespace wavekit::warp
