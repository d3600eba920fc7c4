// Global -> LDS movers of fp8 tiles (rows x BK, rows taken from M for A or N for B), for the two
// storage orders of the block-scaled GEMM. Both split the copy in steps so a pipeline can overlap
// them with compute: locate() fixes the tile's rows once (rows past the tensor's end get a base
// offset beyond any buffer, so they read 0), load(k0) issues 16-byte buffer loads of the K step
// starting at k0 into registers, store() writes the registers to a swizzled LDS tile
// (lds_tile_fp8).
#pragma once

#include <cstdint>

#include "wavekit/arch/buffer.hpp"
#include "wavekit/arch/lds.hpp"
#include "wavekit/core/platform.hpp"
#include "wavekit/tile/lds_tile_fp8.hpp"

namespace wavekit::tile {

// Rows stored K-contiguous (tensor [rows_total][ld], ld = K): each thread moves 16-byte chunks;
// chunk c of the tile is row c / (BK/16), chunk c % (BK/16), so 8 consecutive threads fill one
// 128-byte line.
template <int Rows, int BK, int Threads>
struct tile_loader_k_contiguous {
  static constexpr int chunks_per_row = BK / 16;
  static constexpr int chunks = Rows * chunks_per_row;
  static constexpr int per_thread = (chunks + Threads - 1) / Threads;
  using layout = lds_tile_fp8<BK>;

  arch::u32x4 regs[per_thread];
  std::uint32_t base[per_thread];  // byte offset of each chunk at K = 0

  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void locate(int row0, int rows_total, int ld, int tid) {
#pragma unroll
    for (int i = 0; i < per_thread; ++i) {
      const int c = tid + i * Threads, row = row0 + c / chunks_per_row;
      base[i] = c < chunks && row < rows_total ? static_cast<std::uint32_t>(row * ld + (c % chunks_per_row) * 16)
                                               : arch::out_of_range;
    }
  }

  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void load(const arch::buffer& src, int ld, int k0) {
    (void)ld;
#pragma unroll
    for (int i = 0; i < per_thread; ++i) regs[i] = src.load16(base[i] + static_cast<std::uint32_t>(k0));
  }

  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void store(unsigned char* lds, int tid) const {
#pragma unroll
    for (int i = 0; i < per_thread; ++i) {
      const int c = tid + i * Threads;
      const bool active = chunks % Threads == 0 || c < chunks;  // masked, not divergent
      arch::lds_store<16>(lds + layout::offset(active ? c / chunks_per_row : 0, (c % chunks_per_row) * 16), regs[i],
                          active);
    }
  }
};

// Rows stored contiguous along M (or N) (tensor [K][ld], ld = rows_total): a thread loads a
// block of 8 K x 16 rows (eight 16-byte loads along the rows) and writes it transposed, 8 K bytes
// per row, as sixteen 8-byte LDS stores. Needs rows_total % 16 == 0 (16-byte aligned rows).
// Each thread walks its 16 rows starting at row (group index % 16): with 64-byte rows, the two
// row groups that one 16-lane store phase covers then write rows of opposite parity, i.e.
// opposite halves of the 32 banks.
template <int Rows, int BK, int Threads>
struct tile_loader_mn_contiguous {
  static constexpr int k_groups = BK / 8, row_groups = Rows / 16;
  static constexpr int blocks = k_groups * row_groups;
  static constexpr int per_thread = (blocks + Threads - 1) / Threads;
  using layout = lds_tile_fp8<BK>;
  static_assert(Rows % 16 == 0, "tile_loader_mn_contiguous: whole 16-row groups");

  arch::u32x4 regs[per_thread][8];  // [block][k]: 16 row bytes at K = k
  std::uint32_t base[per_thread];   // byte offset of each block's first row at K = 0

  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void locate(int row0, int rows_total, int ld, int tid) {
#pragma unroll
    for (int i = 0; i < per_thread; ++i) {
      const int b = tid + i * Threads, row = row0 + (b / k_groups) * 16;
      base[i] = b < blocks && row < rows_total ? static_cast<std::uint32_t>((b % k_groups) * 8 * ld + row)
                                               : arch::out_of_range;
    }
  }

  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void load(const arch::buffer& src, int ld, int k0) {
#pragma unroll
    for (int i = 0; i < per_thread; ++i)
#pragma unroll
      for (int j = 0; j < 8; ++j) regs[i][j] = src.load16(base[i] + static_cast<std::uint32_t>((k0 + j) * ld));
  }

  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void store(unsigned char* lds, int tid) const {
#pragma unroll
    for (int i = 0; i < per_thread; ++i) {
      const int b = tid + i * Threads;
      const bool active = blocks % Threads == 0 || b < blocks;  // masked, not divergent
      const int row = active ? (b / k_groups) * 16 : 0, k = (b % k_groups) * 8;
#pragma unroll
      for (int q = 0; q < 16; ++q) {
        // Byte q of each of the 8 K rows: the 8 K values of row q.
        const int word = q / 4, shift = 8 * (q % 4);
        std::uint32_t lo = 0, hi = 0;
#pragma unroll
        for (int j = 0; j < 4; ++j) {
          lo |= ((regs[i][j][word] >> shift) & 0xFFu) << (8 * j);
          hi |= ((regs[i][j + 4][word] >> shift) & 0xFFu) << (8 * j);
        }
        arch::lds_store<8>(lds + layout::offset(row + q, k), arch::u32x2{lo, hi}, active);
      }
    }
  }
};

}  // namespace wavekit::tile
