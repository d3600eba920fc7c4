// SiLU(gate) * up, the one definition wavekit's kernels and host references use: MoE's stage-1
// epilogue (block/gate_up_pair.hpp), the SwiGLU kernel (ops/swiglu_quant/) and its reference
// (host/reference_swiglu_quant.hpp), so the three can never drift apart by a rounding.
//
//   SiLU(g) * u = g / (1 + e^-g) * u      in fp32, that order: one division, then one multiply
//
// Non-finite values follow IEEE arithmetic through that expression (no special cases): g = +Inf
// gives +Inf * u; g = -Inf gives -Inf / Inf = NaN (not the limit 0); g or u NaN gives NaN; u = +-Inf
// gives +-Inf times the SiLU's sign, NaN where SiLU(g) is 0 (g = 0).
//
// expf is the platform's: glibc's on the host and in the CPU emulator, the device library's on a
// GPU (within an ulp of glibc's; tests on a GPU allow that step, docs/glue.md).
#pragma once

#include <cmath>

#include "wavekit/core/platform.hpp"

namespace wavekit {

WAVEKIT_HOST_DEVICE WAVEKIT_FORCEINLINE float silu_times(float gate, float up) {
  return gate / (1.0f + expf(-gate)) * up;
}

}  // namespace wavekit
