// The accumulation arithmetic of CDNA3 matrix cores (shared/spec/cdna.md section 1.7, after
// MMA-Sim's model, reported bit-exact against MI300 hardware). Per output element and per group
// of G products along K (G = 16 for fp8/bf8, min(8, K) for f16/bf16):
//
//   - products are exact; each product's exponent is the sum of its inputs' exponents, where an
//     input's exponent is floor(log2 |x|) raised to the format's minimum (subnormals) and -126
//     for zero;
//   - fp8: even and odd K positions are summed separately; each sum truncates every product
//     toward zero to 24 bits below the largest product exponent E of its half; the two halves are
//     aligned to the larger E with floor; f16/bf16: one such sum over the group;
//   - the sum and the accumulator are aligned to M = max(E, exponent of C): the sum is floored
//     to 31 bits below 2^M, C to 24 bits (fp8: C is dropped when its exponent < M - 25);
//   - their exact sum is rounded to fp32 (nearest even, gradual underflow).
// NaN or infinite inputs give the fp64 sum of the exact products and C, as the model does.
//
// Everything below is exact integer or power-of-two arithmetic in double, so the result does not
// depend on the host's floating-point evaluation.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

namespace wavekit::emu::mfma {

// An input element prepared for the algorithm: its exact value and its exponent as defined above.
struct operand_value {
  double value;
  int exponent;
};

inline constexpr int exponent_of_zero = -126;

// Exponent of x for the fused sum: floor(log2 |x|), at least min_exponent; -126 for zero.
inline int input_exponent(double x, int min_exponent) {
  if (x == 0.0) return exponent_of_zero;
  return std::max(std::ilogb(x), min_exponent);
}

inline double power_of_two(int e) { return std::ldexp(1.0, e); }

// Floor of v * 2^shift for an integer-valued v (|v| < 2^40), as an integer.
inline std::int64_t shifted_floor(std::int64_t v, int shift) {
  if (shift >= 0) return v * (std::int64_t{1} << std::min(shift, 62));
  return -shift >= 63 ? (v < 0 ? -1 : 0) : (v >> -shift);  // arithmetic shift: floor
}

enum class group_kind { fp8_even_odd, single };

// acc (fp32) plus one group of `count` products a[t] * b[t], by the CDNA3 algorithm.
// `specials`: some input is NaN/Inf, or C is not finite (then the fp64 sum is returned).
inline float accumulate_group(const operand_value* a, const operand_value* b, int count, float acc, group_kind kind,
                              bool specials) {
  if (specials || !std::isfinite(acc)) {
    double sum = acc;
    for (int t = 0; t < count; ++t) sum += a[t].value * b[t].value;
    return static_cast<float>(sum);
  }
  // Largest product exponent per half (fp8) or for the whole group.
  int top[2] = {-1000, -1000};
  const int halves = kind == group_kind::fp8_even_odd ? 2 : 1;
  for (int t = 0; t < count; ++t) {
    int& e = top[halves == 2 ? t & 1 : 0];
    e = std::max(e, a[t].exponent + b[t].exponent);
  }
  // Truncated sums in units of 2^(top - 24).
  std::int64_t sum[2] = {0, 0};
  double scale[2] = {power_of_two(24 - top[0]), halves == 2 ? power_of_two(24 - top[1]) : 0.0};
  bool overflow_pos = false, overflow_neg = false;
  for (int t = 0; t < count; ++t) {
    const int h = halves == 2 ? t & 1 : 0;
    const double p = a[t].value * b[t].value;
    if (p >= 0x1p128) overflow_pos = true;
    if (p <= -0x1p128) overflow_neg = true;
    sum[h] += static_cast<std::int64_t>(p * scale[h]);  // truncation toward zero
  }
  if (overflow_pos || overflow_neg)
    return overflow_pos && overflow_neg
               ? std::numeric_limits<float>::quiet_NaN()
               : (overflow_pos ? std::numeric_limits<float>::infinity() : -std::numeric_limits<float>::infinity());
  int e = top[0];
  std::int64_t s = sum[0];
  if (halves == 2) {
    e = std::max(top[0], top[1]);
    s = shifted_floor(sum[0], top[0] - e) + shifted_floor(sum[1], top[1] - e);
  }
  const double c = acc;
  const int ec = input_exponent(c, -126);
  const int m = std::max(e, ec);
  const std::int64_t s_units = shifted_floor(s, 7 + e - m);  // units of 2^(m - 31)
  std::int64_t c_units = 0;                                  // units of 2^(m - 24)
  if (!(kind == group_kind::fp8_even_odd && ec < m - 25)) {
    const double scaled = c * power_of_two(24 - m);
    c_units = static_cast<std::int64_t>(std::floor(scaled));
  }
  const double exact = static_cast<double>(s_units + c_units * 128) * power_of_two(m - 31);
  return static_cast<float>(exact);
}

}  // namespace wavekit::emu::mfma
