// Host-side matrix transpose, for laying out operands in the other storage order.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <cstddef>
#include <vector>

namespace wavekit::host {

// The (cols, rows) row-major transpose of a (rows, cols) row-major matrix.
template <class T>
std::vector<T> transposed(const std::vector<T>& x, int rows, int cols) {
  std::vector<T> t(x.size());
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) t[std::size_t(c) * rows + r] = x[std::size_t(r) * cols + c];
  return t;
}

}  // namespace wavekit::host
