// aiter's pre-shuffled MXFP4 layouts, as amd-mxfp4-mm hands its B operand over
// (shared/reference/problems.md), in plain C++: to build test data and for users whose weights
// arrive so. wavekit's MX GEMM reads both in place (b_layout::preshuffled).
//
//   shuffle_weight(layout=(16, 16)) of the packed fp4 bytes [N][Kb] (Kb = K / 2): viewed as
//     (N/16, 16, Kb/32, 2, 16) and permuted (0, 2, 3, 1, 4): each 16 rows x 32 bytes stored as two
//     16 x 16-byte halves, one after the other.
//   e8m0_shuffle of the scales [rows][cols] (cols = K / 32): padded with zeros to
//     (ceil(rows / 256) 256, ceil(cols / 8) 8) = (sm, sn), viewed as (sm/32, 2, 16, sn/8, 2, 4) and
//     permuted (0, 3, 5, 2, 4, 1).
// Where each byte lands: core/mx_shuffle.hpp (checked against the view-and-permute in
// test/host/test_shuffle_mx.cpp).
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "wavekit/core/mx_shuffle.hpp"
#include "wavekit/core/numeric_types.hpp"

namespace wavekit::host {

template <class Byte>
std::vector<Byte> shuffle_weight_16x16(std::span<const Byte> b, int n, int row_bytes) {
  static_assert(sizeof(Byte) == 1, "shuffle_weight_16x16: a byte tensor (packed fp4)");
  if (n % 16 || row_bytes % 32 || b.size() != std::size_t(n) * row_bytes)
    throw std::invalid_argument("shuffle_weight_16x16: rows a multiple of 16, a row's bytes of 32, [" +
                                std::to_string(n) + "][" + std::to_string(row_bytes) + "] bytes");
  std::vector<Byte> out(b.size());
  for (int r = 0; r < n; ++r)
    for (int kb = 0; kb < row_bytes; ++kb)
      out[static_cast<std::size_t>(shuffled_weight_offset(r, kb, row_bytes))] = b[std::size_t(r) * row_bytes + kb];
  return out;
}

inline std::vector<e8m0> e8m0_shuffle(std::span<const e8m0> s, int rows, int cols) {
  if (s.size() != std::size_t(rows) * cols) throw std::invalid_argument("e8m0_shuffle: [rows][cols] scales");
  const int sm = shuffled_scale_rows(rows), sn = shuffled_scale_cols(cols);
  std::vector<e8m0> out(std::size_t(sm) * sn, e8m0{0});
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c)
      out[static_cast<std::size_t>(shuffled_scale_row_part(r, sn) + shuffled_scale_col_part(c))] =
          s[std::size_t(r) * cols + c];
  return out;
}

}  // namespace wavekit::host
