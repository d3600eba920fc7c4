// e^x, ln x, 2^x, log2 x and 1 / sqrt(x) in fp32 as the device computes them, for kernel code.
//
// On a GPU these are HIP's expf, logf, exp2f, log2f and rsqrtf: the device library's instruction
// sequences around v_exp_f32 / v_log_f32 / v_rsq_f32 (within an ulp or two of the exact value; not
// the host C library's results). On a platform that models that library (the CPU emulator, through
// arch/platform_hooks.hpp) they are its model, so that an emulated kernel rounds as the compiled
// one; in a HIP host pass, which never runs kernels, the C library's. Division and sqrtf need no
// such function: the device's are correctly rounded, as the host's are.
//
// wavekit's kernels call these rather than expf directly; parts that take the exponential as a
// parameter (core/silu.hpp) get device_exp.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <hip/hip_runtime.h>  // the platform: HIP on the device, the emulator's shim on the CPU

#include <cmath>

#include "wavekit/arch/platform_hooks.hpp"
#include "wavekit/core/platform.hpp"

namespace wavekit::arch {

#if defined(WAVEKIT_PLATFORM_DEVICE_MATH)
WAVEKIT_HOST_DEVICE WAVEKIT_FORCEINLINE float device_expf(float x) { return platform::device_expf(x); }
WAVEKIT_HOST_DEVICE WAVEKIT_FORCEINLINE float device_logf(float x) { return platform::device_logf(x); }
WAVEKIT_HOST_DEVICE WAVEKIT_FORCEINLINE float device_exp2f(float x) { return platform::device_exp2f(x); }
WAVEKIT_HOST_DEVICE WAVEKIT_FORCEINLINE float device_log2f(float x) { return platform::device_log2f(x); }
WAVEKIT_HOST_DEVICE WAVEKIT_FORCEINLINE float device_rsqrtf(float x) { return platform::device_rsqrtf(x); }
#else
WAVEKIT_HOST_DEVICE WAVEKIT_FORCEINLINE float device_expf(float x) { return expf(x); }
WAVEKIT_HOST_DEVICE WAVEKIT_FORCEINLINE float device_logf(float x) { return logf(x); }
WAVEKIT_HOST_DEVICE WAVEKIT_FORCEINLINE float device_exp2f(float x) { return exp2f(x); }
WAVEKIT_HOST_DEVICE WAVEKIT_FORCEINLINE float device_log2f(float x) { return log2f(x); }
#if defined(__HIP_DEVICE_COMPILE__)
WAVEKIT_HOST_DEVICE WAVEKIT_FORCEINLINE float device_rsqrtf(float x) { return rsqrtf(x); }
#else
WAVEKIT_HOST_DEVICE WAVEKIT_FORCEINLINE float device_rsqrtf(float x) { return 1.0f / std::sqrt(x); }
#endif
#endif

// 2^x by the instruction alone (v_exp_f32): within an ulp, but subnormal results flush to 0 and no
// range scaling surrounds it (exp2f's library sequence adds it). For exponents whose subnormal
// results do not matter: an online softmax's weights, each at most 2^margin and summed with at
// least one weight of 1 or more.
WAVEKIT_HOST_DEVICE WAVEKIT_FORCEINLINE float exp2_instruction(float x) {
#if defined(__HIP_DEVICE_COMPILE__) || defined(WAVEKIT_PLATFORM_DEVICE_MATH)
  return __builtin_amdgcn_exp2f(x);
#else
  return exp2f(x);
#endif
}

// device_expf as a function object, for parts that take the exponential as a parameter.
struct device_exp {
  WAVEKIT_HOST_DEVICE WAVEKIT_FORCEINLINE float operator()(float x) const { return device_expf(x); }
};

}  // namespace wavekit::arch
