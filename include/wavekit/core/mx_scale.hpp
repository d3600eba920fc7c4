// The MX scale rule, one definition for the host quantizer (host/quantize_mx.hpp) and the device
// ones (block/quantize_1x32_mx.hpp): a block of 32 values whose largest magnitude is amax gets the
// e8m0 exponent
//   clamp(floor(log2(round(amax))) - max_exponent(Elem), -127, 127)
// where round() carries a mantissa of 0.75 or more into the next power of two ((bits + 0x200000) &
// 0xFF800000 on amax's fp32 bits: aiter's MXFP4 rule, docs/hardware.md 7.3) and log2(0) = -inf.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <cstdint>

#include "wavekit/core/numeric_types.hpp"
#include "wavekit/core/platform.hpp"

namespace wavekit {

template <class Elem>
WAVEKIT_HOST_DEVICE constexpr int mx_scale_exponent(float amax) {
  const std::uint32_t rounded = (__builtin_bit_cast(std::uint32_t, amax) + 0x200000u) & 0xFF800000u;
  const int field = static_cast<int>((rounded >> 23) & 0xFF);
  if (field == 0) return -127;                               // log2(0) = -inf, clamped
  const int floor_log2 = field == 0xFF ? 255 : field - 127;  // +inf clamps to 127 below
  const int e = floor_log2 - element_limits<Elem>::max_exponent;
  return e < -127 ? -127 : (e > 127 ? 127 : e);
}

}  // namespace wavekit
