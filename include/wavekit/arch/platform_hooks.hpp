// What arch/ may ask of the platform its code runs on, by name only, so that arch/ names no
// symbol of any particular platform. On a GPU nothing is provided and nothing is asked: the LDS
// helpers of arch/lds.hpp are plain LDS accesses. A platform that checks and counts LDS (wavekit's
// CPU emulator does) defines WAVEKIT_PLATFORM_LDS_HOOKS in its <hip/hip_runtime.h> and, there,
//
//   WAVEKIT_PLATFORM_LDS_ARRAY(T, name, N)    an LDS array `T (&name)[N]` of its own making
//   wavekit::platform::lds_access(...)        the function declared below, called before each
//                                             LDS access arch/lds.hpp makes
//   wavekit::platform::lds_load_transposed_b16(...)  gfx950's transposing LDS read, declared below
//   wavekit::platform::buffer_load_lds(...)   a direct-to-LDS buffer load, declared below
//
// A platform that models the device's f32 math library (the emulator does) defines
// WAVEKIT_PLATFORM_DEVICE_MATH and the device_* functions declared below; arch/device_math.hpp
// calls them where a GPU runs the library's sequences.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <cstdint>

namespace wavekit::platform {

#if defined(WAVEKIT_PLATFORM_LDS_HOOKS)
// One LDS instruction of `bytes` per lane at p by the calling GPU thread: a store or a load,
// `active` false for a lane an EXEC mask leaves out; file and line are the caller's.
void lds_access(const void* p, int bytes, bool store, bool active, const char* file, int line);
// gfx950's ds_read_b64_tr_b16 by the calling GPU thread at p (8 bytes a lane, every lane of the
// wave taking part): the 4 halfwords the instruction leaves in this lane, as two words.
using lds_words2 = std::uint32_t __attribute__((ext_vector_type(2)));
lds_words2 lds_load_transposed_b16(const void* p, const char* file, int line);
// buffer_load_* ... lds of `bytes` a lane by the calling GPU thread (arch/buffer_lds.hpp): every lane
// of the wave names the same destination `lds`. The buffer resource type is the platform's
// (<hip/hip_runtime.h>, included before this header).
void buffer_load_lds(__amdgpu_buffer_rsrc_t rsrc, void* lds, int bytes, std::uint32_t voffset, std::uint32_t soffset,
                     const char* file, int line);
#endif

#if defined(WAVEKIT_PLATFORM_DEVICE_MATH)
// e^x, ln x, 2^x, log2 x and 1 / sqrt(x) as the device's math library computes them in fp32.
float device_expf(float x);
float device_logf(float x);
float device_exp2f(float x);
float device_log2f(float x);
float device_rsqrtf(float x);
#endif

}  // namespace wavekit::platform
