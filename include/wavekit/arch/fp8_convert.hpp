// fp32 -> fp8 on the device, as quantizers need it: clamp to the format's largest finite value,
// then v_cvt_pk_fp8_f32 (round to nearest even). The clamp matters: the converter turns an
// out-of-range value into NaN (docs/hardware.md 2.2), and x / scale can land a rounding step past
// the largest finite value for a block's own amax. Clamped this way the result is
// saturate_cast<Fp8>'s (core/numeric_types.hpp) bit for bit; a NaN input stays NaN (both
// comparisons fail, the converter keeps it).
//
// One instruction serves both targets: v_cvt_pk_fp8_f32 writes the fp8 format the target's matrix
// cores read (fnuz e4m3 on gfx942, OCP e4m3 on gfx950; arch/matrix_formats.hpp), so Fp8 must be
// that format (checked where the kernel picks it: arch::reads_fp8).
#pragma once

#include <hip/hip_runtime.h>  // the platform: HIP on the device, the emulator's shim on the CPU

#include <cstdint>

#include "wavekit/core/numeric_types.hpp"
#include "wavekit/core/platform.hpp"

namespace wavekit::arch {

template <class Fp8>
WAVEKIT_DEVICE WAVEKIT_FORCEINLINE float clamp_to_finite(float v) {
  constexpr float max = element_limits<Fp8>::max_finite;
  return v > max ? max : (v < -max ? -max : v);
}

// Four fp32 values to four fp8 bytes (v0 in the lowest byte), saturating.
template <class Fp8>
WAVEKIT_DEVICE WAVEKIT_FORCEINLINE std::uint32_t pack_fp8x4_saturating(float v0, float v1, float v2, float v3) {
  const int low = __builtin_amdgcn_cvt_pk_fp8_f32(clamp_to_finite<Fp8>(v0), clamp_to_finite<Fp8>(v1), 0, false);
  return static_cast<std::uint32_t>(
      __builtin_amdgcn_cvt_pk_fp8_f32(clamp_to_finite<Fp8>(v2), clamp_to_finite<Fp8>(v3), low, true));
}

}  // namespace wavekit::arch
