// Descriptions of the narrow floating-point formats wavekit moves through matrix cores, and the
// facts derived from them (codes of NaN, Inf, the largest finite value). Values follow
// docs/hardware.md 2.1.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <cstdint>

namespace wavekit {

// How a format spends its special codes.
enum class special_codes : std::uint8_t {
  fnuz,          // gfx942 fp8/bf8: 0x80 is the only NaN; no Inf; no -0 ("finite, NaN, unsigned zero")
  nan_all_ones,  // OCP e4m3fn: magnitude all ones is NaN; no Inf; -0 exists
  ieee,          // e5m2, fp16, bf16: exponent all ones is Inf (mantissa 0) or NaN
  none,          // fp4/fp6: every code is a finite number
};

namespace format {

// exponent_bits / mantissa_bits / bias: the IEEE-style fields. nan_mantissa: mantissa of the NaN
// this format's converters produce (the sign is kept where the format has one).
template <int ExponentBits, int MantissaBits, int Bias, special_codes Specials, std::uint32_t NanMantissa>
struct fields {
  static constexpr int exponent_bits = ExponentBits, mantissa_bits = MantissaBits, bias = Bias;
  static constexpr special_codes specials = Specials;
  static constexpr std::uint32_t nan_mantissa = NanMantissa;
};

// clang-format off
struct e4m3fnuz : fields<4, 3, 8, special_codes::fnuz, 0> { static constexpr const char* name = "e4m3fnuz"; };
struct e5m2fnuz : fields<5, 2, 16, special_codes::fnuz, 0> { static constexpr const char* name = "e5m2fnuz"; };
struct e4m3fn : fields<4, 3, 7, special_codes::nan_all_ones, 0x7> { static constexpr const char* name = "e4m3fn"; };
// v_cvt_pk_bf8_f32 on gfx950 writes sign|0x7F for a NaN input (docs/hardware.md 2.3), hence mantissa 0b11.
struct e5m2 : fields<5, 2, 15, special_codes::ieee, 0x3> { static constexpr const char* name = "e5m2"; };
struct e2m1 : fields<2, 1, 1, special_codes::none, 0> { static constexpr const char* name = "e2m1"; };
struct e2m3 : fields<2, 3, 1, special_codes::none, 0> { static constexpr const char* name = "e2m3"; };
struct e3m2 : fields<3, 2, 3, special_codes::none, 0> { static constexpr const char* name = "e3m2"; };
struct fp16 : fields<5, 10, 15, special_codes::ieee, 0x200> { static constexpr const char* name = "fp16"; };
struct bf16 : fields<8, 7, 127, special_codes::ieee, 0x40> { static constexpr const char* name = "bf16"; };
// clang-format on

}  // namespace format

// Codes and limits derived from a signed format description.
template <class F>
struct format_traits {
  static constexpr int width = 1 + F::exponent_bits + F::mantissa_bits;
  static constexpr std::uint32_t sign_bit = 1u << (width - 1);
  static constexpr std::uint32_t mantissa_mask = (1u << F::mantissa_bits) - 1;
  static constexpr std::uint32_t max_field = (1u << F::exponent_bits) - 1;
  static constexpr int min_exponent = 1 - F::bias;  // exponent of the smallest normal

  // Largest finite magnitude code: below the Inf exponent (ieee), below the all-ones NaN
  // (nan_all_ones), or all ones (fnuz keeps 0x7F finite; fp4 has no specials).
  static constexpr std::uint32_t max_magnitude_code() {
    switch (F::specials) {
      case special_codes::ieee: return ((max_field - 1) << F::mantissa_bits) | mantissa_mask;
      case special_codes::nan_all_ones: return sign_bit - 2;
      case special_codes::fnuz:
      case special_codes::none: return sign_bit - 1;
    }
    return 0;
  }
  static constexpr std::uint32_t max_magnitude = max_magnitude_code();
  static constexpr bool has_negative_zero = F::specials != special_codes::fnuz;
  static constexpr bool has_nan = F::specials != special_codes::none;
  static constexpr bool has_inf = F::specials == special_codes::ieee;

  static constexpr bool is_nan(std::uint32_t code) {
    const std::uint32_t mag = code & (sign_bit - 1);
    switch (F::specials) {
      case special_codes::fnuz: return code == sign_bit;
      case special_codes::nan_all_ones: return mag == sign_bit - 1;
      case special_codes::ieee: return (mag >> F::mantissa_bits) == max_field && (mag & mantissa_mask) != 0;
      case special_codes::none: return false;
    }
    return false;
  }
  static constexpr bool is_inf(std::uint32_t code) {
    return has_inf && (code & (sign_bit - 1)) == (max_field << F::mantissa_bits);
  }
  // The NaN a conversion produces. fnuz has a single unsigned NaN; formats without NaN get +0
  // (AMD's CDNA4 emulator converts NaN to +0 for fp4/fp6; HIP's reference saturates instead:
  // docs/hardware.md 2.3 lists this as unresolved, so callers should not rely on either).
  static constexpr std::uint32_t nan_code(bool negative) {
    switch (F::specials) {
      case special_codes::fnuz: return sign_bit;
      case special_codes::nan_all_ones: return (negative ? sign_bit : 0) | (sign_bit - 1);
      case special_codes::ieee: return (negative ? sign_bit : 0) | (max_field << F::mantissa_bits) | F::nan_mantissa;
      case special_codes::none: return 0;
    }
    return 0;
  }
  // What the hardware converter produces for an overflowing value or an Inf input with
  // MODE.FP16_OVFL = 0 (the compiler's default): NaN for fnuz and e4m3fn, Inf for IEEE-style
  // formats; formats without specials saturate.
  static constexpr std::uint32_t overflow_code(bool negative) {
    const std::uint32_t sign = negative ? sign_bit : 0;
    switch (F::specials) {
      case special_codes::fnuz: return sign_bit;
      case special_codes::nan_all_ones: return sign | (sign_bit - 1);
      case special_codes::ieee: return sign | (max_field << F::mantissa_bits);
      case special_codes::none: return sign | max_magnitude;
    }
    return 0;
  }
};

}  // namespace wavekit
