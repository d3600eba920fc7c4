// Global -> LDS movers of fp8 tiles (rows x BK, rows taken from M for A or N for B), for the two
// storage orders of the block-scaled GEMM. Both split the copy in steps so a pipeline can overlap
// them with compute: locate() fixes the tile's rows once (rows past the tensor's end get a base
// offset beyond any buffer, so they read 0), load(k0) issues 16-byte buffer loads of the K step
// starting at k0 into registers, store() writes the registers to a swizzled LDS tile
// (lds_tile_fp8).
#pragma once

#include <cstdint>

#include "wavekit/arch/buffer.hpp"
#include "wavekit/arch/byte_transpose.hpp"
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
  static constexpr int per_thread_work = chunks;  // work items (threads' shares) of the whole tile
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
// unit of 4 K x 16 rows (four 16-byte loads along the rows), transposes it with v_perm_b32 (one
// 4x4 byte transpose per word) and writes 4 K bytes of each of the 16 rows (4-byte LDS stores).
// Units are ordered K group first, so 16 (BK 64) or 32 (BK 128) consecutive lanes write whole
// rows: conflict-free with lds_tile_fp8's layout. Needs rows_total % 16 == 0.
template <int Rows, int BK, int Threads>
struct tile_loader_mn_contiguous {
  static constexpr int k_groups = BK / 4, row_groups = Rows / 16;
  static constexpr int units = k_groups * row_groups;
  static constexpr int per_thread = (units + Threads - 1) / Threads;
  static constexpr int per_thread_work = units;  // work items (threads' shares) of the whole tile
  using layout = lds_tile_fp8<BK>;
  static_assert(Rows % 16 == 0, "tile_loader_mn_contiguous: whole 16-row groups");

  arch::u32x4 regs[per_thread][4];  // [unit][k]: 16 row bytes at K = k
  std::uint32_t base[per_thread];   // byte offset of each unit's first row at K = 0

  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void locate(int row0, int rows_total, int ld, int tid) {
#pragma unroll
    for (int i = 0; i < per_thread; ++i) {
      const int u = tid + i * Threads, row = row0 + (u / k_groups) * 16;
      base[i] = u < units && row < rows_total ? static_cast<std::uint32_t>((u % k_groups) * 4 * ld + row)
                                              : arch::out_of_range;
    }
  }

  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void load(const arch::buffer& src, int ld, int k0) {
#pragma unroll
    for (int i = 0; i < per_thread; ++i)
#pragma unroll
      for (int j = 0; j < 4; ++j) regs[i][j] = src.load16(base[i] + static_cast<std::uint32_t>((k0 + j) * ld));
  }

  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void store(unsigned char* lds, int tid) const {
#pragma unroll
    for (int i = 0; i < per_thread; ++i) {
      const int u = tid + i * Threads;
      const bool active = units % Threads == 0 || u < units;  // masked, not divergent
      const int row = active ? (u / k_groups) * 16 : 0, k = (u % k_groups) * 4;
      // Word w of the 4 K rows holds rows 4w..4w+3; its transpose gives each of them 4 K bytes.
#pragma unroll
      for (int w = 0; w < 4; ++w) {
        std::uint32_t rows[4];
        arch::transpose_4x4_bytes({regs[i][0][w], regs[i][1][w], regs[i][2][w], regs[i][3][w]}, rows);
#pragma unroll
        for (int b = 0; b < 4; ++b) arch::lds_store<4>(lds + layout::offset(row + 4 * w + b, k), rows[b], active);
      }
    }
  }
};

}  // namespace wavekit::tile
