// A kernel's promises to the codegen report: the most LDS it may allocate and the fewest waves
// per SIMD it must reach. They are written into the kernel's own assembly as a comment, where
// tools/codegen_report.py finds them next to the compiler's figures; no instruction is emitted.
#pragma once

#include "wavekit/arch/target.hpp"
#include "wavekit/core/platform.hpp"

namespace wavekit::arch {

template <int LdsBytesMax, int OccupancyMin>
WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void declare_codegen_targets() {
  static_assert(LdsBytesMax >= 0 && OccupancyMin >= 1 && OccupancyMin <= 8, "codegen targets out of range");
#if WAVEKIT_TARGET_DEVICE && !defined(WAVEKIT_EMULATOR)
  asm volatile("; wavekit.targets lds_bytes_max=%0 occupancy_min=%1" ::"i"(LdsBytesMax), "i"(OccupancyMin));
#endif
}

}  // namespace wavekit::arch
