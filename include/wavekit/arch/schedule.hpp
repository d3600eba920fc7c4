// Instruction-scheduling controls. The compiler schedules freely within a basic block; a
// pipeline stage that must stay where the source puts it (say, waiting for loads only after a
// run of MFMAs) is fenced with schedule_fence(). The emulator runs the source in order anyway.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <hip/hip_runtime.h>  // the platform: HIP on the device, the emulator's shim on the CPU

#include "wavekit/core/platform.hpp"

namespace wavekit::arch {

// No instruction is moved across this point by the scheduler (s_sched_barrier with mask 0).
WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void schedule_fence() { __builtin_amdgcn_sched_barrier(0); }

// A copy of v the compiler cannot see through. Lane addresses computed from it inside a loop are
// recomputed there (a few instructions an iteration) instead of hoisted out of the loop and held
// in registers across it: what a loop short of registers wants (MLA decode's).
template <class T>
WAVEKIT_DEVICE WAVEKIT_FORCEINLINE T opaque_copy(T v) {
#if defined(__AMDGCN__)
  asm volatile("" : "+v"(v));
#endif
  return v;
}

// Marks the block it sits in as rarely taken: an assembly comment, no instruction. Put it inside
// an `if (__builtin_expect(cond, 0))` whose body a hot loop skips on most iterations;
// tools/codegen_report.py counts the loop without that body (from the branch that skips it to the
// branch's target) and reports the body apart (docs/codegen-report.md), so a loop's figures are
// those of the iterations that skip it.
WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void mark_rare_block() {
#if defined(__AMDGCN__)
  asm volatile("; wavekit rare block");
#endif
}

}  // namespace wavekit::arch
