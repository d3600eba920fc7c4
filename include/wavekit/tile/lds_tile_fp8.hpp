// LDS layout of an fp8 tile (rows x BK bytes, K contiguous in each row) whose MFMA operand reads
// and whose fills are free of bank conflicts (checked by the emulator's counter).
//
// A row is split into 16-byte chunks; chunk c of row r is stored at chunk position
// c ^ ((r / rows_per_line) % chunks_per_row), where rows_per_line rows share one 128-byte line of
// the 32 banks. Lanes reading 16 bytes of consecutive rows at one K offset (the operand reads)
// then land in distinct chunks of each bank line, and so do 8 (or 16) lanes filling one row.
// With 64-byte rows (two per line), rows 2i and 2i+1 also trade places in every other group of
// 16 rows: the transposing loader writes rows q and q + 16 in one store phase, which would
// otherwise share a half of the banks; within a 16-row MFMA tile it only permutes rows.
//
// gfx950 has 64 banks (256-byte lines) and other read phases (spec 4.1); there the chunk is
// XORed with the Gray code of the row, r ^ (r >> 1), which a search over the phase model found
// conflict-free for the operand reads of both MFMA shapes and both row lengths.
#pragma once

#include "wavekit/arch/target.hpp"
#include "wavekit/core/platform.hpp"

namespace wavekit::tile {

template <int BK>
struct lds_tile_fp8 {
  static_assert(BK == 64 || BK == 128, "lds_tile_fp8: rows of 64 or 128 bytes");
  static constexpr int chunks_per_row = BK / 16;
  static constexpr int rows_per_line = 128 / BK;

  // Byte offset of K byte `k` of row `row` (k within the row; a 16-byte chunk stays contiguous).
  WAVEKIT_HOST_DEVICE static constexpr int offset(int row, int k) {
    const int slot = rows_per_line == 2 ? row ^ ((row >> 4) & 1) : row;
    const int mask = arch::current_target == arch::target::gfx950 ? (row ^ (row >> 1)) % chunks_per_row
                                                                  : (row / rows_per_line) % chunks_per_row;
    const int chunk = (k / 16) ^ mask;
    return slot * BK + chunk * 16 + k % 16;
  }
};

}  // namespace wavekit::tile
