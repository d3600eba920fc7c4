// One LDS tile filled from two tensors: rows [0, Rows/2) of the tile from the first, rows
// [Rows/2, Rows) from the second, the same rows of each (tile row r and r + Rows/2 are both
// tensor row row0/2 + r). A gated linear unit's B operand: the gate and up weights of one expert
// side by side, so one block multiplies its A tile by both and holds both products
// (block/gate_up_pair.hpp). Each half is moved by a loader (Half) of HalfRows = Rows/2 rows over its own buffer;
// the pair offsets the second half's threads by the first's work items, as the mainloop offsets
// B's from A's.
//
// Rows and extents passed to locate() count the pair's tile rows (two per tensor row): row0 and
// rows_total are twice the tensors' (row0 = 2 * first tensor row, rows_total = 2 * rows), which is
// how a GEMM over the pair sees N (2 x each tensor's rows, in tiles of Rows columns).
//
// The second half is stored Rows/2 rows into the tile: its layout must place row r + Rows/2 exactly
// Rows/2 rows after row r (a swizzle whose period divides Rows/2), which is checked here, so the
// warp MMA reads the pair's tile as one tile of Rows rows.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <cstdint>

#include "wavekit/arch/buffer.hpp"
#include "wavekit/core/platform.hpp"
#include "wavekit/tile/tile_concepts.hpp"

namespace wavekit::tile {

struct buffer_pair {
  arch::buffer first, second;
};

template <class Half, int HalfRows, int Threads>
struct tile_loader_pair {
  static_assert(tile_loader<Half>, "tile_loader_pair: each half is a tile_loader over one buffer");
  using layout = typename Half::layout;
  using source = buffer_pair;
  static constexpr int element_bits = Half::element_bits, row_bytes = Half::row_bytes;
  static constexpr int work_items = 2 * Half::work_items;
  static constexpr bool gathers_rows = false;  // B operands: rows in order

  static constexpr int half_rows = HalfRows;  // the rows of Half's tile
  static_assert(
      [] {
        for (int r = 0; r < half_rows; ++r)
          for (int k = 0; k < row_bytes; k += 16)
            if (layout::offset(r + half_rows, k) != layout::offset(r, k) + half_rows * row_bytes) return false;
        return true;
      }(),
      "tile_loader_pair: the layout must place the second half's rows Rows/2 rows after the first's");

  Half first, second;

  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE static int second_tid(int tid) { return (tid + Half::work_items) % Threads; }

  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void locate(int row0, int rows_total, int ld, int tid) {
    first.locate(row0 / 2, rows_total / 2, ld, tid);
    second.locate(row0 / 2, rows_total / 2, ld, second_tid(tid));
  }
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void load(const source& src, int ld, int k0) {
    first.load(src.first, ld, k0);
    second.load(src.second, ld, k0);
  }
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void load_skipping(const source& src, int ld, int skip, int tid) {
    first.load_skipping(src.first, ld, skip, tid);
    second.load_skipping(src.second, ld, skip, second_tid(tid));
  }
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void wait_for_loads() {
    first.wait_for_loads();
    second.wait_for_loads();
  }
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void store(unsigned char* lds, int tid) const {
    first.store(lds, tid);
    second.store(lds + half_rows * row_bytes, second_tid(tid));
  }
};

}  // namespace wavekit::tile
