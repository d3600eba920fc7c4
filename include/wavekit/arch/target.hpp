// The one place that turns compiler arch macros into wavekit's 0/1 target symbols.
//
//   WAVEKIT_TARGET_GFX942 / WAVEKIT_TARGET_GFX950   1 in the device pass for that target (a real
//                                                   device compile or the CPU emulator), else 0
//   WAVEKIT_TARGET_DEVICE                           1 in any device pass, 0 in host code
//
// Everything else tests these symbols (or arch::current_target), never __gfx942__ directly.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#if defined(__gfx942__)
#define WAVEKIT_TARGET_GFX942 1
#else
#define WAVEKIT_TARGET_GFX942 0
#endif

#if defined(__gfx950__)
#define WAVEKIT_TARGET_GFX950 1
#else
#define WAVEKIT_TARGET_GFX950 0
#endif

#if WAVEKIT_TARGET_GFX942 && WAVEKIT_TARGET_GFX950
#error "wavekit: a translation unit cannot target gfx942 and gfx950 in the same pass"
#endif

#define WAVEKIT_TARGET_DEVICE (WAVEKIT_TARGET_GFX942 || WAVEKIT_TARGET_GFX950)

namespace wavekit::arch {

enum class target { host, gfx942, gfx950 };

inline constexpr target current_target = WAVEKIT_TARGET_GFX942   ? target::gfx942
                                         : WAVEKIT_TARGET_GFX950 ? target::gfx950
                                                                 : target::host;

// The target whose view of a per-target config a compile pass takes: its own in a device pass,
// gfx942's in the host pass (which parses kernels but never runs them).
inline constexpr target kernel_view_target = current_target == target::gfx950 ? target::gfx950 : target::gfx942;

constexpr const char* to_string(target t) {
  switch (t) {
    case target::host: return "host";
    case target::gfx942: return "gfx942";
    case target::gfx950: return "gfx950";
  }
  return "unknown";
}

}  // namespace wavekit::arch
