// LDS layout of a byte tile (rows x RowBytes bytes, K contiguous in each row, any element size)
// whose MFMA operand reads and whose fills are free of bank conflicts (checked by the emulator's
// counter). The reads and fills are 16- and 4-byte accesses whatever the element, so one layout
// serves fp8, fp16/bf16 and packed fp4 tiles.
//
// A row is split into 16-byte chunks; chunk c of row r is stored at chunk position c ^ mask(r).
// The masks were found by a search over the bank and phase models of docs/hardware.md 4.2 for the
// operand reads of both MFMA shapes and the fills of both loaders (tools/lds_swizzle_search.py
// reproduces it for the 64-byte rows; the first mask it prints per target is the one used):
//   - 128-byte rows: r % 8 on gfx942 (one row per 128-byte line of its 32 banks), the Gray code
//     of r on gfx950 (64 banks);
//   - 64-byte rows (two per 128-byte line): 3 * bit1(r) ^ 2 * bit4(r) on gfx942,
//     3 * bit3(r) ^ 2 * bit4(r) on gfx950. Neither depends on bit 2 of the row, so rows r and
//     r + 4 (r % 8 < 4) share a mask: the transposing loader stores such a pair with one
//     ds_write2 (rows_4_apart_share_swizzle).
// With 64-byte rows, rows 2i and 2i+1 also trade places in every other group of SwapRows rows:
// the transposing loader writes rows q and q + SwapRows (its unit height) in one store phase,
// which would otherwise share a half of the banks.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include "wavekit/arch/target.hpp"
#include "wavekit/core/platform.hpp"
#include "wavekit/tile/tile_concepts.hpp"

namespace wavekit::tile {

template <int RowBytes, int SwapRows = 16>
struct lds_swizzled_rows {
  static_assert(RowBytes == 64 || RowBytes == 128, "lds_swizzled_rows: rows of 64 or 128 bytes");
  static_assert(SwapRows >= 2 && (SwapRows & (SwapRows - 1)) == 0, "lds_swizzled_rows: SwapRows is a power of two");
  static constexpr int chunks_per_row = RowBytes / 16;
  static constexpr int rows_per_line = 128 / RowBytes;

  // Whether offset(r + 4, k) == offset(r, k) + 4 * RowBytes for every r with r % 8 < 4: true for
  // 64-byte rows when the row-pair trade moves both rows together (SwapRows >= 8).
  static constexpr bool rows_4_apart_share_swizzle = rows_per_line == 2 && SwapRows >= 8;

  WAVEKIT_HOST_DEVICE static constexpr int mask(int row) {
    constexpr bool gfx950 = arch::current_target == arch::target::gfx950;
    if (rows_per_line == 1) return gfx950 ? (row ^ (row >> 1)) % chunks_per_row : row % chunks_per_row;
    return 3 * ((row >> (gfx950 ? 3 : 1)) & 1) ^ 2 * ((row >> 4) & 1);
  }

  // Byte offset of K byte `k` of row `row` (k within the row; a 16-byte chunk stays contiguous).
  WAVEKIT_HOST_DEVICE static constexpr int offset(int row, int k) {
    const int slot = rows_per_line == 2 ? row ^ ((row / SwapRows) & 1) : row;
    return slot * RowBytes + ((k / 16) ^ mask(row)) * 16 + k % 16;
  }

  // The inverse: the row and K byte stored at byte `at` of the tile (a loader that fills LDS
  // directly, in address order, fetches each lane's bytes from where they are in memory).
  struct row_k {
    int row, k;
  };
  WAVEKIT_HOST_DEVICE static constexpr row_k at(int at) {
    const int slot = at / RowBytes;
    // The row-pair trade keeps a row within its group of SwapRows: its own inverse.
    const int row = rows_per_line == 2 ? slot ^ ((slot / SwapRows) & 1) : slot;
    return {row, (((at % RowBytes) / 16) ^ mask(row)) * 16 + at % 16};
  }
};

static_assert(lds_layout<lds_swizzled_rows<64>> && lds_layout<lds_swizzled_rows<128>>,
              "lds_swizzled_rows models lds_layout");

}  // namespace wavekit::tile
