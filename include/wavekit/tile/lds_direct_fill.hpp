// A K step's A and B tiles moved from global memory straight into LDS (arch/buffer_lds.hpp:
// buffer_load ... lds), without registers or ds_write: the fill a pipeline uses when the next
// step's tiles should be in flight while this one's MFMAs run at no VGPR cost.
//
// A load into LDS writes one contiguous block a wave (lane l's LaneBytes at the wave's address +
// l * LaneBytes), so the fill walks the stage in address order and each lane fetches the bytes
// that belong there: byte `at` of a loader's tile holds its layout's row and K byte
// (lds_swizzled_rows::at), which the lane reads from where that row is in memory. The stage is
// A's tile, then B's, then a sink: unit u (LaneBytes) of the stage is thread u % Threads's load
// u / Threads, so every thread issues the same number of loads (no branch between a load and the
// reads it overlaps: the compiler would wait for it, arch/buffer_lds.hpp); the loads past both
// tiles land in the sink, out of range (zeros, no global read), and nobody reads them.
//
// Both loaders are K-contiguous (tile_loader_k_contiguous) with the same K step; the fill only
// takes their layouts, rows and how their rows sit in memory.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <cstdint>
#include <type_traits>

#include "wavekit/arch/buffer.hpp"
#include "wavekit/arch/buffer_lds.hpp"
#include "wavekit/core/math.hpp"
#include "wavekit/core/platform.hpp"
#include "wavekit/tile/tile_concepts.hpp"

namespace wavekit::tile {

// A loader whose tile the fill can take: K-contiguous rows (tile_loader_k_contiguous: its layout,
// rows and where its rows are in memory) read from one buffer.
template <class L>
concept fills_directly = requires {
  L::rows;
  typename L::global;
  L::layout::at(0);
} && std::is_same_v<loader_source_t<L>, arch::buffer>;

template <class ALoader, class BLoader, int Threads, int LaneBytes>
struct lds_direct_fill {
  static_assert(LaneBytes == 4 || LaneBytes == 16,
                "lds_direct_fill: lanes move 4 bytes (buffer_load_dword ... lds) or 16 (gfx950's dwordx4)");
  static_assert(ALoader::row_bytes == BLoader::row_bytes && ALoader::element_bits == BLoader::element_bits,
                "lds_direct_fill: A and B tiles have the same K step");
  static constexpr int a_bytes = ALoader::rows * ALoader::row_bytes, b_bytes = BLoader::rows * BLoader::row_bytes;
  static constexpr int a_units = a_bytes / LaneBytes, units = a_units + b_bytes / LaneBytes;
  static_assert(a_units % 64 == 0 && units % 64 == 0,
                "lds_direct_fill: each tile is a whole number of wave loads (64 lanes of LaneBytes)");
  static constexpr int per_thread = (units + Threads - 1) / Threads;  // loads a thread issues a step
  static constexpr int sink_bytes = (per_thread * Threads - units) * LaneBytes;
  static constexpr int stage_bytes = a_bytes + b_bytes + sink_bytes;  // A's tile at 0, B's at a_bytes
  static_assert(stage_bytes % 16 == 0, "lds_direct_fill: a stage is whole 16-byte rows of LDS");

  std::uint32_t voffset[per_thread];  // each load's byte offset at K = 0 (out_of_range: zeros)

  // Rows row0.. of a tensor of rows_total rows ld elements apart (A's, then B's); rows past the
  // end read 0.
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void locate(int a_row0, int a_rows_total, int a_ld, int b_row0, int b_rows_total,
                                                 int b_ld, int tid) {
    locate_by([&](int r) { return a_row0 + r < a_rows_total ? a_row0 + r : -1; }, a_ld, b_row0, b_rows_total, b_ld,
              tid);
  }
  // The same with A's tensor row of tile row r computed: a_row_of(r) (-1: a row of zeros), the
  // row-gather form (tile_loader_k_contiguous::locate_rows: MoE's tokens).
  template <class ARowOf>
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void locate_by(ARowOf&& a_row_of, int a_ld, int b_row0, int b_rows_total, int b_ld,
                                                    int tid) {
#pragma unroll
    for (int i = 0; i < per_thread; ++i) {
      const int at = (i * Threads + tid) * LaneBytes;
      voffset[i] = at < a_bytes ? offset_of<ALoader>(at, a_row_of, a_ld)
                   : at < a_bytes + b_bytes
                       ? offset_of<BLoader>(
                             at - a_bytes, [&](int r) { return b_row0 + r < b_rows_total ? b_row0 + r : -1; }, b_ld)
                       : arch::out_of_range;
    }
  }

  // Issues the step at K element k0 into `stage` (stage_bytes, its own LDS array: see above).
  // wave: the thread's wave (wave-uniform).
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void issue(const arch::buffer& a, const arch::buffer& b, int k0,
                                                unsigned char* stage, int wave) const {
    issue_with(a, b, k0, stage, wave, [&](int i) { return voffset[i]; });
  }

  // The step at K = -skip (the first of a K that is not a whole number of steps): its first skip
  // elements read as 0 (tid as given to locate). Prologue only: the lanes' arithmetic costs the K
  // loop nothing.
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void issue_skipping(const arch::buffer& a, const arch::buffer& b, int skip,
                                                         unsigned char* stage, int wave, int tid) const {
    const int skip_bytes = ALoader::bytes(skip);
    issue_with(a, b, 0, stage, wave, [&](int i) {
      const int at = (i * Threads + tid) * LaneBytes;
      if (at >= a_bytes + b_bytes) return arch::out_of_range;
      const bool in_a = at < a_bytes;
      const int k = in_a ? ALoader::layout::at(at).k : BLoader::layout::at(at - a_bytes).k;
      const std::uint32_t skip_offset = in_a ? k_offset<ALoader>(skip) : k_offset<BLoader>(skip);
      return k < skip_bytes ? arch::out_of_range : voffset[i] - skip_offset;
    });
  }

 private:
  template <class Loader, class RowOf>
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE static std::uint32_t offset_of(int at, RowOf&& row_of, int ld) {
    const auto rk = Loader::layout::at(at);
    const int row = row_of(rk.row);
    return row >= 0
               ? static_cast<std::uint32_t>(Loader::global::offset(row, rk.k / 16 * 16, Loader::bytes(ld)) + rk.k % 16)
               : arch::out_of_range;
  }
  // The uniform offset of the step at K element k0.
  template <class Loader>
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE static std::uint32_t k_offset(int k0) {
    return static_cast<std::uint32_t>(Loader::global::offset(0, Loader::bytes(k0), 0));
  }

  template <class VOffset>
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void issue_with(const arch::buffer& a, const arch::buffer& b, int k0,
                                                     unsigned char* stage, int wave, VOffset&& voffset_of) const {
    static_for<per_thread>([&](auto i_constant) {
      constexpr int i = decltype(i_constant)::value;
      const int first = i * Threads + wave * 64;  // the wave's first unit: its block of the stage
      // Which tile the wave's load fills (a whole one: the tiles are whole wave loads); known here
      // where all the waves' loads i fill one tile.
      constexpr bool all_a = (i + 1) * Threads <= a_units, all_b = i * Threads >= a_units;
      const bool in_a = all_a || (!all_b && first < a_units);
      const arch::buffer& src = in_a ? a : b;
      const std::uint32_t soffset = in_a ? k_offset<ALoader>(k0) : k_offset<BLoader>(k0);
      arch::buffer_load_lds<LaneBytes>(src, stage + first * LaneBytes, voffset_of(i), soffset);
    });
  }
};

}  // namespace wavekit::tile
