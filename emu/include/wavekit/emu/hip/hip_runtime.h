// wavekit's HIP for the CPU emulator. Emulator builds put include/wavekit/emu first on the
// include path, so `#include <hip/hip_runtime.h>` in kernel and host code lands here and the
// same source runs on the CPU. Define WAVEKIT_EMULATOR and WAVEKIT_EMULATE_GFX942 or
// WAVEKIT_EMULATE_GFX950 (CMake's wavekit_emulated() does). See docs/emulator.md.
#pragma once

#if !defined(WAVEKIT_EMULATOR) || !(defined(WAVEKIT_EMULATE_GFX942) || defined(WAVEKIT_EMULATE_GFX950))
// wavekit_emulated() (cmake/wavekitEmulator.cmake) defines these, and the device compiler's
// target macros (__gfx942__ or __gfx950__, __GFX9__, __AMDGCN_WAVEFRONT_SIZE).
#error \
    "wavekit/emu/hip/hip_runtime.h is the CPU emulator's HIP: define WAVEKIT_EMULATOR and WAVEKIT_EMULATE_GFX942 or WAVEKIT_EMULATE_GFX950"
#endif
#if (defined(WAVEKIT_EMULATE_GFX942) && !defined(__gfx942__)) || \
    (defined(WAVEKIT_EMULATE_GFX950) && !defined(__gfx950__))
// arch/target.hpp reads the target from the device compiler's macro, as in a real device pass.
#error "the CPU emulator of a target needs that target's macro too (__gfx942__ or __gfx950__): use wavekit_emulated()"
#endif

#include <cmath>
#include <cstddef>
#include <cstdint>

#include "wavekit/emu/atomics.hpp"
#include "wavekit/emu/builtins.hpp"
#include "wavekit/emu/device_math.hpp"
#include "wavekit/emu/dim3.hpp"
#include "wavekit/emu/launch.hpp"
#include "wavekit/emu/lds.hpp"
#include "wavekit/emu/runtime.hpp"
#include "wavekit/emu/vector_types.hpp"
#include "wavekit/emu/wave_ops.hpp"

// Execution spaces: everything is host code on the CPU.
#define __global__
#define __device__
#define __host__
#define __constant__
#define __forceinline__ inline __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __launch_bounds__(...)
// One copy per OS thread, which runs one block at a time: shared by the block's fibers.
#define __shared__ static thread_local
#define HIP_DYNAMIC_SHARED(type, var) type* var = ::wavekit::emu::dynamic_shared<type>()
// The LDS hooks of arch/platform_hooks.hpp: bounds-checked, LDS-accounted arrays (arch/lds.hpp's
// WAVEKIT_LDS_ARRAY maps here), every LDS access of arch/lds.hpp checked and counted, and
// arch/buffer_lds.hpp's direct-to-LDS loads modelled (emu/lds_dma.hpp).
#define WAVEKIT_PLATFORM_LDS_HOOKS 1
#define WAVEKIT_PLATFORM_LDS_ARRAY(T, name, N) T(&name)[N] = ::wavekit::emu::lds_array<T, N>(#name)
namespace wavekit::platform {
inline void lds_access(const void* p, int bytes, bool store, bool active, const char* file, int line) {
  ::wavekit::emu::lds_instruction(p, bytes, store, active, ::wavekit::emu::source_site{file, line});
}
inline ::wavekit::emu::lds_words2 lds_load_transposed_b16(const void* p, const char* file, int line) {
  return ::wavekit::emu::lds_read_transposed_b16(p, ::wavekit::emu::source_site{file, line});
}
inline void buffer_load_lds(__amdgpu_buffer_rsrc_t rsrc, void* lds, int bytes, std::uint32_t voffset,
                            std::uint32_t soffset, const char* file, int line) {
  ::wavekit::emu::buffer_load_lds(rsrc, lds, bytes, voffset, soffset, ::wavekit::emu::source_site{file, line});
}
}  // namespace wavekit::platform

// The device math hooks of arch/platform_hooks.hpp: arch/device_math.hpp's functions run the
// device library's sequences over the emulator's models of the instructions (emu/device_math.hpp).
#define WAVEKIT_PLATFORM_DEVICE_MATH 1
namespace wavekit::platform {
inline float device_expf(float x) { return ::wavekit::emu::device_math::expf(x); }
inline float device_logf(float x) { return ::wavekit::emu::device_math::logf(x); }
inline float device_exp2f(float x) { return ::wavekit::emu::device_math::exp2f(x); }
inline float device_log2f(float x) { return ::wavekit::emu::device_math::log2f(x); }
inline float device_rsqrtf(float x) { return ::wavekit::emu::device_math::rsqrtf(x); }
}  // namespace wavekit::platform

#define threadIdx (::wavekit::emu::current_thread().index)
#define blockIdx (::wavekit::emu::current_thread().block->index)
#define blockDim (::wavekit::emu::current_thread().block->dim)
#define gridDim (::wavekit::emu::current_thread().block->grid)
inline constexpr int warpSize = 64;

#define hipLaunchKernelGGL(kernel, grid, block, shared_bytes, stream, ...) \
  (void)::wavekit::emu::launch_kernel(kernel, dim3(grid), dim3(block), shared_bytes, stream __VA_OPT__(, ) __VA_ARGS__)

inline void __syncthreads(wavekit::emu::source_site site = wavekit::emu::source_site::current()) {
  wavekit::emu::barrier(site);
}
inline void __threadfence() { std::atomic_thread_fence(std::memory_order_seq_cst); }
inline void __threadfence_block() { std::atomic_thread_fence(std::memory_order_seq_cst); }
inline unsigned __lane_id() { return wavekit::emu::current_thread().lane; }

template <class T>
T __shfl(T var, int src, int width = warpSize, wavekit::emu::source_site site = wavekit::emu::source_site::current()) {
  return wavekit::emu::shfl(var, src, width, site);
}
template <class T>
T __shfl_up(T var, unsigned delta, int width = warpSize,
            wavekit::emu::source_site site = wavekit::emu::source_site::current()) {
  return wavekit::emu::shfl_up(var, delta, width, site);
}
template <class T>
T __shfl_down(T var, unsigned delta, int width = warpSize,
              wavekit::emu::source_site site = wavekit::emu::source_site::current()) {
  return wavekit::emu::shfl_down(var, delta, width, site);
}
template <class T>
T __shfl_xor(T var, int mask, int width = warpSize,
             wavekit::emu::source_site site = wavekit::emu::source_site::current()) {
  return wavekit::emu::shfl_xor(var, mask, width, site);
}
inline unsigned long long __ballot(int predicate,
                                   wavekit::emu::source_site site = wavekit::emu::source_site::current()) {
  return wavekit::emu::ballot(predicate != 0, site);
}
inline int __any(int predicate, wavekit::emu::source_site site = wavekit::emu::source_site::current()) {
  return wavekit::emu::ballot(predicate != 0, site) != 0;
}
inline int __all(int predicate, wavekit::emu::source_site site = wavekit::emu::source_site::current()) {
  return wavekit::emu::ballot(predicate != 0, site) == ~0ull;
}
inline unsigned long long __activemask() { return ~0ull; }
