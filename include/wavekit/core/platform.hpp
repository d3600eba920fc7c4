// Compiler and execution-space macros shared by every wavekit header.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

// Functions usable from host code and from kernels (WAVEKIT_HOST_DEVICE) or from kernels only
// (WAVEKIT_DEVICE). Under HIP they carry __host__ __device__ / __device__; in the CPU emulator and
// in plain C++ everything is host code, so the host-side parts of core/ build with any C++20
// compiler and device code builds for the emulator.
#if defined(__HIP__) || defined(__HIPCC__)
#define WAVEKIT_HOST_DEVICE __host__ __device__
#define WAVEKIT_DEVICE __device__
#else
#define WAVEKIT_HOST_DEVICE
#define WAVEKIT_DEVICE
#endif

#if defined(__clang__) || defined(__GNUC__)
#define WAVEKIT_FORCEINLINE inline __attribute__((always_inline))
#else
#define WAVEKIT_FORCEINLINE inline
#endif

namespace wavekit {

// For static_assert in primary templates that must never be instantiated: the condition depends
// on the template parameter, so the assertion fires only when someone uses the template.
template <class...>
inline constexpr bool dependent_false = false;

}  // namespace wavekit
