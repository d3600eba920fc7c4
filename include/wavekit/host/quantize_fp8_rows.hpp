// Host reference of the fp8 output of the row-wise ops (block/quantize_fp8_row.hpp,
// core/scale_granularity.hpp), in the k_contiguous order (q [rows][cols], scales [rows][cols / 128];
// tests read the mn_contiguous order through fp8_rows::at):
//
//   per_tensor    q = saturate_cast(y / scale)
//   group_1x128   host/quantize_blockscale.hpp's rule on each 128 columns (quantize_fp8_group)
//
// Any values: NaN and Inf go through the same IEEE arithmetic the device's does.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <cstddef>
#include <span>
#include <stdexcept>
#include <vector>

#include "wavekit/core/layout.hpp"
#include "wavekit/core/numeric_types.hpp"
#include "wavekit/core/scale_granularity.hpp"
#include "wavekit/host/quantize_blockscale.hpp"

namespace wavekit::host {

template <class Fp8>
struct fp8_rows {
  int rows = 0, cols = 0;
  std::vector<Fp8> q;         // [rows][cols]
  std::vector<float> scales;  // group_1x128: [rows][cols / 128]; per_tensor: empty

  // The offsets of element (r, c) and of its group scale in a tensor stored in `order`.
  std::size_t q_at(int r, int c, layout order) const {
    return order == layout::k_contiguous ? std::size_t(r) * cols + c : std::size_t(c) * rows + r;
  }
  std::size_t scale_at(int r, int c, layout order) const {
    return order == layout::k_contiguous ? std::size_t(r) * (cols / 128) + c / 128 : std::size_t(c / 128) * rows + r;
  }
};

template <class Fp8>
fp8_rows<Fp8> quantize_fp8_rows(std::span<const float> y, int rows, int cols, scale_granularity scaling, float scale) {
  if (y.size() != std::size_t(rows) * cols)
    throw std::invalid_argument("quantize_fp8_rows: y holds rows * cols values");
  fp8_rows<Fp8> r;
  r.rows = rows, r.cols = cols, r.q.resize(y.size());
  if (scaling == scale_granularity::tensor) {
    for (std::size_t i = 0; i < y.size(); ++i) r.q[i] = saturate_cast<Fp8>(y[i] / scale);
    return r;
  }
  if (cols % 128) throw std::invalid_argument("quantize_fp8_rows: 1x128 groups need cols % 128 == 0");
  r.scales.resize(y.size() / 128);
  for (std::size_t g = 0; g < r.scales.size(); ++g)
    r.scales[g] = quantize_fp8_group<Fp8>(y.subspan(g * 128, 128), std::span<Fp8>(r.q).subspan(g * 128, 128));
  return r;
}

}  // namespace wavekit::host
