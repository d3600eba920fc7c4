// The accumulation arithmetic of CDNA3 matrix cores (docs/hardware.md 1.3, after
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
#include <bit>
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

// 2^e as a double, built from its bits (e within the normal double range).
inline double power_of_two(int e) { return std::bit_cast<double>(static_cast<std::uint64_t>(e + 1023) << 52); }

// Floor of v * 2^shift for an integer-valued v (|v| < 2^40), as an integer.
inline std::int64_t shifted_floor(std::int64_t v, int shift) {
  if (shift >= 0) return v * (std::int64_t{1} << std::min(shift, 62));
  return -shift >= 63 ? (v < 0 ? -1 : 0) : (v >> -shift);  // arithmetic shift: floor
}

enum class group_kind { fp8_even_odd, single };

// acc (fp32) plus one group of `count` products a[t] * b[t], by the CDNA3 algorithm.
// `specials`: some input is NaN/Inf (then the fp64 sum of exact products and C is returned).
inline float accumulate_group(const operand_value* a, const operand_value* b, int count, float acc, group_kind kind,
                              bool specials) {
  const std::uint32_t acc_bits = std::bit_cast<std::uint32_t>(acc);
  const int acc_field = static_cast<int>((acc_bits >> 23) & 0xFF);
  if (specials || acc_field == 0xFF) {
    double sum = acc;
    for (int t = 0; t < count; ++t) sum += a[t].value * b[t].value;
    return static_cast<float>(sum);
  }
  // Largest product exponent per half (fp8: even / odd K) or for the whole group.
  const int halves = kind == group_kind::fp8_even_odd ? 2 : 1;
  int top[2] = {-1000, -1000};
  for (int t = 0; t < count; ++t) {
    int& e = top[halves == 2 ? t & 1 : 0];
    e = std::max(e, a[t].exponent + b[t].exponent);
  }
  // Each product truncated toward zero in units of 2^(top - 24), then summed exactly.
  const double scale[2] = {power_of_two(24 - std::max(top[0], -900)), power_of_two(24 - std::max(top[1], -900))};
  std::int64_t sum[2] = {0, 0};
  double largest = 0.0;
  for (int t = 0; t < count; ++t) {
    const int h = halves == 2 ? t & 1 : 0;
    const double p = a[t].value * b[t].value;
    largest = std::max(largest, std::fabs(p));
    sum[h] += static_cast<std::int64_t>(p * scale[h]);
  }
  if (largest >= 0x1p128) {  // only bf16 products get here: +-Inf, or NaN when both signs overflow
    bool pos = false, neg = false;
    for (int t = 0; t < count; ++t) {
      const double p = a[t].value * b[t].value;
      pos |= p >= 0x1p128, neg |= p <= -0x1p128;
    }
    return pos && neg ? std::numeric_limits<float>::quiet_NaN()
                      : (pos ? std::numeric_limits<float>::infinity() : -std::numeric_limits<float>::infinity());
  }
  int e = top[0];
  std::int64_t s = sum[0];
  if (halves == 2) {
    e = std::max(top[0], top[1]);
    s = shifted_floor(sum[0], top[0] - e) + shifted_floor(sum[1], top[1] - e);
  }
  // C = c_sig * 2^(c_exp - 23) with a 24-bit integer significand; its exponent for the
  // alignment is floor(log2 |C|) raised to -126 (zero and subnormals give -126).
  const std::int64_t c_sig_abs = acc_field ? ((acc_bits & 0x7FFFFF) | 0x800000) : (acc_bits & 0x7FFFFF);
  const std::int64_t c_sig = (acc_bits >> 31) ? -c_sig_abs : c_sig_abs;
  const int c_exp = acc_field ? acc_field - 127 : -126;
  const int m = std::max(e, c_exp);
  const std::int64_t s_units = shifted_floor(s, 7 + e - m);  // units of 2^(m - 31)
  std::int64_t c_units = 0;                                  // units of 2^(m - 24)
  if (!(kind == group_kind::fp8_even_odd && c_exp < m - 25)) c_units = shifted_floor(c_sig, c_exp + 1 - m);
  return static_cast<float>(static_cast<double>(s_units + c_units * 128) * power_of_two(m - 31));
}

}  // namespace wavekit::emu::mfma
