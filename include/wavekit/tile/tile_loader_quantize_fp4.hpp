// Global -> LDS mover that quantizes on the way: a tile of bf16 / fp16 rows stored K-contiguous is
// read and written to LDS as MXFP4 (block/quantize_1x32_mx.hpp's rule, arch/mx_quantize_lanes.hpp's
// lanes: the host quantizer's bits),
// so a GEMM takes a 16-bit A and multiplies it in fp4 without the quantized A ever reaching memory
// (amd-mxfp4-mm: gfx950's scaled MFMAs). In tile_loader's steps: locate() once, load(k0) the K
// step's 16-bit values into registers, wait_for_loads(), store() quantizes and writes.
//
// The LDS tile: Rows rows of RowBytes bytes of packed fp4 (2 RowBytes elements a row, the even one
// in the low nibble) in lds_swizzled_rows, as tile_loader_k_contiguous would leave an fp4 operand,
// followed by the rows' e8m0 scales, row-major: RowBytes / 16 a row (scale_offset, scales_per_row).
// A scale policy reads them from there (block/scale_in_instruction.hpp's scales in LDS).
//
// Each thread moves 16-byte chunks of 8 values; chunk c of the tile is row c / (RowBytes / 4),
// chunk c % (RowBytes / 4) of it, so the 4 lanes of a 32-value block are a quad (the block's
// amax is two DPP moves) and 32 lanes write a row's RowBytes fp4 bytes at once.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <cstdint>
#include <type_traits>

#include "wavekit/arch/buffer.hpp"
#include "wavekit/arch/lds.hpp"
#include "wavekit/arch/mx_quantize_lanes.hpp"
#include "wavekit/core/half_convert.hpp"
#include "wavekit/core/numeric_types.hpp"
#include "wavekit/core/platform.hpp"
#include "wavekit/tile/lds_swizzled_rows.hpp"
#include "wavekit/tile/tile_concepts.hpp"

namespace wavekit::tile {

template <int Rows, int RowBytes, int Threads, class T = bf16>
struct tile_loader_quantize_fp4 {
  static_assert(std::is_same_v<T, bf16> || std::is_same_v<T, fp16>, "tile_loader_quantize_fp4: bf16 or fp16 rows");
  static constexpr int element_bits = 4, row_bytes = RowBytes;  // as the tile sits in LDS
  static constexpr int chunks_per_row = RowBytes * 2 * 2 / 16;  // 16-byte chunks of 16-bit values
  static constexpr int chunks = Rows * chunks_per_row;
  static constexpr int per_thread = chunks / Threads;
  static constexpr int work_items = chunks;
  static constexpr int scales_per_row = RowBytes * 2 / arch::mx_group;
  static constexpr int scale_offset = Rows * RowBytes;  // the scales follow the fp4 rows
  static constexpr int tile_bytes = scale_offset + Rows * scales_per_row;
  static constexpr bool gathers_rows = false;
  using layout = lds_swizzled_rows<RowBytes>;
  static_assert(chunks % Threads == 0 && Threads % 64 == 0,
                "tile_loader_quantize_fp4: every lane moves whole chunks (the shuffles of a block's amax run in "
                "every lane)");
  static_assert(chunks_per_row % 16 == 0 && scales_per_row % 4 == 0,
                "tile_loader_quantize_fp4: a row's scales are written four at a time");

  arch::u32x4 regs[per_thread];
  std::uint32_t base[per_thread];  // byte offset of each chunk at K = 0

  // ld: the tensor's row stride in elements.
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void locate(int row0, int rows_total, int ld, int tid) {
#pragma unroll
    for (int i = 0; i < per_thread; ++i) {
      const int c = tid + i * Threads, row = row0 + c / chunks_per_row;
      base[i] =
          row < rows_total ? static_cast<std::uint32_t>((row * ld + (c % chunks_per_row) * 8) * 2) : arch::out_of_range;
    }
  }

  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void load(const arch::buffer& src, int, int k0) {
#pragma unroll
    for (int i = 0; i < per_thread; ++i) regs[i] = src.load16(base[i], static_cast<std::uint32_t>(k0 * 2));
  }

  // The step at K = -skip: its first skip elements read as 0 (skip a multiple of 32: whole blocks,
  // which then quantize to zeros with the smallest scale).
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void load_skipping(const arch::buffer& src, int, int skip, int tid) {
    const std::uint32_t skip_bytes = static_cast<std::uint32_t>(skip * 2);
#pragma unroll
    for (int i = 0; i < per_thread; ++i) {
      const std::uint32_t chunk_k = static_cast<std::uint32_t>(((tid + i * Threads) % chunks_per_row) * 16);
      regs[i] = src.load16(chunk_k < skip_bytes ? arch::out_of_range : base[i] - skip_bytes);
    }
  }

  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void wait_for_loads() { arch::keep_whole(regs); }

  // Quantizes and writes: each lane 4 bytes of fp4 a chunk; the first lane of each 16 (four
  // blocks) the four blocks' scales as one word, gathered from the lanes that computed them. The
  // thread's chunks go through each step two at a time (arch::quantize_fp4_octets), so that no
  // DPP move waits on the instruction before it (s_nop), and no more are live at once (eight took
  // more registers: at 64x128 a spill; the codegen report).
  static constexpr int group = per_thread < 2 ? per_thread : 2;
  static_assert(per_thread % group == 0, "tile_loader_quantize_fp4: a thread's chunks are whole groups");
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void store(unsigned char* lds, int tid) const {
#pragma unroll
    for (int g = 0; g < per_thread; g += group) {
      float v[group][arch::mx_quantize_lane_elements];
#pragma unroll
      for (int i = 0; i < group; ++i)
#pragma unroll
        for (int h = 0; h < arch::mx_quantize_lane_elements; ++h)
          v[i][h] = widen_to_float(T::from_bits(static_cast<std::uint16_t>(regs[g + i][h / 2] >> (16 * (h % 2)))));
      arch::fp4_octet q[group];
      arch::quantize_fp4_octets<group>(v, q);
      // Lanes 4, 8 and 12 of the 16 (a DPP row) to its first: row_shl by 4, 8, 12.
      std::uint32_t word[group];
#pragma unroll
      for (int i = 0; i < group; ++i) word[i] = q[i].scale;
      auto gather = [&]<int Ctrl, int Shift>() {
#pragma unroll
        for (int i = 0; i < group; ++i)
          word[i] |=
              static_cast<std::uint32_t>(__builtin_amdgcn_mov_dpp(static_cast<int>(q[i].scale), Ctrl, 0xF, 0xF, false))
              << Shift;
      };
      gather.template operator()<0x104, 8>();
      gather.template operator()<0x108, 16>();
      gather.template operator()<0x10C, 24>();
#pragma unroll
      for (int i = 0; i < group; ++i) {
        const int c = tid + (g + i) * Threads, row = c / chunks_per_row, chunk = c % chunks_per_row;
        arch::lds_store<4>(lds + layout::offset(row, chunk * 4), q[i].bytes);
        arch::lds_store<4>(lds + scale_offset + row * scales_per_row + chunk / 16 * 4, word[i], chunk % 16 == 0);
      }
    }
  }
};

static_assert(tile_loader<tile_loader_quantize_fp4<16, 128, 256>>, "tile_loader_quantize_fp4 models tile_loader");

}  // namespace wavekit::tile
