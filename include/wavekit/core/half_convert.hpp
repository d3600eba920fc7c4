// Conversions between fp32 and the 16-bit storage types as device code does them: widening is
// exact (bf16: its bits are fp32's top half; fp16: a hardware convert); narrowing rounds to
// nearest even, and beyond fp16's range gives +-Inf (IEEE), as the hardware does.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <cstdint>
#include <type_traits>

#include "wavekit/core/float_codec.hpp"
#include "wavekit/core/numeric_types.hpp"
#include "wavekit/core/platform.hpp"

namespace wavekit {

template <class T>
inline constexpr bool is_half_or_float_v =
    std::is_same_v<T, float> || std::is_same_v<T, bf16> || std::is_same_v<T, fp16>;

template <class T>
WAVEKIT_HOST_DEVICE WAVEKIT_FORCEINLINE float widen_to_float(T x) {
  static_assert(is_half_or_float_v<T>, "widen_to_float: fp32, bf16 or fp16");
  if constexpr (std::is_same_v<T, float>)
    return x;
  else if constexpr (std::is_same_v<T, bf16>)
    return __builtin_bit_cast(float, static_cast<std::uint32_t>(x.bits) << 16);
  else
    return static_cast<float>(__builtin_bit_cast(_Float16, x.bits));
}

// The bits of x rounded to Out (bf16 or fp16), round to nearest even.
template <class Out>
WAVEKIT_HOST_DEVICE WAVEKIT_FORCEINLINE std::uint16_t half_bits_rne(float x) {
  static_assert(std::is_same_v<Out, bf16> || std::is_same_v<Out, fp16>, "half_bits_rne: bf16 or fp16");
  if constexpr (std::is_same_v<Out, bf16>)
    return static_cast<std::uint16_t>(bf16_bits_rne(x));
  else
    return __builtin_bit_cast(std::uint16_t, static_cast<_Float16>(x));
}

}  // namespace wavekit
