// The element types wavekit kernels read and write: distinct, trivially copyable wrappers around
// their bits, usable on host and device. fnuz fp8 (gfx942) and OCP fp8 (gfx950) are different
// types with no implicit conversion between them; arch/ picks the one each target's MFMA reads.
//
//   fp8_e4m3fnuz, bf8_e5m2fnuz   gfx942 matrix-core fp8/bf8
//   fp8_e4m3fn,   bf8_e5m2       OCP fp8/bf8 (gfx950)
//   fp4_e2m1                     one OCP fp4 value in the low nibble of a byte
//   fp4x2_e2m1                   two fp4 values packed in a byte, element 0 in the low nibble
//   fp6_e2m3, bf6_e3m2           OCP fp6 values (low 6 bits of a byte)
//   e8m0                         OCP MX block scale, 2^(bits-127)
//   bf16, fp16
//
// Conversions from fp32 come in two explicit flavours (float_codec.hpp):
//   saturate_cast<T>(x): clamp to +-max finite, then round to nearest even (quantizers)
//   hardware_cast<T>(x): round to nearest even as the gfx9 converters do by default (NaN or
//                        Inf on overflow, see docs/hardware.md 2.2 and 2.3)
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <cstdint>
#include <type_traits>

#include "wavekit/core/float_codec.hpp"

namespace wavekit {

template <class Format>
struct small_float {
  using format = Format;
  using storage_type = std::conditional_t<(format_traits<Format>::width > 8), std::uint16_t, std::uint8_t>;
  storage_type bits;

  WAVEKIT_HOST_DEVICE static constexpr small_float from_bits(std::uint32_t b) { return {static_cast<storage_type>(b)}; }
  friend constexpr bool operator==(small_float, small_float) = default;  // bitwise, not IEEE
};

struct e8m0 {
  using storage_type = std::uint8_t;
  std::uint8_t bits;

  WAVEKIT_HOST_DEVICE static constexpr e8m0 from_bits(std::uint32_t b) { return {static_cast<std::uint8_t>(b)}; }
  // 2^exponent, for exponent in [-127, 127].
  WAVEKIT_HOST_DEVICE static constexpr e8m0 from_exponent(int exponent) {
    return {static_cast<std::uint8_t>(exponent + e8m0_codes::bias)};
  }
  WAVEKIT_HOST_DEVICE constexpr int exponent() const { return static_cast<int>(bits) - e8m0_codes::bias; }
  friend constexpr bool operator==(e8m0, e8m0) = default;
};

using fp8_e4m3fnuz = small_float<format::e4m3fnuz>;
using bf8_e5m2fnuz = small_float<format::e5m2fnuz>;
using fp8_e4m3fn = small_float<format::e4m3fn>;
using bf8_e5m2 = small_float<format::e5m2>;
using fp4_e2m1 = small_float<format::e2m1>;
using fp6_e2m3 = small_float<format::e2m3>;  // OCP fp6, read by gfx950's scaled MFMA
using bf6_e3m2 = small_float<format::e3m2>;
using fp16 = small_float<format::fp16>;
using bf16 = small_float<format::bf16>;

static_assert(sizeof(fp8_e4m3fnuz) == 1 && sizeof(bf16) == 2 && sizeof(e8m0) == 1);

// The e4m3 fp8 formats a kernel writes as its output (each target's: arch/matrix_formats.hpp).
template <class T>
inline constexpr bool is_fp8_e4m3_v = std::is_same_v<T, fp8_e4m3fnuz> || std::is_same_v<T, fp8_e4m3fn>;

// Two fp4 values in one byte: element 0 in bits [3:0], element 1 in bits [7:4] (docs/hardware.md 2.1).
struct fp4x2_e2m1 {
  std::uint8_t bits;

  WAVEKIT_HOST_DEVICE static constexpr fp4x2_e2m1 pack(fp4_e2m1 element0, fp4_e2m1 element1) {
    return {static_cast<std::uint8_t>((element0.bits & 0xF) | ((element1.bits & 0xF) << 4))};
  }
  WAVEKIT_HOST_DEVICE constexpr fp4_e2m1 element(int i) const {
    return fp4_e2m1::from_bits(i == 0 ? (bits & 0xFu) : (bits >> 4));
  }
  friend constexpr bool operator==(fp4x2_e2m1, fp4x2_e2m1) = default;
};

// The storage of an OCP MX element tensor: fp4 packs two elements a byte along the row.
template <class Elem>
using mx_storage_t = std::conditional_t<std::is_same_v<Elem, fp4_e2m1>, fp4x2_e2m1, Elem>;

// Elements one object of a tensor's storage type holds: 2 for packed fp4 pairs, else 1.
template <class T>
inline constexpr int elements_per_object = 1;
template <>
inline constexpr int elements_per_object<fp4x2_e2m1> = 2;

template <class T>
inline constexpr bool is_small_float_v = false;
template <class F>
inline constexpr bool is_small_float_v<small_float<F>> = true;

template <class T>
WAVEKIT_HOST_DEVICE constexpr float to_float(T x) {
  if constexpr (std::is_same_v<T, e8m0>) {
    return decode_e8m0(x.bits);
  } else if constexpr (is_small_float_v<T>) {
    return decode_float<typename T::format>(x.bits);
  } else {
    static_assert(dependent_false<T>, "to_float: T is not a wavekit element type");
  }
}

template <class T>
WAVEKIT_HOST_DEVICE constexpr T convert_from_float(float x, overflow_policy policy) {
  if constexpr (std::is_same_v<T, e8m0>) {
    return T::from_bits(encode_e8m0(x, policy));
  } else if constexpr (is_small_float_v<T>) {
    return T::from_bits(encode_float<typename T::format>(x, policy));
  } else {
    static_assert(dependent_false<T>, "convert_from_float: T is not a wavekit element type");
  }
}

template <class T>
WAVEKIT_HOST_DEVICE constexpr T saturate_cast(float x) {
  return convert_from_float<T>(x, overflow_policy::saturate);
}
template <class T>
WAVEKIT_HOST_DEVICE constexpr T hardware_cast(float x) {
  return convert_from_float<T>(x, overflow_policy::hardware);
}

// Limits of a signed element type as fp32 values.
template <class T>
struct element_limits {
  static_assert(is_small_float_v<T>, "element_limits: T is not a signed wavekit element type");
  using traits = format_traits<typename T::format>;
  static constexpr float max_finite = decode_float<typename T::format>(traits::max_magnitude);
  static constexpr float min_normal = decode_float<typename T::format>(1u << T::format::mantissa_bits);
  static constexpr float min_subnormal = decode_float<typename T::format>(1u);
  // floor(log2(max_finite)): the MX quantizer aligns a block's amax to this binade.
  static constexpr int max_exponent =
      static_cast<int>(traits::max_magnitude >> T::format::mantissa_bits) - T::format::bias;
};

}  // namespace wavekit
