// A kernel's promises to the codegen report: the most LDS it may allocate, the fewest waves per
// SIMD it must reach and, optionally, the most instructions its hot loop may spend per 64 MFMA
// 16x16x32 of work, or (a kernel without MFMAs, whose loop has no such measure) per iteration
// (0: no promise). They are written into the kernel's own assembly as a
// comment, where tools/codegen_report.py finds them next to the compiler's figures; no
// instruction is emitted.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include "wavekit/arch/target.hpp"
#include "wavekit/core/platform.hpp"

// On a kernel: compile it for at least the given waves per SIMD (the register budget that occupancy
// leaves). Kernels pass the occupancy they declare to the report; without it the compiler may
// spread the accumulators into AGPRs and copy them back and forth in the hot loop. HIP compilers
// only: elsewhere a kernel is a plain function.
#if defined(__HIP__)
#define WAVEKIT_MIN_WAVES_PER_SIMD(...) __attribute__((amdgpu_waves_per_eu(__VA_ARGS__)))
#else
#define WAVEKIT_MIN_WAVES_PER_SIMD(...)
#endif

namespace wavekit::arch {

template <int LdsBytesMax, int OccupancyMin, int LoopInstructionsPer64Max = 0, int LoopInstructionsMax = 0>
WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void declare_codegen_targets() {
  static_assert(LdsBytesMax >= 0 && OccupancyMin >= 1 && OccupancyMin <= 8 && LoopInstructionsPer64Max >= 0 &&
                    LoopInstructionsMax >= 0,
                "codegen targets out of range");
#if defined(__AMDGCN__)  // the AMDGPU compiler's device pass, where the report reads it
  asm volatile("; wavekit.targets lds_bytes_max=%0 occupancy_min=%1 loop_per_64_max=%2 loop_max=%3" ::"i"(LdsBytesMax),
               "i"(OccupancyMin), "i"(LoopInstructionsPer64Max), "i"(LoopInstructionsMax));
#endif
}

}  // namespace wavekit::arch
