// Direct-to-LDS buffer loads (docs/hardware.md 5.3): global data into LDS without passing through
// registers, so a K loop's next stage costs no VGPRs and no ds_write while it is in flight.
//
// buffer_load_lds<Bytes>(rsrc, lds, voffset, soffset) is one `buffer_load_{ubyte,ushort,dword}
// ... lds` (gfx950 also `dwordx3`/`dwordx4`). Every lane of the wave calls it with the same `lds`
// (the instruction takes it from M0: one block a wave) and its own voffset; lane l's Bytes land at
// lds + l * Bytes (the 12- and 16-byte forms: lds + l * 16). Addressing and the range check are a
// buffer load's (arch/buffer.hpp): out-of-range lanes write zeros.
//
// The data lands asynchronously, counted by vmcnt in issue order with the wave's other VMEM
// instructions. __syncthreads() need not wait for vmcnt (gfx942's does not), so a kernel waits
// with wait_vmcnt<N>() (N: loads it may leave in flight, the newest ones) before the barrier
// after which any wave reads the bytes, and does not issue a load onto bytes other waves may
// still read (a barrier between). On the emulator (arch/platform_hooks.hpp) each load is modelled and those rules are
// checked (emu/lds_dma.hpp).
//
// For the next stage to stay in flight while this one is read (docs/hardware.md 5.3): issue it
// after the step's barrier (the gfx950 lowering waits for every load into LDS at a barrier) and
// unconditionally, and read each stage through its own array named at the read (otherwise the
// compiler waits for all loads into LDS before every ds_read). test/isa/buffer_lds has the form.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <hip/hip_runtime.h>  // the platform: HIP on the device, the emulator's shim on the CPU

#include <cstdint>

#include "wavekit/arch/buffer.hpp"
#include "wavekit/arch/platform_hooks.hpp"
#include "wavekit/arch/target.hpp"
#include "wavekit/core/platform.hpp"

// clang-19 has no builtin for the buffer form, and its __builtin_amdgcn_global_load_lds breaks
// (PostRA) in kernels that also use __syncthreads(): wavekit calls the LLVM intrinsic by name.
// Its size and offset are immediates (size 12 and 16 selected only by gfx950's lowering,
// tools/lower_gfx950.py).
#if defined(__HIP__)
namespace wavekit::arch::intrinsic {
// clang-format off
extern "C" __device__ void wavekit_raw_ptr_buffer_load_lds(__amdgpu_buffer_rsrc_t rsrc, __attribute__((address_space(3))) void* lds, unsigned size, unsigned voffset, unsigned soffset, unsigned offset, unsigned aux) __asm("llvm.amdgcn.raw.ptr.buffer.load.lds");
// clang-format on
}  // namespace wavekit::arch::intrinsic
#endif

namespace wavekit::arch {

#if defined(WAVEKIT_PLATFORM_LDS_HOOKS)
#define WAVEKIT_BUFFER_LDS_SITE , const char *file = __builtin_FILE(), int line = __builtin_LINE()
#else
#define WAVEKIT_BUFFER_LDS_SITE
#endif

template <int Bytes, target Target = current_target>
WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void buffer_load_lds(__amdgpu_buffer_rsrc_t rsrc, void* lds, std::uint32_t voffset,
                                                        std::uint32_t soffset = 0 WAVEKIT_BUFFER_LDS_SITE) {
  static_assert(Bytes == 1 || Bytes == 2 || Bytes == 4 || Bytes == 12 || Bytes == 16,
                "buffer_load_lds: a lane loads 1, 2 or 4 bytes (12 or 16 on gfx950)");
  static_assert(Bytes <= 4 || Target == target::gfx950,
                "buffer_load_lds: the 12- and 16-byte forms (buffer_load_dwordx3/x4 ... lds) exist only on gfx950");
#if defined(WAVEKIT_PLATFORM_LDS_HOOKS)
  ::wavekit::platform::buffer_load_lds(rsrc, lds, Bytes, voffset, soffset, file, line);
#elif defined(__HIP_DEVICE_COMPILE__)
  using lds_pointer = __attribute__((address_space(3))) void*;
  intrinsic::wavekit_raw_ptr_buffer_load_lds(rsrc, (lds_pointer)(lds), Bytes, voffset, soffset, 0, 0);
#else
  (void)rsrc, (void)lds, (void)voffset, (void)soffset;
#endif
}

// The same through a buffer (arch/buffer.hpp).
template <int Bytes, target Target = current_target>
WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void buffer_load_lds(const buffer& source, void* lds, std::uint32_t voffset,
                                                        std::uint32_t soffset = 0 WAVEKIT_BUFFER_LDS_SITE) {
#if defined(WAVEKIT_PLATFORM_LDS_HOOKS)
  buffer_load_lds<Bytes, Target>(source.rsrc, lds, voffset, soffset, file, line);
#else
  buffer_load_lds<Bytes, Target>(source.rsrc, lds, voffset, soffset);
#endif
}

#undef WAVEKIT_BUFFER_LDS_SITE

// s_waitcnt vmcnt(N): waits until at most N of the wave's VMEM instructions (loads, stores and
// direct-to-LDS loads, oldest first) are outstanding. The other counters are left at their
// maximum, so nothing else is waited for. gfx9's encoding: vmcnt in bits 3:0 and 15:14, expcnt
// in 6:4, lgkmcnt in 11:8.
// Count in N only the loads into LDS issued after the ones waited for: the compiler may merge,
// split or move the other loads and stores (the emulator counts them as the source has them), and
// any it leaves in between only make the wait end later.
template <int N>
WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void wait_vmcnt() {
  static_assert(N >= 0 && N < 64, "wait_vmcnt: vmcnt is a 6-bit count (0..63)");
  constexpr int expcnt_max = 0x7 << 4, lgkmcnt_max = 0xF << 8;
  __builtin_amdgcn_s_waitcnt((N & 0xF) | ((N >> 4) << 14) | expcnt_max | lgkmcnt_max);
}

}  // namespace wavekit::arch
