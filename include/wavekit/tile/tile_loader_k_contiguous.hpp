// Global -> LDS mover of a tile of rows stored K-contiguous (tensor [rows_total][ld], ld = K
// elements of ElementBits bits: 16 for fp16/bf16, 8 for fp8, 4 for packed fp4 (two a byte, the
// first in the low nibble)): rows x RowBytes bytes of K, into lds_swizzled_rows. In the
// steps of tile_concepts.hpp's tile_loader, so that a pipeline can overlap them with compute:
// locate() fixes the tile's rows once (rows past the tensor's end get a base offset beyond any
// buffer, so they read 0), load(k0) issues the buffer loads of the K step starting at element k0
// into registers, wait_for_loads() waits for them, store() writes them to the LDS tile.
//
// Each thread moves 16-byte chunks; chunk c of the tile is row c / (RowBytes/16), chunk
// c % (RowBytes/16), so 8 consecutive threads fill one 128-byte line. Needs a row's bytes to be
// a multiple of 16 (no chunk straddles the end of a row).
//
// Where a row's bytes are in memory (Global): rows_in_order (row r's K bytes at r * ld, in order),
// or rows_shuffled_16x16, aiter's shuffle_weight(layout=(16, 16)) of a packed fp4 operand
// (host/shuffle_mx.hpp): each 16 rows x 32 bytes of K stored as two 16 x 16-byte halves, so a
// 16-byte chunk stays contiguous and moving along K is a uniform offset still (16 bytes a byte).
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <cstdint>
#include <type_traits>

#include "wavekit/arch/buffer.hpp"
#include "wavekit/arch/lds.hpp"
#include "wavekit/core/mx_shuffle.hpp"
#include "wavekit/core/platform.hpp"
#include "wavekit/tile/lds_swizzled_rows.hpp"
#include "wavekit/tile/tile_concepts.hpp"

namespace wavekit::tile {

// The byte of (row, K byte kb) of a tensor with ld_bytes bytes a row, for kb a multiple of 16.
struct rows_in_order {
  WAVEKIT_HOST_DEVICE static constexpr long offset(long row, long kb, long ld_bytes) { return row * ld_bytes + kb; }
};
struct rows_shuffled_16x16 {
  WAVEKIT_HOST_DEVICE static constexpr long offset(long row, long kb, long ld_bytes) {
    return shuffled_weight_offset(row, kb, ld_bytes);
  }
};

template <int Rows, int RowBytes, int Threads, int ElementBits = 8, class Global = rows_in_order>
struct tile_loader_k_contiguous {
  static_assert(ElementBits == 4 || ElementBits == 8 || ElementBits == 16,
                "tile_loader_k_contiguous: 4-, 8- or 16-bit elements");
  static constexpr int element_bits = ElementBits, row_bytes = RowBytes, rows = Rows;
  using global = Global;  // where a row's bytes are in memory
  static constexpr int chunks_per_row = RowBytes / 16;
  static constexpr int chunks = Rows * chunks_per_row;
  static constexpr int per_thread = (chunks + Threads - 1) / Threads;
  static constexpr int work_items = chunks;  // work items (threads' shares) of the whole tile
  using layout = lds_swizzled_rows<RowBytes>;

  // Bytes of `elements` K elements (whole bytes: packed rows hold an even number).
  WAVEKIT_HOST_DEVICE static constexpr int bytes(int elements) {
    if constexpr (ElementBits >= 8)
      return elements * (ElementBits / 8);
    else
      return elements / (8 / ElementBits);
  }

  arch::u32x4 regs[per_thread];
  std::uint32_t base[per_thread];  // byte offset of each chunk at K = 0

  // ld: the tensor's row stride in elements.
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void locate(int row0, int rows_total, int ld, int tid) {
#pragma unroll
    for (int i = 0; i < per_thread; ++i) {
      const int c = tid + i * Threads, row = row0 + c / chunks_per_row;
      base[i] = c < chunks && row < rows_total
                    ? static_cast<std::uint32_t>(Global::offset(row, (c % chunks_per_row) * 16, bytes(ld)))
                    : arch::out_of_range;
    }
  }

  // The row-gather form (MoE's A operand: a tile's rows are tokens scattered through the tensor):
  // tile row r is tensor row rows[row0 + r] for row0 + r < rows_valid, else it reads 0, and so does
  // a row whose table entry is negative (padding). `rows` is read here once; the K loop is the same
  // as for contiguous rows.
  static constexpr bool gathers_rows = true;
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void locate_rows(const int* rows, int row0, int rows_valid, int ld, int tid) {
    locate_rows_by([&](int r) { return row0 + r < rows_valid ? rows[row0 + r] : -1; }, ld, tid);
  }
  // The same with the tensor row of tile row r computed: row_of(r) (-1: a row of zeros), called
  // only for the tile rows this thread moves (MLA decode: a sequence's KV rows through its pages).
  template <class RowOf>
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void locate_rows_by(RowOf&& row_of, int ld, int tid) {
#pragma unroll
    for (int i = 0; i < per_thread; ++i) {
      const unsigned c = static_cast<unsigned>(tid + i * Threads);  // >= 0: no sign fix-ups
      const int row = c < chunks ? row_of(static_cast<int>(c / chunks_per_row)) : -1;
      base[i] =
          row >= 0
              ? static_cast<std::uint32_t>(Global::offset(row, static_cast<long>(c % chunks_per_row) * 16, bytes(ld)))
              : arch::out_of_range;
    }
  }

  // The same with each chunk's byte offset at K = 0 computed: offset_of(r, kb) for tile row r and
  // the chunk's K byte kb (arch::out_of_range: a chunk of zeros), called only for the chunks this
  // thread moves (MLA decode: rows followed through their pages in bytes, so that a tile's offset
  // is one multiply-add). Rows in order only: the caller adds kb to its row's bytes.
  template <class OffsetOf>
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void locate_offsets_by(OffsetOf&& offset_of, int tid) {
    static_assert(std::is_same_v<Global, rows_in_order>, "locate_offsets_by: rows in order (r * ld + kb)");
#pragma unroll
    for (int i = 0; i < per_thread; ++i) {
      const unsigned c = static_cast<unsigned>(tid + i * Threads);  // >= 0: no sign fix-ups
      base[i] = c < chunks ? static_cast<std::uint32_t>(offset_of(static_cast<int>(c / chunks_per_row),
                                                                  static_cast<int>(c % chunks_per_row) * 16))
                           : arch::out_of_range;
    }
  }

  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void load(const arch::buffer& src, int ld, int k0) {
    (void)ld;
#pragma unroll
    for (int i = 0; i < per_thread; ++i)
      regs[i] = src.load16(base[i], static_cast<std::uint32_t>(Global::offset(0, bytes(k0), 0)));
  }

  // The step at K = -skip (the first of a K that is not a whole number of steps): its first skip
  // elements read as 0 (tid as given to locate). bytes(skip) is a multiple of 16; prologue only, so the
  // per-lane arithmetic costs the K loop nothing.
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void load_skipping(const arch::buffer& src, int ld, int skip, int tid) {
    (void)ld;
    const std::uint32_t skip_bytes = static_cast<std::uint32_t>(bytes(skip));
    const std::uint32_t skip_offset = static_cast<std::uint32_t>(Global::offset(0, bytes(skip), 0));
#pragma unroll
    for (int i = 0; i < per_thread; ++i) {
      const std::uint32_t chunk_k = static_cast<std::uint32_t>(((tid + i * Threads) % chunks_per_row) * 16);
      regs[i] = src.load16(chunk_k < skip_bytes ? arch::out_of_range : base[i] - skip_offset);
    }
  }

  // Waits for this thread's loads once, before store() uses them (the compiler would wait
  // before each use).
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void wait_for_loads() { arch::keep_whole(regs); }

  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void store(unsigned char* lds, int tid) const {
#pragma unroll
    for (int i = 0; i < per_thread; ++i) {
      const int c = tid + i * Threads;
      const bool active = chunks % Threads == 0 || c < chunks;  // masked, not divergent
      // c >= 0: unsigned division, no sign fix-up
      const int row = static_cast<int>(static_cast<unsigned>(c) / chunks_per_row);
      const int k = static_cast<int>(static_cast<unsigned>(c) % chunks_per_row) * 16;
      arch::lds_store<16>(lds + layout::offset(active ? row : 0, k), regs[i], active);
    }
  }
};

static_assert(tile_loader<tile_loader_k_contiguous<256, 64, 512>> &&
                  tile_loader<tile_loader_k_contiguous<64, 64, 128, 4>>,
              "tile_loader_k_contiguous models tile_loader");

}  // namespace wavekit::tile
