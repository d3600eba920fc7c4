// Global -> LDS mover of a tile of rows stored contiguous along M (or N): tensor [K][ld],
// ld = rows_total elements of ElementBits (8 or 16) bits. The LDS tile (lds_swizzled_rows) is
// K-contiguous per row, so the loader transposes: a thread loads a unit of 4 bytes of K (4 fp8 or
// 2 fp16/bf16 K rows) x unit_rows rows (one load of unit_rows elements per K row), transposes it
// with v_perm_b32 and writes 4 bytes of K to each of its rows (4-byte LDS stores). The steps are
// tile_concepts.hpp's tile_loader's (see tile_loader_k_contiguous.hpp).
//
// unit_rows (4, 8 or 16; at most 8 for 2-byte elements) is what gives every thread one unit where
// the tile allows it: the transpose costs the same per byte however it is cut, so idle threads
// would only lengthen the busy ones' share. Units are ordered K group first: 16 (64-byte rows) or
// 32 (128-byte rows) consecutive lanes write one row, the next lanes the row unit_rows further,
// which the layout's row-pair trade (SwapRows = unit_rows) puts in the other half of the banks.
// Needs rows_total % unit_rows == 0.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <cstdint>
#include <type_traits>

#include "wavekit/arch/buffer.hpp"
#include "wavekit/arch/byte_transpose.hpp"
#include "wavekit/arch/lds.hpp"
#include "wavekit/core/platform.hpp"
#include "wavekit/tile/lds_swizzled_rows.hpp"
#include "wavekit/tile/tile_concepts.hpp"

namespace wavekit::tile {

template <int Rows, int RowBytes, int Threads, int ElementBits = 8>
struct tile_loader_mn_contiguous {
  static_assert(ElementBits == 8 || ElementBits == 16, "tile_loader_mn_contiguous: 8- or 16-bit elements");
  static constexpr int ElementBytes = ElementBits / 8;
  static constexpr int element_bits = ElementBits, row_bytes = RowBytes;
  static constexpr int k_per_unit = 4 / ElementBytes;                 // K rows a unit loads
  static constexpr int even_share = Rows * RowBytes / (4 * Threads);  // rows per unit, one unit per thread
  static constexpr int max_rows = 16 / ElementBytes;                  // one 16-byte load per K row
  static constexpr int unit_rows = even_share <= 4 ? 4 : even_share >= max_rows ? max_rows : even_share;
  static constexpr int k_groups = RowBytes / 4, row_groups = Rows / unit_rows;
  static constexpr int units = k_groups * row_groups;
  static constexpr int per_thread = (units + Threads - 1) / Threads;
  static constexpr bool gathers_rows = false;                 // rows along the contiguous dimension: no gather
  static constexpr int work_items = units;                    // work items (threads' shares) of the whole tile
  static constexpr int words = unit_rows * ElementBytes / 4;  // 4-byte words per loaded K row
  using layout = lds_swizzled_rows<RowBytes, unit_rows>;
  using row_bytes_t =
      std::conditional_t<words == 1, std::uint32_t, std::conditional_t<words == 2, arch::u32x2, arch::u32x4>>;
  static_assert(unit_rows == 4 || unit_rows == 8 || unit_rows == 16,
                "tile_loader_mn_contiguous: 4, 8 or 16 rows a unit");
  static_assert(Rows % unit_rows == 0, "tile_loader_mn_contiguous: whole units of rows");

  row_bytes_t regs[per_thread][k_per_unit];    // [unit][k]: unit_rows elements at K = k
  std::uint32_t base[per_thread][k_per_unit];  // byte offset of each unit's first row at K = k (k < k_per_unit)

  // ld: the tensor's K-row stride in elements.
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void locate(int row0, int rows_total, int ld, int tid) {
#pragma unroll
    for (int i = 0; i < per_thread; ++i) {
      const int u = tid + i * Threads, row = row0 + (u / k_groups) * unit_rows;
      const bool valid = u < units && row < rows_total;
#pragma unroll
      for (int j = 0; j < k_per_unit; ++j)
        base[i][j] = valid ? static_cast<std::uint32_t>((((u % k_groups) * k_per_unit + j) * ld + row) * ElementBytes)
                           : arch::out_of_range;
    }
  }

  // The K offset of the step is wave-uniform (the loads' scalar offset); the per-lane offsets
  // stay fixed, so a step costs no vector instructions besides the loads.
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void load(const arch::buffer& src, int ld, int k0) {
    const std::uint32_t k_rows = static_cast<std::uint32_t>(k0 * ld * ElementBytes);
#pragma unroll
    for (int i = 0; i < per_thread; ++i)
#pragma unroll
      for (int j = 0; j < k_per_unit; ++j) regs[i][j] = load_row(src, base[i][j], k_rows);
  }

  // The step at K = -skip (the first of a K that is not a whole number of steps): its first skip
  // K rows read as 0 (tid as given to locate). Prologue only.
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void load_skipping(const arch::buffer& src, int ld, int skip, int tid) {
    const std::uint32_t skip_rows = static_cast<std::uint32_t>(skip * ld * ElementBytes);
#pragma unroll
    for (int i = 0; i < per_thread; ++i)
#pragma unroll
      for (int j = 0; j < k_per_unit; ++j) {
        const int k = ((tid + i * Threads) % k_groups) * k_per_unit + j;
        regs[i][j] = load_row(src, k < skip ? arch::out_of_range : base[i][j] - skip_rows, 0);
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
      // out[q]: the unit's 4 K bytes of row q.
      std::uint32_t out[unit_rows];
#pragma unroll
      for (int w = 0; w < words; ++w) {
        if constexpr (ElementBytes == 1) {
          // Word w of the 4 K rows holds rows 4w..4w+3; its 4x4 byte transpose gives each 4 K bytes.
          std::uint32_t t[4];
          arch::transpose_4x4_bytes(
              {word(regs[i][0], w), word(regs[i][1], w), word(regs[i][2], w), word(regs[i][3], w)}, t);
#pragma unroll
          for (int b = 0; b < 4; ++b) out[4 * w + b] = t[b];
        } else {
          // Word w of the 2 K rows holds rows 2w and 2w+1: each row takes its half of both words.
          const std::uint32_t k0 = word(regs[i][0], w), k1 = word(regs[i][1], w);
          out[2 * w] = __builtin_amdgcn_perm(k1, k0, 0x05040100u);      // k0 row 2w, k1 row 2w
          out[2 * w + 1] = __builtin_amdgcn_perm(k1, k0, 0x07060302u);  // k0 row 2w+1, k1 row 2w+1
        }
      }
#pragma unroll
      for (int q = 0; q < unit_rows; ++q) {
        if constexpr (layout::rows_4_apart_share_swizzle) {  // rows 4 apart in one ds_write2_b32
          if (q / 4 % 2 == 0)
            arch::lds_store2<4, 4 * RowBytes>(lds + layout::offset(row + q, k), out[q], out[q + 4], active);
        } else {
          arch::lds_store<4>(lds + layout::offset(row + q, k), out[q], active);
        }
      }
    }
  }

 private:
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE static row_bytes_t load_row(const arch::buffer& src, std::uint32_t at,
                                                                 std::uint32_t k_rows) {
    if constexpr (words == 1)
      return src.load4(at, k_rows);
    else if constexpr (words == 2)
      return src.load8(at, k_rows);
    else
      return src.load16(at, k_rows);
  }
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE static std::uint32_t word(const row_bytes_t& v, int w) {
    if constexpr (words == 1)
      return v;
    else
      return v[w];
  }
};

static_assert(tile_loader<tile_loader_mn_contiguous<256, 64, 512>> &&
                  tile_loader<tile_loader_mn_contiguous<128, 64, 256, 16>>,
              "tile_loader_mn_contiguous models tile_loader");

}  // namespace wavekit::tile
