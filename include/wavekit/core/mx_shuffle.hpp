// Where aiter's pre-shuffled MXFP4 layouts put a byte (host/shuffle_mx.hpp builds them): one
// definition for the host and the device readers. Each offset is a row's part plus a column's.
//
//   shuffle_weight(layout=(16, 16)), packed fp4 [N][row_bytes]: byte (n, kb) at
//     (n / 16) 16 row_bytes + (n % 16) 16 + 16 kb          for kb a multiple of 16 (and + kb % 16)
//   e8m0_shuffle, scales [rows][cols] padded to (ceil(rows / 256) 256, ceil(cols / 8) 8): (r, c) at
//     (r / 32) (padded_cols / 8) 256 + (r % 16) 4 + r / 16 % 2  +  (c / 8) 256 + (c % 4) 64 + (c / 4 % 2) 2
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include "wavekit/core/platform.hpp"

namespace wavekit {

WAVEKIT_HOST_DEVICE constexpr long shuffled_weight_offset(long n, long kb, long row_bytes) {
  return n / 16 * 16 * row_bytes + n % 16 * 16 + kb / 16 * 256 + kb % 16;
}

WAVEKIT_HOST_DEVICE constexpr int shuffled_scale_rows(int rows) { return (rows + 255) / 256 * 256; }
WAVEKIT_HOST_DEVICE constexpr int shuffled_scale_cols(int cols) { return (cols + 7) / 8 * 8; }
WAVEKIT_HOST_DEVICE constexpr long shuffled_scale_row_part(long r, long padded_cols) {
  return r / 32 * (padded_cols / 8) * 256 + r % 16 * 4 + r / 16 % 2;
}
WAVEKIT_HOST_DEVICE constexpr long shuffled_scale_col_part(long c) { return c / 8 * 256 + c % 4 * 64 + c / 4 % 2 * 2; }

}  // namespace wavekit
