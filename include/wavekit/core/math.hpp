// Small integer helpers shared by host and device code.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <type_traits>
#include <utility>

#include "wavekit/core/platform.hpp"

namespace wavekit {

template <class T>
WAVEKIT_HOST_DEVICE constexpr T ceil_div(T a, T b) {
  return (a + b - 1) / b;
}

// f(std::integral_constant<int, 0>{}), ..., f(std::integral_constant<int, N - 1>{}): a loop whose
// index is a compile-time constant in the body (unrolled by construction, not by a pragma).
template <int N, class F>
WAVEKIT_HOST_DEVICE WAVEKIT_FORCEINLINE constexpr void static_for(F&& f) {
  [&]<int... I>(std::integer_sequence<int, I...>) {
    (f(std::integral_constant<int, I>{}), ...);
  }(std::make_integer_sequence<int, N>{});
}

}  // namespace wavekit
