// Bit-exact conversions between fp32 and the narrow formats of float_format.hpp.
//
// Encoding rounds to nearest, ties to even, on the exact value of the fp32 input (subnormal
// targets included), and decides overflow after rounding, as v_cvt_pk_fp8_f32 does
// (docs/hardware.md 2.2).
// Two overflow policies:
//   saturate: clamp to +-max finite first (what quantizers want); NaN stays NaN.
//   hardware: what the gfx9 converters produce with MODE.FP16_OVFL = 0, the compiler's default:
//             an overflowing or infinite value becomes NaN (fnuz, e4m3fn) or Inf (e5m2, fp16, bf16).
// Everything here is constexpr and usable on host and device; it is the reference the device
// instruction wrappers are tested against.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <cstdint>

#include "wavekit/core/float_format.hpp"
#include "wavekit/core/platform.hpp"

namespace wavekit {

enum class overflow_policy : std::uint8_t { saturate, hardware };

namespace detail {

WAVEKIT_HOST_DEVICE constexpr int floor_log2(std::uint64_t v) { return 63 - __builtin_clzll(v); }

WAVEKIT_HOST_DEVICE constexpr std::uint32_t float_bits(float x) { return __builtin_bit_cast(std::uint32_t, x); }
WAVEKIT_HOST_DEVICE constexpr float bits_float(std::uint32_t b) { return __builtin_bit_cast(float, b); }

// sig * 2^exp2 as fp32, for values that fp32 represents exactly (normal or subnormal).
WAVEKIT_HOST_DEVICE constexpr float exact_float(std::uint64_t sig, int exp2) {
  if (sig == 0) return 0.0f;
  const int lead = floor_log2(sig);
  const int e = lead + exp2;  // unbiased exponent of the value
  if (e >= -126) {
    const std::uint64_t m = lead <= 23 ? sig << (23 - lead) : sig >> (lead - 23);
    return bits_float(static_cast<std::uint32_t>((e + 127) << 23) | static_cast<std::uint32_t>(m & 0x7FFFFF));
  }
  const int shift = exp2 + 149;  // fp32 subnormal: value = m * 2^-149
  const std::uint64_t m = shift >= 0 ? sig << shift : sig >> -shift;
  return bits_float(static_cast<std::uint32_t>(m));
}

}  // namespace detail

// Decode a code of format F (upper bits beyond the format's width are ignored).
template <class F>
WAVEKIT_HOST_DEVICE constexpr float decode_float(std::uint32_t code) {
  using T = format_traits<F>;
  code &= (T::sign_bit << 1) - 1;
  const std::uint32_t sign = (code & T::sign_bit) ? 0x80000000u : 0u;
  if (T::is_nan(code)) return detail::bits_float(sign | 0x7FC00000u);
  if (T::is_inf(code)) return detail::bits_float(sign | 0x7F800000u);
  const std::uint32_t mag = code & (T::sign_bit - 1);
  const std::uint32_t field = mag >> F::mantissa_bits;
  const std::uint32_t man = mag & T::mantissa_mask;
  const std::uint64_t sig = field ? ((1u << F::mantissa_bits) | man) : man;
  const int exp2 = static_cast<int>(field ? field : 1) - F::bias - F::mantissa_bits;
  return detail::bits_float(sign | detail::float_bits(detail::exact_float(sig, exp2)));
}

namespace detail {
// Round-to-nearest-even of sig / 2^shift (shift > 0), as an integer.
struct round_nearest_even {
  WAVEKIT_HOST_DEVICE constexpr std::uint64_t operator()(std::uint64_t sig, int shift) const {
    if (shift >= 40) return 0;  // below half the smallest step
    std::uint64_t q = sig >> shift;
    const std::uint64_t rem = sig & ((std::uint64_t{1} << shift) - 1);
    const std::uint64_t half = std::uint64_t{1} << (shift - 1);
    if (rem > half || (rem == half && (q & 1))) ++q;
    return q;
  }
};
// Round-to-nearest of sig / 2^shift (shift > 0) with halves away from zero (sig is a magnitude),
// as an integer: the MX rule of aiter's fused MoE quantizer (core/mx_rounding.hpp).
struct round_half_away {
  WAVEKIT_HOST_DEVICE constexpr std::uint64_t operator()(std::uint64_t sig, int shift) const {
    if (shift >= 40) return 0;  // below half the smallest step
    return (sig + (std::uint64_t{1} << (shift - 1))) >> shift;
  }
};
}  // namespace detail

// Encode x * 2^-scale_exponent (scaled exactly, before any rounding) to format F, rounding the
// significand with `round(sig, shift)` (an integer approximation of sig / 2^shift, shift > 0; the
// default is round-to-nearest-even).
template <class F, class Round = detail::round_nearest_even>
WAVEKIT_HOST_DEVICE constexpr std::uint32_t encode_float(float x, overflow_policy policy, Round round = {},
                                                         int scale_exponent = 0) {
  using T = format_traits<F>;
  constexpr int mb = F::mantissa_bits;
  const std::uint32_t fb = detail::float_bits(x);
  const bool negative = (fb >> 31) != 0;
  const std::uint32_t fexp = (fb >> 23) & 0xFF;
  const std::uint32_t fman = fb & 0x7FFFFF;
  const std::uint32_t sign = negative ? T::sign_bit : 0;
  const std::uint32_t overflow =
      policy == overflow_policy::saturate ? (sign | T::max_magnitude) : T::overflow_code(negative);

  if (fexp == 0xFF) return fman != 0 ? T::nan_code(negative) : overflow;
  const std::uint64_t sig = fexp ? (fman | 0x800000u) : fman;
  if (sig == 0) return T::has_negative_zero ? sign : 0;

  // x = sig * 2^e2. The result is q * 2^qe with qe the quantum at x's binade, or at the
  // smallest normal binade for values in the subnormal range.
  const int e2 = static_cast<int>(fexp ? fexp : 1) - 150 - scale_exponent;
  const int lead = detail::floor_log2(sig) + e2;
  const int qe = (lead > T::min_exponent ? lead : T::min_exponent) - mb;
  const int shift = qe - e2;
  const std::uint64_t q = shift <= 0 ? sig << -shift : round(sig, shift);
  // q <= 2^(mb+1); a carry out of the mantissa moves to the next binade, which the magnitude
  // formula absorbs: ((e - emin) << mb) + q covers subnormals (q < 2^mb, e = emin) and normals.
  const std::uint64_t mag = (static_cast<std::uint64_t>(qe + mb - T::min_exponent) << mb) + q;
  if (mag == 0) return T::has_negative_zero ? sign : 0;
  if (mag > T::max_magnitude) return overflow;
  return sign | static_cast<std::uint32_t>(mag);
}

// The bits of a number (not NaN) rounded to bf16, nearest even, in the high half of the word: the
// rounding of bf16_bits_rne and bf16_pair_bits_rne_numbers (the low half is left over).
WAVEKIT_HOST_DEVICE constexpr std::uint32_t bf16_rne_in_high_half(std::uint32_t b) {
  return b + 0x7FFFu + ((b >> 16) & 1u);
}

// fp32 -> bf16 bits, round to nearest even, as encode_float<format::bf16>(x, hardware) (overflow to
// Inf, NaN to the quiet NaN of x's sign), in the handful of integer operations epilogues can afford.
WAVEKIT_HOST_DEVICE constexpr std::uint32_t bf16_bits_rne(float x) {
  const std::uint32_t b = detail::float_bits(x);
  if ((b & 0x7FFFFFFFu) > 0x7F800000u) return (b >> 16 & 0x8000u) | 0x7FC0u;
  return bf16_rne_in_high_half(b) >> 16;
}

// Two fp32 values that are not NaN (Inf included) rounded to bf16, nearest even, packed as one word
// (lo in the low half): bf16_bits_rne without its NaN test, for values known to be numbers (an
// online softmax's weights). A NaN comes out as some other code (Inf, or a wrap to +-0).
WAVEKIT_HOST_DEVICE constexpr std::uint32_t bf16_pair_bits_rne_numbers(float lo, float hi) {
  return bf16_rne_in_high_half(detail::float_bits(lo)) >> 16 |
         (bf16_rne_in_high_half(detail::float_bits(hi)) & 0xFFFF0000u);
}

// e8m0: the OCP MX scale format. Unsigned, exponent only: code c means 2^(c-127); 0xFF is NaN.
namespace e8m0_codes {
inline constexpr std::uint32_t nan = 0xFF;
inline constexpr std::uint32_t max_finite = 0xFE;
inline constexpr int bias = 127;
}  // namespace e8m0_codes

WAVEKIT_HOST_DEVICE constexpr float decode_e8m0(std::uint32_t code) {
  code &= 0xFF;
  if (code == e8m0_codes::nan) return detail::bits_float(0x7FC00000u);
  return detail::exact_float(1, static_cast<int>(code) - e8m0_codes::bias);
}

// Nearest power of two; a tie (x = 1.5 * 2^e) rounds up, as ml_dtypes' float8_e8m0fnu does. Zero, negative values and
// NaN have no e8m0 code and give NaN; positive values below 2^-127 give the smallest code. Overflow: saturate gives
// 2^127, hardware gives NaN.
WAVEKIT_HOST_DEVICE constexpr std::uint32_t encode_e8m0(float x, overflow_policy policy) {
  const std::uint32_t fb = detail::float_bits(x);
  const std::uint32_t fexp = (fb >> 23) & 0xFF;
  const std::uint32_t fman = fb & 0x7FFFFF;
  const std::uint32_t overflow = policy == overflow_policy::saturate ? e8m0_codes::max_finite : e8m0_codes::nan;
  if ((fb >> 31) != 0 || (fexp == 0xFF && fman != 0) || (fb & 0x7FFFFFFF) == 0) return e8m0_codes::nan;
  if (fexp == 0xFF) return overflow;
  const std::uint64_t sig = fexp ? (fman | 0x800000u) : fman;
  const int lead_bit = detail::floor_log2(sig);
  int e = lead_bit + static_cast<int>(fexp ? fexp : 1) - 150;
  if (lead_bit > 0 && ((sig >> (lead_bit - 1)) & 1)) ++e;  // fraction >= 1/2 rounds up
  if (e < -e8m0_codes::bias) return 0;
  if (e > 127) return overflow;
  return static_cast<std::uint32_t>(e + e8m0_codes::bias);
}

}  // namespace wavekit
