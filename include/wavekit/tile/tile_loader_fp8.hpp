// Global -> LDS movers of fp8 tiles (rows x BK, rows taken from M for A or N for B), for the two
// storage orders of the block-scaled GEMM. Both split the copy in steps so a pipeline can overlap
// them with compute (the steps of tile_concepts.hpp's tile_loader): locate() fixes the tile's
// rows once (rows past the tensor's end get a base offset beyond any buffer, so they read 0),
// load(k0) issues the buffer loads of the K step starting at k0 into registers, wait_for_loads()
// waits for them, store() writes them to a swizzled LDS tile (lds_tile_fp8).
#pragma once

#include <cstdint>
#include <type_traits>

#include "wavekit/arch/buffer.hpp"
#include "wavekit/arch/byte_transpose.hpp"
#include "wavekit/arch/lds.hpp"
#include "wavekit/core/platform.hpp"
#include "wavekit/tile/lds_tile_fp8.hpp"
#include "wavekit/tile/tile_concepts.hpp"

namespace wavekit::tile {

// Rows stored K-contiguous (tensor [rows_total][ld], ld = K): each thread moves 16-byte chunks;
// chunk c of the tile is row c / (BK/16), chunk c % (BK/16), so 8 consecutive threads fill one
// 128-byte line.
template <int Rows, int BK, int Threads>
struct tile_loader_k_contiguous {
  static constexpr int chunks_per_row = BK / 16;
  static constexpr int chunks = Rows * chunks_per_row;
  static constexpr int per_thread = (chunks + Threads - 1) / Threads;
  static constexpr int work_items = chunks;  // work items (threads' shares) of the whole tile
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
    for (int i = 0; i < per_thread; ++i) regs[i] = src.load16(base[i], static_cast<std::uint32_t>(k0));
  }

  // Waits for this thread's loads once, before store() uses them (the compiler would wait
  // before each use).
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void wait_for_loads() { arch::keep_whole(regs); }

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
// unit of 4 K x unit_rows rows (four loads of unit_rows bytes along the rows), transposes each
// 4x4 byte block with v_perm_b32 and writes 4 K bytes of each of its rows (4-byte LDS stores).
// unit_rows (4, 8 or 16) is what gives every thread one unit where the tile allows it: the
// transpose costs 8 v_perm_b32 per 16 bytes however it is cut, so idle threads would only
// lengthen the busy ones' share. Units are ordered K group first: 16 (BK 64) or 32 (BK 128)
// consecutive lanes write one row, the next lanes the row unit_rows further, which the layout's
// row-pair trade (SwapRows = unit_rows) puts in the other half of the banks. Needs
// rows_total % unit_rows == 0.
template <int Rows, int BK, int Threads>
struct tile_loader_mn_contiguous {
  static constexpr int even_share = Rows * BK / (4 * Threads);  // rows per 4-K unit, one unit per thread
  static constexpr int unit_rows = even_share <= 4 ? 4 : even_share >= 16 ? 16 : even_share;
  static constexpr int k_groups = BK / 4, row_groups = Rows / unit_rows;
  static constexpr int units = k_groups * row_groups;
  static constexpr int per_thread = (units + Threads - 1) / Threads;
  static constexpr int work_items = units;     // work items (threads' shares) of the whole tile
  static constexpr int words = unit_rows / 4;  // 4-row words per loaded K row
  using layout = lds_tile_fp8<BK, unit_rows>;
  using row_bytes =
      std::conditional_t<words == 1, std::uint32_t, std::conditional_t<words == 2, arch::u32x2, arch::u32x4>>;
  static_assert(unit_rows == 4 || unit_rows == 8 || unit_rows == 16,
                "tile_loader_mn_contiguous: 4, 8 or 16 rows a unit");
  static_assert(Rows % unit_rows == 0, "tile_loader_mn_contiguous: whole units of rows");

  row_bytes regs[per_thread][4];      // [unit][k]: unit_rows row bytes at K = k
  std::uint32_t base[per_thread][4];  // byte offset of each unit's first row at K = k (k < 4)

  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void locate(int row0, int rows_total, int ld, int tid) {
#pragma unroll
    for (int i = 0; i < per_thread; ++i) {
      const int u = tid + i * Threads, row = row0 + (u / k_groups) * unit_rows;
      const bool valid = u < units && row < rows_total;
#pragma unroll
      for (int j = 0; j < 4; ++j)
        base[i][j] = valid ? static_cast<std::uint32_t>(((u % k_groups) * 4 + j) * ld + row) : arch::out_of_range;
    }
  }

  // The K offset of the step is wave-uniform (the loads' scalar offset); the per-lane offsets
  // stay fixed, so a step costs no vector instructions besides the loads.
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void load(const arch::buffer& src, int ld, int k0) {
    const std::uint32_t k_rows = static_cast<std::uint32_t>(k0 * ld);
#pragma unroll
    for (int i = 0; i < per_thread; ++i)
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        if constexpr (words == 1)
          regs[i][j] = src.load4(base[i][j], k_rows);
        else if constexpr (words == 2)
          regs[i][j] = src.load8(base[i][j], k_rows);
        else
          regs[i][j] = src.load16(base[i][j], k_rows);
      }
  }

  // Waits for this thread's loads once, before store() uses them (the compiler would wait
  // before each use).
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void wait_for_loads() {
#pragma unroll
    for (int i = 0; i < per_thread; ++i) arch::keep_whole(regs[i]);
  }

  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void store(unsigned char* lds, int tid) const {
#pragma unroll
    for (int i = 0; i < per_thread; ++i) {
      const int u = tid + i * Threads;
      const bool active = units % Threads == 0 || u < units;  // masked, not divergent
      const int row = active ? (u / k_groups) * unit_rows : 0, k = (u % k_groups) * 4;
      // Word w of the 4 K rows holds rows 4w..4w+3; its transpose gives each of them 4 K bytes.
      std::uint32_t rows[words][4];
#pragma unroll
      for (int w = 0; w < words; ++w)
        arch::transpose_4x4_bytes({word(regs[i][0], w), word(regs[i][1], w), word(regs[i][2], w), word(regs[i][3], w)},
                                  rows[w]);
#pragma unroll
      for (int w = 0; w < words; ++w)
#pragma unroll
        for (int b = 0; b < 4; ++b) {
          if constexpr (layout::rows_4_apart_share_swizzle) {  // rows 4 apart in one ds_write2_b32
            if (w % 2 == 0)
              arch::lds_store2<4, 4 * BK>(lds + layout::offset(row + 4 * w + b, k), rows[w][b], rows[w + 1][b], active);
          } else {
            arch::lds_store<4>(lds + layout::offset(row + 4 * w + b, k), rows[w][b], active);
          }
        }
    }
  }

 private:
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE static std::uint32_t word(const row_bytes& v, int w) {
    if constexpr (words == 1)
      return v;
    else
      return v[w];
  }
};

static_assert(tile_loader<tile_loader_k_contiguous<256, 64, 512>> &&
                  tile_loader<tile_loader_mn_contiguous<256, 64, 512>>,
              "both fp8 tile loaders model tile_loader");

}  // namespace wavekit::tile
