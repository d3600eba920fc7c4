// How far one fp32 scale reaches in the scaled GEMMs (plain C++: problems and plans use it).
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

namespace wavekit::block {

// A scale covers the whole tensor, or one row of A / one column of C (one row of B).
enum class scale_granularity { tensor, channel };

constexpr const char* to_string(scale_granularity g) {
  return g == scale_granularity::tensor ? "tensor" : g == scale_granularity::channel ? "channel" : "invalid";
}

}  // namespace wavekit::block
