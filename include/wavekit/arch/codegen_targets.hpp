// A kernel's promises to the codegen report: the most LDS it may allocate, the fewest waves per
// SIMD it must reach and, optionally, the most instructions its hot loop may spend per 64 MFMA
// 16x16x32 of work (0: no promise). They are written into the kernel's own assembly as a
// comment, where tools/codegen_report.py finds them next to the compiler's figures; no
// instruction is emitted.
#pragma once

#include "wavekit/arch/target.hpp"
#include "wavekit/core/platform.hpp"

namespace wavekit::arch {

template <int LdsBytesMax, int OccupancyMin, int LoopInstructionsPer64Max = 0>
WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void declare_codegen_targets() {
  static_assert(LdsBytesMax >= 0 && OccupancyMin >= 1 && OccupancyMin <= 8 && LoopInstructionsPer64Max >= 0,
                "codegen targets out of range");
#if defined(__AMDGCN__)  // the AMDGPU compiler's device pass, where the report reads it
  asm volatile("; wavekit.targets lds_bytes_max=%0 occupancy_min=%1 loop_per_64_max=%2" ::"i"(LdsBytesMax),
               "i"(OccupancyMin), "i"(LoopInstructionsPer64Max));
#endif
}

}  // namespace wavekit::arch
