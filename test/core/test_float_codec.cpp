// Exhaustive decoding and swept encoding of every narrow format against the facts of
// docs/hardware.md 2.1 and against an independent rounding model: for each input,
// the encoder must return the representable value nearest to it (ties to the even mantissa),
// found here by search over the decoded code table rather than by bit manipulation.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <limits>

#include "core/codec_sweep.hpp"
#include "wavekit/core/numeric_types.hpp"

using namespace wavekit;

namespace {

template <class T>
using traits_of = format_traits<typename T::format>;

// The nearest-even reference: scan the sorted positive table for the closest value.
template <class T>
std::uint32_t nearest_even_magnitude(float a, const std::vector<float>& pos, bool& overflow) {
  overflow = false;
  const float top = pos.back();
  const float half_step = 0.5f * (top - pos[pos.size() - 2]);
  if (a > top + half_step || (a == top + half_step && (traits_of<T>::max_magnitude & 1))) {
    overflow = true;
    return 0;
  }
  std::size_t best = 0;
  for (std::size_t i = 1; i < pos.size(); ++i) {
    const double d_best = std::fabs(double(a) - pos[best]), d_i = std::fabs(double(a) - pos[i]);
    if (d_i < d_best || (d_i == d_best && (i % 2 == 0))) best = i;
  }
  return static_cast<std::uint32_t>(best);
}

}  // namespace

TEMPLATE_TEST_CASE("decoding matches the format tables", "[core][codec]", fp8_e4m3fnuz, bf8_e5m2fnuz, fp8_e4m3fn,
                   bf8_e5m2, fp4_e2m1) {
  using T = TestType;
  using F = typename T::format;
  using tr = traits_of<T>;
  // Every code: sign symmetry, monotone magnitudes, NaN/Inf exactly at the specified codes.
  float previous = -1.0f;
  for (std::uint32_t c = 0; c < 2 * tr::sign_bit; ++c) {
    const float v = to_float(T::from_bits(c));
    const std::uint32_t mag = c & (tr::sign_bit - 1);
    const bool negative = (c & tr::sign_bit) != 0;
    if (tr::is_nan(c)) {
      CHECK(std::isnan(v));
      continue;
    }
    if (tr::is_inf(c)) {
      CHECK(std::isinf(v));
      CHECK(std::signbit(v) == negative);
      continue;
    }
    CHECK(std::isfinite(v));
    CHECK(std::signbit(v) == negative);
    const float expected_magnitude = to_float(T::from_bits(mag));
    CHECK(std::fabs(v) == expected_magnitude);
    if (!negative && mag <= tr::max_magnitude) {
      CHECK(v > previous);
      previous = v;
      // Independent value formula: (-1)^s 2^(E-bias) (1 + M/2^m), subnormal 2^(1-bias) M/2^m.
      const int field = static_cast<int>(mag >> F::mantissa_bits);
      const int man = static_cast<int>(mag & tr::mantissa_mask);
      const double formula = field == 0 ? std::ldexp(man, 1 - F::bias - F::mantissa_bits)
                                        : std::ldexp((1 << F::mantissa_bits) + man, field - F::bias - F::mantissa_bits);
      CHECK(double(v) == formula);
    }
  }
  CHECK(previous == element_limits<T>::max_finite);
}

TEST_CASE("format constants are those of the specification", "[core][codec]") {
  CHECK(element_limits<fp8_e4m3fnuz>::max_finite == 240.0f);
  CHECK(element_limits<fp8_e4m3fnuz>::min_normal == std::ldexp(1.0f, -7));
  CHECK(element_limits<fp8_e4m3fnuz>::min_subnormal == std::ldexp(1.0f, -10));
  CHECK(element_limits<bf8_e5m2fnuz>::max_finite == 57344.0f);
  CHECK(element_limits<bf8_e5m2fnuz>::min_normal == std::ldexp(1.0f, -15));
  CHECK(element_limits<bf8_e5m2fnuz>::min_subnormal == std::ldexp(1.0f, -17));
  CHECK(element_limits<fp8_e4m3fn>::max_finite == 448.0f);
  CHECK(element_limits<fp8_e4m3fn>::min_normal == std::ldexp(1.0f, -6));
  CHECK(element_limits<fp8_e4m3fn>::min_subnormal == std::ldexp(1.0f, -9));
  CHECK(element_limits<bf8_e5m2>::max_finite == 57344.0f);
  CHECK(element_limits<bf8_e5m2>::min_normal == std::ldexp(1.0f, -14));
  CHECK(element_limits<bf8_e5m2>::min_subnormal == std::ldexp(1.0f, -16));
  CHECK(element_limits<fp4_e2m1>::max_finite == 6.0f);
  CHECK(element_limits<fp4_e2m1>::min_normal == 1.0f);
  CHECK(element_limits<fp4_e2m1>::min_subnormal == 0.5f);
  CHECK(element_limits<fp16>::max_finite == 65504.0f);
  CHECK(element_limits<bf16>::max_finite == std::ldexp(255.0f, 120));

  // The special codes: fnuz has only 0x80 as NaN and no -0; OCP e4m3fn has 0x7F/0xFF NaN;
  // e5m2 has Inf at 0x7C/0xFC.
  CHECK(std::isnan(to_float(fp8_e4m3fnuz{0x80})));
  CHECK(std::isnan(to_float(bf8_e5m2fnuz{0x80})));
  CHECK(std::isnan(to_float(fp8_e4m3fn{0x7F})));
  CHECK(std::isnan(to_float(fp8_e4m3fn{0xFF})));
  CHECK(to_float(fp8_e4m3fn{0x80}) == 0.0f);
  CHECK(std::signbit(to_float(fp8_e4m3fn{0x80})));
  CHECK(to_float(bf8_e5m2{0x7C}) == std::numeric_limits<float>::infinity());
  CHECK(to_float(bf8_e5m2{0xFC}) == -std::numeric_limits<float>::infinity());
  for (std::uint32_t c : {0x7Du, 0x7Eu, 0x7Fu, 0xFDu, 0xFEu, 0xFFu})
    CHECK(std::isnan(to_float(bf8_e5m2::from_bits(c))));
  const float fp4_values[8] = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f};
  for (std::uint32_t c = 0; c < 8; ++c) {
    CHECK(to_float(fp4_e2m1::from_bits(c)) == fp4_values[c]);
    CHECK(to_float(fp4_e2m1::from_bits(c | 8)) == -fp4_values[c]);
  }
}

TEST_CASE("e8m0 decodes every code to a power of two", "[core][codec]") {
  for (std::uint32_t c = 0; c < 255; ++c) CHECK(to_float(e8m0::from_bits(c)) == std::ldexp(1.0f, int(c) - 127));
  CHECK(std::isnan(to_float(e8m0{0xFF})));
  CHECK(to_float(e8m0{0x7F}) == 1.0f);
  CHECK(e8m0::from_exponent(-127).bits == 0);
  CHECK(e8m0::from_exponent(127).bits == 0xFE);
}

TEMPLATE_TEST_CASE("encoding rounds to the nearest value, ties to even", "[core][codec]", fp8_e4m3fnuz, bf8_e5m2fnuz,
                   fp8_e4m3fn, bf8_e5m2, fp4_e2m1) {
  using T = TestType;
  using tr = traits_of<T>;
  const std::vector<float> pos = test::positive_finite_values<T>();
  for (float x : test::encode_sweep<T>()) {
    INFO("input " << x << " (bits 0x" << std::hex << __builtin_bit_cast(std::uint32_t, x) << ")");
    const std::uint32_t sat = saturate_cast<T>(x).bits, hw = hardware_cast<T>(x).bits;
    const bool negative = std::signbit(x);
    if (std::isnan(x)) {
      CHECK(sat == tr::nan_code(negative));
      CHECK(hw == tr::nan_code(negative));
      continue;
    }
    bool overflow = false;
    const std::uint32_t mag = std::isinf(x) ? 0 : nearest_even_magnitude<T>(std::fabs(x), pos, overflow);
    const std::uint32_t sign = negative ? tr::sign_bit : 0;
    if (overflow || std::isinf(x)) {
      CHECK(sat == (sign | tr::max_magnitude));
      CHECK(hw == tr::overflow_code(negative));
      continue;
    }
    const std::uint32_t expected = mag == 0 && !tr::has_negative_zero ? 0 : (sign | mag);
    CHECK(sat == expected);
    CHECK(hw == expected);
  }
}

TEST_CASE("hardware-faithful overflow follows v_cvt_pk_fp8_f32 with FP16_OVFL = 0", "[core][codec]") {
  // docs/hardware.md 2.2: 300.0f gives 0x80 on gfx942 (NaN), and overflow is decided after rounding.
  CHECK(hardware_cast<fp8_e4m3fnuz>(300.0f).bits == 0x80);
  CHECK(hardware_cast<fp8_e4m3fnuz>(-300.0f).bits == 0x80);
  CHECK(saturate_cast<fp8_e4m3fnuz>(300.0f).bits == 0x7F);
  CHECK(saturate_cast<fp8_e4m3fnuz>(-300.0f).bits == 0xFF);
  CHECK(hardware_cast<fp8_e4m3fnuz>(247.99f).bits == 0x7F);  // rounds down to 240
  CHECK(hardware_cast<fp8_e4m3fnuz>(248.0f).bits == 0x80);   // tie rounds to even = 256: overflow
  // docs/hardware.md 2.3 (gfx950, OCP): e4m3 overflow and Inf give sign|0x7F (NaN); e5m2 gives Inf.
  CHECK(hardware_cast<fp8_e4m3fn>(480.0f).bits == 0x7F);
  CHECK(hardware_cast<fp8_e4m3fn>(-std::numeric_limits<float>::infinity()).bits == 0xFF);
  CHECK(hardware_cast<fp8_e4m3fn>(464.0f).bits == 0x7E);  // tie between 448 and 480 goes to 448
  CHECK(saturate_cast<fp8_e4m3fn>(1e9f).bits == 0x7E);
  CHECK(hardware_cast<bf8_e5m2>(1e9f).bits == 0x7C);
  CHECK(saturate_cast<bf8_e5m2>(-1e9f).bits == 0xFB);
  CHECK(hardware_cast<bf8_e5m2>(std::numeric_limits<float>::quiet_NaN()).bits == 0x7F);
  // No -0 in fnuz: negative values that round to zero give +0; OCP keeps the sign.
  CHECK(hardware_cast<fp8_e4m3fnuz>(-1e-20f).bits == 0x00);
  CHECK(hardware_cast<fp8_e4m3fn>(-1e-20f).bits == 0x80);
  CHECK(hardware_cast<fp4_e2m1>(-0.0f).bits == 0x8);
  // fp4 has no specials: overflow and Inf saturate under both policies.
  CHECK(hardware_cast<fp4_e2m1>(7.0f).bits == 0x7);
  CHECK(hardware_cast<fp4_e2m1>(-std::numeric_limits<float>::infinity()).bits == 0xF);
}

TEST_CASE("fp16 and bf16 round like IEEE conversions", "[core][codec]") {
  CHECK(hardware_cast<bf16>(1.0f).bits == 0x3F80);
  CHECK(hardware_cast<bf16>(__builtin_bit_cast(float, 0x3F808000u)).bits == 0x3F80);  // tie to even (down)
  CHECK(hardware_cast<bf16>(__builtin_bit_cast(float, 0x3F818000u)).bits == 0x3F82);  // tie to even (up)
  CHECK(hardware_cast<bf16>(__builtin_bit_cast(float, 0x3F808001u)).bits == 0x3F81);
  CHECK(hardware_cast<bf16>(std::numeric_limits<float>::max()).bits == 0x7F80);  // rounds past max: Inf
  CHECK(saturate_cast<bf16>(std::numeric_limits<float>::max()).bits == 0x7F7F);
  CHECK(hardware_cast<bf16>(std::numeric_limits<float>::denorm_min()).bits == 0x0000);
  CHECK(hardware_cast<fp16>(65520.0f).bits == 0x7C00);  // tie above 65504 rounds to even: Inf
  CHECK(hardware_cast<fp16>(65519.0f).bits == 0x7BFF);
  CHECK(hardware_cast<fp16>(std::ldexp(1.0f, -24)).bits == 0x0001);
  CHECK(hardware_cast<fp16>(std::ldexp(1.0f, -25)).bits == 0x0000);  // tie to even: zero
  CHECK(hardware_cast<fp16>(std::ldexp(1.5f, -25)).bits == 0x0001);
  // Every code round-trips.
  for (std::uint32_t c = 0; c < 0x10000; ++c) {
    const float v = to_float(fp16::from_bits(c));
    if (!std::isnan(v)) CHECK(hardware_cast<fp16>(v).bits == c);
    const float w = to_float(bf16::from_bits(c));
    if (!std::isnan(w)) CHECK(hardware_cast<bf16>(w).bits == c);
  }
}

TEST_CASE("e8m0 encoding rounds to the nearest power of two", "[core][codec]") {
  CHECK(hardware_cast<e8m0>(1.0f).bits == 0x7F);
  CHECK(hardware_cast<e8m0>(1.4999f).bits == 0x7F);
  CHECK(hardware_cast<e8m0>(1.5f).bits == 0x80);  // a tie rounds up
  CHECK(hardware_cast<e8m0>(0.75f).bits == 0x7F);
  CHECK(hardware_cast<e8m0>(std::ldexp(1.0f, -127)).bits == 0x00);
  CHECK(hardware_cast<e8m0>(std::ldexp(1.0f, -140)).bits == 0x00);  // no zero code: smallest
  CHECK(hardware_cast<e8m0>(0.0f).bits == 0xFF);
  CHECK(hardware_cast<e8m0>(-1.0f).bits == 0xFF);
  CHECK(hardware_cast<e8m0>(std::ldexp(1.6f, 127)).bits == 0xFF);  // rounds to 2^128: overflow
  CHECK(saturate_cast<e8m0>(std::ldexp(1.6f, 127)).bits == 0xFE);
  CHECK(saturate_cast<e8m0>(std::numeric_limits<float>::infinity()).bits == 0xFE);
  for (std::uint32_t c = 0; c < 255; ++c) CHECK(hardware_cast<e8m0>(to_float(e8m0::from_bits(c))).bits == c);
}

TEST_CASE("fp4 pairs pack element 0 in the low nibble", "[core][codec]") {
  const fp4x2_e2m1 p = fp4x2_e2m1::pack(saturate_cast<fp4_e2m1>(1.0f), saturate_cast<fp4_e2m1>(-6.0f));
  CHECK(p.bits == 0xF2);
  CHECK(to_float(p.element(0)) == 1.0f);
  CHECK(to_float(p.element(1)) == -6.0f);
}

// Conversions are constexpr: usable in device code and in static tables.
static_assert(hardware_cast<fp8_e4m3fnuz>(1.0f).bits == 0x40);
static_assert(hardware_cast<fp8_e4m3fn>(1.0f).bits == 0x38);
static_assert(to_float(bf8_e5m2fnuz{0x7F}) == 57344.0f);
