// Inputs that exercise an fp32 -> narrow-format encoder at every interesting point: each
// representable value, each midpoint between neighbours (ties) and the fp32 values either side
// of it, the overflow threshold, subnormals, values below half the smallest subnormal, +-0,
// +-Inf, NaN, plus seeded random fp32 values over the format's range. Shared by the Catch2 tests
// and the ml_dtypes cross-check dumper so both see the same sweep.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "wavekit/core/numeric_types.hpp"

namespace wavekit::test {

// Positive finite values of T in increasing order (codes 0 .. max magnitude).
template <class T>
std::vector<float> positive_finite_values() {
  std::vector<float> v;
  if constexpr (std::is_same_v<T, e8m0>) {
    for (std::uint32_t c = 0; c <= e8m0_codes::max_finite; ++c) v.push_back(to_float(T::from_bits(c)));
  } else {
    for (std::uint32_t c = 0; c <= format_traits<typename T::format>::max_magnitude; ++c)
      v.push_back(to_float(T::from_bits(c)));
  }
  return v;
}

template <class T>
std::vector<float> encode_sweep(std::uint32_t seed = 12345) {
  const std::vector<float> pos = positive_finite_values<T>();
  std::vector<float> s;
  auto add_around = [&](float x) {
    s.push_back(x);
    s.push_back(std::nextafter(x, 0.0f));
    s.push_back(std::nextafter(x, std::numeric_limits<float>::infinity()));
  };
  for (std::size_t i = 0; i < pos.size(); ++i) {
    add_around(pos[i]);
    if (i + 1 < pos.size()) add_around(0.5f * (pos[i] + pos[i + 1]));  // exact: few significant bits
  }
  const float top = pos.back();
  const float next_binade_step = top - pos[pos.size() - 2];  // spacing at the top of the range
  add_around(top + 0.5f * next_binade_step);                 // overflow threshold (a tie)
  add_around(top + next_binade_step);
  for (float x : {2.0f * top, 1e30f, std::numeric_limits<float>::max(), std::numeric_limits<float>::infinity(),
                  0.25f * pos[1], 0.5f * pos[1], 0.75f * pos[1], std::numeric_limits<float>::denorm_min(),
                  std::numeric_limits<float>::min(), 1e-30f, 0.0f})
    add_around(x);
  std::mt19937 rng(seed);
  const float lo = std::log2(pos[1]) - 2.0f, hi = std::log2(top) + 2.0f;
  std::uniform_real_distribution<float> exponent(lo, hi);
  for (int i = 0; i < 4000; ++i) s.push_back(std::exp2(exponent(rng)));
  const std::size_t n = s.size();
  for (std::size_t i = 0; i < n; ++i) s.push_back(-s[i]);
  s.push_back(std::numeric_limits<float>::quiet_NaN());
  s.push_back(-std::numeric_limits<float>::quiet_NaN());
  return s;
}

}  // namespace wavekit::test
