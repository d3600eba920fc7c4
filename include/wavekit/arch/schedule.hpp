// Instruction-scheduling controls. The compiler schedules freely within a basic block; a
// pipeline stage that must stay where the source puts it (say, waiting for loads only after a
// run of MFMAs) is fenced with schedule_fence(). The emulator runs the source in order anyway.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <hip/hip_runtime.h>  // the platform: HIP on the device, the emulator's shim on the CPU

#include <type_traits>

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

// A kernel's one argument read again from the kernel-argument segment where this is called (on
// the CPU: the argument itself). The compiler cannot hoist these loads out of a loop, so in a
// persistent kernel's outer loop the fields live from here to their last use, as in a kernel
// that runs once, instead of in registers across the whole kernel (its hot loop included). The
// argument must be the kernel's first, at offset 0 of the segment (the AMDGPU ABI puts the
// explicit arguments first), and taken by value.
template <class T>
WAVEKIT_DEVICE WAVEKIT_FORCEINLINE T reread_kernel_argument(const T& argument) {
  static_assert(std::is_trivially_copyable_v<T> && sizeof(T) % 4 == 0, "reread_kernel_argument: whole 4-byte words");
#if defined(__AMDGCN__)
  (void)argument;
  // Word by word from the segment's own address space: the loads stay scalar and their values
  // uniform (a load through a generic pointer would count as divergent: it might reach private
  // memory).
  using word_ptr = const __attribute__((address_space(4))) unsigned*;
  auto at = (word_ptr)__builtin_amdgcn_kernarg_segment_ptr();  // same address space: a C cast
  asm volatile("" : "+s"(at));
  unsigned words[sizeof(T) / 4];
#pragma unroll
  for (unsigned i = 0; i < sizeof(T) / 4; ++i) words[i] = at[i];
  return __builtin_bit_cast(T, words);
#else
  return argument;
#endif
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
