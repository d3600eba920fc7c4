// Compiler and execution-space macros shared by every wavekit header.
#pragma once

// Functions usable from host code and from kernels. Under HIP (a real device compile, or the
// CPU emulator's shim) they carry __host__ __device__; in plain C++ they are ordinary functions,
// so the host-side parts of core/ also build with any C++20 compiler.
#if defined(__HIP__) || defined(__HIPCC__) || defined(WAVEKIT_EMULATOR)
#define WAVEKIT_HOST_DEVICE __host__ __device__
#else
#define WAVEKIT_HOST_DEVICE
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
