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
// e^x is a parameter: kernels pass the device's (arch::device_exp, arch/device_math.hpp: the device
// library's expf on a GPU, the emulator's model of it on the CPU), host references default to
// plain expf, the host C library's. The two differ by an ulp for some arguments; tests allow that
// step or give the reference the device's exponential (docs/glue.md).
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <cmath>

#include "wavekit/core/platform.hpp"

namespace wavekit {

// Plain expf, as the calling code resolves it: the host C library's in host code (the references'),
// HIP's in device code.
struct plain_expf {
  WAVEKIT_HOST_DEVICE WAVEKIT_FORCEINLINE float operator()(float x) const { return expf(x); }
};

template <class Exp = plain_expf>
WAVEKIT_HOST_DEVICE WAVEKIT_FORCEINLINE float silu_times(float gate, float up, Exp exp = {}) {
  return gate / (1.0f + exp(-gate)) * up;
}

}  // namespace wavekit
