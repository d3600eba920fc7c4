// Compiled for gfx942 by a negative test (test/isa/CMakeLists.txt): each kernel runs an atom that
// gfx942 lacks without testing arch::runs_on_current_target first, which must be a compile error
// naming the rule. MISUSE selects the kernel.
#include <hip/hip_runtime.h>

#include "wavekit/arch/mfma_atoms.hpp"

using namespace wavekit;

#if MISUSE == 1  // gfx950's scaled f8f6f4 form
__global__ void misuse(floatx4* c, const int32x8* a) {
  c[0] = arch::mfma_scaled_atom<fp8_e4m3fn, fp8_e4m3fn, 16, 16>::run(a[0], a[1], c[0], 127, 127);
}
#elif MISUSE == 2  // gfx950's K = 32 bf16 form
__global__ void misuse(floatx4* c, const bf16x8* a) {
  c[0] = arch::mfma_atom<bf16, bf16, 16, 16, 32>::run(a[0], a[1], c[0]);
}
#elif MISUSE == 3  // an fp8 format gfx942 does not read
__global__ void misuse(floatx4* c, const long* a) {
  c[0] = arch::mfma_atom<fp8_e4m3fn, fp8_e4m3fn, 16, 16, 32>::run(a[0], a[1], c[0]);
}
#elif MISUSE == 4  // no instruction multiplies bf16 by fp8
__global__ void misuse(floatx4* c, const long* a) {
  c[0] = arch::mfma_atom<bf16, fp8_e4m3fnuz, 16, 16, 32>::run(a[0], a[1], c[0]);
}
#endif
