// What every wavekit header needs of the compile that includes it, checked before anything else:
// a wrong setting stops the compile here with one sentence naming the requirement, instead of
// pages of errors from the first C++20 construct. The #include after each #error is there to stop
// the compile (a missing include is fatal; an #error is not, and the compiler would go on).
#pragma once

#if !defined(__cplusplus) || __cplusplus < 202002L
#error "wavekit needs C++20: compile with -std=c++20 or later (CMake: link wavekit::wavekit, which asks for cxx_std_20)"
#include <wavekit: compilation stops here, the error above says why>
#endif

// Device code is HIP: the kernels use HIP's launch bounds, thread indices and address spaces. An
// AMDGPU device pass without HIP (OpenCL, OpenMP offload, a plain --target=amdgcn compile) has
// none of them.
#if (defined(__AMDGCN__) || defined(__AMDGPU__)) && !defined(__HIP__)
#error "wavekit's device code is HIP: compile it as HIP (hipcc, or clang++ -x hip --offload-arch=gfx942)"
#include <wavekit: compilation stops here, the error above says why>
#endif
