// LDS that the CPU emulator can check and count.
//
// WAVEKIT_LDS_ARRAY(T, name, N) declares `T name[N]` in LDS: a __shared__ array on the device; on
// a platform with LDS hooks (arch/platform_hooks.hpp; the emulator: a guarded, per-block region
// whose out-of-bounds accesses are reported and whose size counts against the target's LDS) the
// platform's array.
//
// lds_load<Bytes>(p) / lds_store<Bytes>(p, v, active) are one ds_read/ds_write of 4, 8 or 16
// bytes per lane (p aligned to Bytes). On the device they are plain vector accesses to LDS; a
// platform with LDS hooks also sees each (the emulator counts it, with its bank conflicts). A store
// with active = false in some lanes is the EXEC-masked form: every lane of the wave calls it (no
// divergence), and only the active lanes write. wavekit's tile loaders move LDS data through them.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <hip/hip_runtime.h>  // the platform: HIP on the device, the emulator's shim on the CPU

#include <cstdint>
#include <cstring>

#include "wavekit/arch/gfx950.hpp"
#include "wavekit/arch/platform_hooks.hpp"
#include "wavekit/arch/target.hpp"
#include "wavekit/core/platform.hpp"

#if defined(WAVEKIT_PLATFORM_LDS_HOOKS)
#define WAVEKIT_LDS_ARRAY(T, name, N) WAVEKIT_PLATFORM_LDS_ARRAY(T, name, N)
#else
#define WAVEKIT_LDS_ARRAY(T, name, N) __shared__ T name[N]
#endif

namespace wavekit::arch {

template <int Bytes>
struct lds_vector;
template <>
struct lds_vector<4> {
  using type = std::uint32_t;
};
template <>
struct lds_vector<8> {
  using type = std::uint32_t __attribute__((ext_vector_type(2)));
};
template <>
struct lds_vector<16> {
  using type = std::uint32_t __attribute__((ext_vector_type(4)));
};
template <int Bytes>
using lds_vector_t = typename lds_vector<Bytes>::type;

#if defined(WAVEKIT_PLATFORM_LDS_HOOKS)
#define WAVEKIT_LDS_SITE , const char *file = __builtin_FILE(), int line = __builtin_LINE()
#else
#define WAVEKIT_LDS_SITE
#endif

template <int Bytes>
WAVEKIT_DEVICE WAVEKIT_FORCEINLINE lds_vector_t<Bytes> lds_load(const void* p WAVEKIT_LDS_SITE) {
#if defined(WAVEKIT_PLATFORM_LDS_HOOKS)
  ::wavekit::platform::lds_access(p, Bytes, false, true, file, line);
  lds_vector_t<Bytes> v;
  std::memcpy(&v, p, Bytes);
  return v;
#else
  return *static_cast<const lds_vector_t<Bytes>*>(p);
#endif
}

template <int Bytes>
WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void lds_store(void* p, lds_vector_t<Bytes> v, bool active = true WAVEKIT_LDS_SITE) {
#if defined(WAVEKIT_PLATFORM_LDS_HOOKS)
  ::wavekit::platform::lds_access(p, Bytes, true, active, file, line);
  if (active) std::memcpy(p, &v, Bytes);
#else
  if (active) *static_cast<lds_vector_t<Bytes>*>(p) = v;
#endif
}

// gfx950's ds_read_b64_tr_b16 (docs/hardware.md 4.3): each lane names 8 bytes (4 halfwords, p
// 8-byte aligned) and, within each group of 16 lanes, lane l receives halfword l % 4 of the
// halfwords named by lanes 4 n + (l / 4) % 4 of its group, n = 0..3 (as two words, n = 0 in the low
// half of the first). So when lane 4 n + q of a group names columns 4 q .. 4 q + 3 of stored row
// R(n), lane l receives column l % 16 of rows R(0..3): four K values of an MFMA operand row read
// from a tile whose rows are K. Every lane of the wave takes part (EXEC all ones). The emulator
// checks and counts it as the ds_read_b64 it is for the banks.
template <target Target = current_target>
WAVEKIT_DEVICE WAVEKIT_FORCEINLINE lds_vector_t<8> lds_load_transposed_b16(const void* p WAVEKIT_LDS_SITE) {
  static_assert(Target == target::gfx950, "lds_load_transposed_b16: ds_read_b64_tr_b16 is gfx950's");
#if defined(WAVEKIT_PLATFORM_LDS_HOOKS)
  return ::wavekit::platform::lds_load_transposed_b16(p, file, line);
#elif defined(__HIP_DEVICE_COMPILE__)
  using lds_pointer = __attribute__((address_space(3))) void*;
  return __builtin_bit_cast(lds_vector_t<8>,
                            WAVEKIT_GFX950_INSTRUCTION(ds_read_tr16_b64)((lds_pointer)(const_cast<void*>(p))));
#else
  (void)p;
  return {};
#endif
}

// Two stores of one base and a constant gap (Gap bytes, a multiple of Bytes below 256 * Bytes):
// the form the compiler merges into one ds_write2 (two addresses a lane, offsets in units of
// Bytes). The emulator counts it as the two stores it is made of.
template <int Bytes, int Gap>
WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void lds_store2(void* p, lds_vector_t<Bytes> first, lds_vector_t<Bytes> second,
                                                   bool active = true WAVEKIT_LDS_SITE) {
  static_assert(Gap % Bytes == 0 && Gap / Bytes < 256, "lds_store2: the gap must fit ds_write2's offset");
#if defined(WAVEKIT_PLATFORM_LDS_HOOKS)
  lds_store<Bytes>(p, first, active, file, line);
  lds_store<Bytes>(static_cast<unsigned char*>(p) + Gap, second, active, file, line);
#else
  lds_store<Bytes>(p, first, active);
  lds_store<Bytes>(static_cast<unsigned char*>(p) + Gap, second, active);
#endif
}

#undef WAVEKIT_LDS_SITE

// Keeps just-loaded values whole: the compiler may otherwise re-read parts of a 16-byte LDS
// load (a second, narrower ds_read) where they are used, which costs an instruction each. The
// array form pins its values four to one asm statement, so waiting for them takes one s_waitcnt
// per four rather than one each.
// (The asm pins are for the AMDGPU compiler only: __AMDGCN__ is its device pass.)
template <class T>
WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void keep_whole([[maybe_unused]] T& v) {
#if defined(__AMDGCN__)
  asm volatile("" : "+v"(v));
#endif
}

template <class T, int N>
WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void keep_whole([[maybe_unused]] T (&v)[N]) {
#if defined(__AMDGCN__)
  int i = 0;
#pragma unroll
  for (; i + 4 <= N; i += 4) asm volatile("" : "+v"(v[i]), "+v"(v[i + 1]), "+v"(v[i + 2]), "+v"(v[i + 3]));
#pragma unroll
  for (; i < N; ++i) asm volatile("" : "+v"(v[i]));
#endif
}

}  // namespace wavekit::arch
