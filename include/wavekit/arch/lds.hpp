// LDS arrays that the CPU emulator can check. WAVEKIT_LDS_ARRAY(T, name, N) declares `T name[N]`
// in LDS: a __shared__ array on the device; in emulator builds a guarded, per-block region whose
// out-of-bounds accesses are reported and whose size counts against the target's LDS (see
// emu/lds.hpp). wavekit kernels declare their LDS this way.
#pragma once

#if defined(WAVEKIT_EMULATOR)
#define WAVEKIT_LDS_ARRAY(T, name, N) WAVEKIT_EMU_LDS_ARRAY(T, name, N)
#else
#define WAVEKIT_LDS_ARRAY(T, name, N) __shared__ T name[N]
#endif
