// Storage orders of GEMM operands.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

namespace wavekit {

// k_contiguous: A [M][K], B [N][K] (K innermost). mn_contiguous: A [K][M], B [K][N].
enum class layout { k_contiguous, mn_contiguous };

constexpr const char* to_string(layout l) {
  return l == layout::k_contiguous ? "k_contiguous" : l == layout::mn_contiguous ? "mn_contiguous" : "invalid order";
}

}  // namespace wavekit
