// Small integer helpers shared by host and device code.
#pragma once

#include "wavekit/core/platform.hpp"

namespace wavekit {

template <class T>
WAVEKIT_HOST_DEVICE constexpr T ceil_div(T a, T b) {
  return (a + b - 1) / b;
}
template <class T>
WAVEKIT_HOST_DEVICE constexpr T round_up(T a, T b) {
  return ceil_div(a, b) * b;
}
template <class T>
WAVEKIT_HOST_DEVICE constexpr bool is_power_of_two(T v) {
  return v > 0 && (v & (v - 1)) == 0;
}

}  // namespace wavekit
