// The tile vocabulary every GEMM config shares: the block tile (M x N x K elements), the waves
// that split it (M x N), the MFMA tile (16 or 32 square; the atom's K is the op's and target's
// choice; 8 names the row-pair sparse atom's 8 x 16 tiles, arch/mfma_row_pairs.hpp) and the LDS
// stages of the mainloop (2: double-buffered, one barrier per K step; 1: one buffer, a second
// barrier per K step); and what every config derives from it: the LDS its stages take on a target
// and the occupancy that leaves (staged_tile_config). Plain C++: configs, plans and kernels all
// read it.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <string>
#include <type_traits>

#include "wavekit/arch/device_facts.hpp"
#include "wavekit/arch/target.hpp"

namespace wavekit::block {

template <int BlockM, int BlockN, int BlockK, int WavesM, int WavesN, int MfmaM, int Stages>
struct gemm_tile_shape {
  static constexpr int block_m = BlockM, block_n = BlockN, block_k = BlockK;
  static constexpr int waves_m = WavesM, waves_n = WavesN, waves = WavesM * WavesN, threads = 64 * waves;
  static constexpr int mfma_m = MfmaM;                    // rows of C per MFMA tile
  static constexpr int mfma_n = MfmaM == 8 ? 16 : MfmaM;  // columns
  static constexpr int stages = Stages;
  static constexpr int wave_m = BlockM / WavesM, wave_n = BlockN / WavesN;
  static constexpr int tiles_m = wave_m / mfma_m, tiles_n = wave_n / mfma_n;  // MFMA tiles per wave

  static_assert(MfmaM == 8 || MfmaM == 16 || MfmaM == 32,
                "gemm_tile_shape: MFMA tiles are 16x16, 32x32, or the row-pair sparse atom's 8x16");
  static_assert(Stages == 1 || Stages == 2, "gemm_tile_shape: Stages is 1 (one LDS buffer) or 2 (double-buffered LDS)");
  static_assert(BlockM % WavesM == 0 && BlockN % WavesN == 0,
                "gemm_tile_shape: the waves must split the block tile evenly");
  static_assert(wave_m % mfma_m == 0 && wave_n % mfma_n == 0,
                "gemm_tile_shape: a wave tile must be a whole number of MFMA tiles");
  static_assert(waves <= 16, "gemm_tile_shape: at most 1024 threads per block");

  // "256x128x64, w4x2": the part of a config's name this shape gives.
  static std::string shape_name() {
    return std::to_string(BlockM) + "x" + std::to_string(BlockN) + "x" + std::to_string(BlockK) + ", w" +
           std::to_string(WavesM) + "x" + std::to_string(WavesN);
  }
};

// The occupancy a config promises and the codegen report confirms: the waves per SIMD that room
// for (LDS per CU / lds_bytes) workgroups of `waves` waves gives on `device`, capped at 2 (every
// GEMM kernel asks for 2 at most: registers for deeper occupancy would cost the tile).
constexpr int lds_occupancy(const arch::device_facts& device, int lds_bytes, int waves) {
  return (device.lds_bytes_per_cu / lds_bytes) * waves / device.simds_per_cu >= 2 ? 2 : 1;
}

// The LDS of the group-promotion policy's per-row scales (block/scale_group_promotion.hpp) for a
// tile Shape and GroupK-element scale groups: one buffer when a group spans two K steps or more (its
// first step stores them, its last reads them), two when it is one step (the next group's travel
// with the next tiles); a 4-byte slot per thread or per row of the block, whichever is more.
template <class Shape, int GroupK>
struct row_scale_lds {
  static constexpr int buffers = GroupK / Shape::block_k >= 2 ? 1 : 2;
  static constexpr int slots = Shape::threads > Shape::block_m ? Shape::threads : Shape::block_m;  // per buffer
  static constexpr int bytes = buffers * slots * 4;
};

// A config as the kernel of one target sees it: the tile Shape, RowBytes of K per LDS row, the
// stages' A and B rows plus ExtraLdsBytes (a scale policy's buffers) of LDS, and the occupancy that
// LDS leaves on Device (the target whose LDS sizes the config: configs sized for gfx942's 64 KiB
// keep them on gfx950). Every GEMM config (or its per-target view) derives from it.
template <class Shape, int RowBytes, arch::target Device, int ExtraLdsBytes = 0>
struct staged_tile_config : Shape {
  using shape = Shape;
  static constexpr int row_bytes = RowBytes;
  static constexpr int lds_bytes = Shape::stages * (Shape::block_m + Shape::block_n) * RowBytes + ExtraLdsBytes;
  static constexpr arch::device_facts device = arch::facts_of<Device>;
  static constexpr int min_waves_per_simd = lds_occupancy(device, lds_bytes, Shape::waves);
  static_assert(lds_bytes <= device.lds_bytes_per_workgroup,
                "staged_tile_config: the tiles' LDS stages (and scale buffers) exceed the LDS a workgroup may have on "
                "the config's target");
};

// The direct fill (block/gemm_mainloop.hpp, tile/lds_direct_fill.hpp) loads LaneBytes a lane: 16 on
// gfx950 (buffer_load_dwordx4 ... lds), 4 elsewhere. A stage is the A and B tiles rounded up to
// whole loads of every thread; the rest of it is the sink that the loads past the tiles land in.
constexpr int direct_fill_lane_bytes(arch::target t) { return t == arch::target::gfx950 ? 16 : 4; }
template <class Shape, int RowBytes, int LaneBytes>
inline constexpr int direct_fill_stage_bytes =
    ((Shape::block_m + Shape::block_n) * RowBytes + Shape::threads * LaneBytes - 1) / (Shape::threads * LaneBytes) *
    (Shape::threads * LaneBytes);

// Config Base with the tiles loaded straight into LDS on target T (two stages): its LDS is the
// stages' (sinks included) and what else Base takes (a scale policy's buffers), and the occupancy
// that leaves on Base's device.
template <class Base, arch::target T>
struct direct_fill_config : Base {
  static_assert(Base::stages == 2, "direct_fill_config: the direct fill runs two LDS stages");
  static constexpr bool fills_lds_directly = true;
  static constexpr int lds_bytes = Base::lds_bytes - 2 * (Base::block_m + Base::block_n) * Base::row_bytes +
                                   2 * direct_fill_stage_bytes<Base, Base::row_bytes, direct_fill_lane_bytes(T)>;
  static constexpr int min_waves_per_simd = lds_occupancy(Base::device, lds_bytes, Base::waves);
  static_assert(lds_bytes <= Base::device.lds_bytes_per_workgroup,
                "direct_fill_config: the stages (and sinks) exceed the LDS a workgroup may have");
};

// Config Base with its staged fill loading two K steps ahead (block/gemm_mainloop.hpp): one more
// register copy of the tiles, no more LDS.
template <class Base>
struct register_prefetch_config : Base {
  static_assert(Base::stages == 2, "register_prefetch_config: two steps ahead takes two LDS stages");
  static constexpr int register_prefetch_steps = 2;
};

// Config as target T's kernel sees it, for a two-stage config: on gfx950 the tiles go straight into
// LDS (direct_fill_config; the mainloop stages through registers where a tile's layout cannot take
// it), which there cuts the loop's VALU work and registers; on gfx942, whose 4-byte form of the
// load adds instructions, they are staged through registers two K steps ahead
// (register_prefetch_config), which halves the load round trips a K step waits for at no loss of
// occupancy (test/isa/gemm_direct_fill measures both against the staged fill one step ahead).
// gfx950's staged fallbacks stay one step ahead: there the second register copy spills or costs
// occupancy. DirectFill = false keeps a config staged on gfx950, TwoAhead = false one step ahead
// on gfx942 (where the loop's registers do not fit: the config says why).
template <class Config, arch::target T, bool DirectFill = true, bool TwoAhead = true>
using fill_view =
    std::conditional_t<Config::stages == 2 && DirectFill && T == arch::target::gfx950, direct_fill_config<Config, T>,
                       std::conditional_t<Config::stages == 2 && TwoAhead && T == arch::target::gfx942,
                                          register_prefetch_config<Config>, Config>>;

// The 16-bit GEMM configs' view (gemm_half's and the MoE bf16 / fp16 weights'): K steps of BlockK
// elements of 2 bytes (64- or 128-byte LDS rows), LDS sized for gfx942's 64 KiB on both targets.
template <int BlockM, int BlockN, int BlockK, int WavesM, int WavesN, int MfmaM, int Stages>
struct half_tile_config : staged_tile_config<gemm_tile_shape<BlockM, BlockN, BlockK, WavesM, WavesN, MfmaM, Stages>,
                                             BlockK * 2, arch::target::gfx942> {
  static_assert(BlockK == 32 || BlockK == 64, "half_tile_config: BlockK must be 32 or 64 (64- or 128-byte rows)");
};

// The K step (bytes = 8-bit elements) target T's fp8 GEMMs take with MFMA tiles of edge MfmaM,
// for a config that names BlockK: gfx950 runs fp8 on its f8f6f4 MFMAs (arch::fp8_gemm_atom),
// whose 16x16x128 form takes 32 bytes of each row per lane, so 16-wide tiles step 128 bytes of K.
template <arch::target T, int MfmaM, int BlockK>
inline constexpr int fp8_step_k = T == arch::target::gfx950 && MfmaM == 16 ? 128 : BlockK;

// The target whose LDS sizes a config that runs on T: gfx950's own; gfx942's 64 KiB for gfx942
// and for the host (plans and tests read the gfx942 view).
constexpr arch::target lds_sizing_target(arch::target t) {
  return t == arch::target::gfx950 ? t : arch::target::gfx942;
}

// An fp8 config's tile on target T (its K step: fp8_step_k) and the config as T's kernel sees it:
// LDS rows of the K step's bytes plus ExtraLdsBytes (a scale policy's buffers), on T's LDS, filled
// as fill_view fills it on T.
template <arch::target T, int BlockM, int BlockN, int BlockK, int WavesM, int WavesN, int MfmaM, int Stages>
using fp8_tile_shape = gemm_tile_shape<BlockM, BlockN, fp8_step_k<T, MfmaM, BlockK>, WavesM, WavesN, MfmaM, Stages>;
template <arch::target T, class Shape, int ExtraLdsBytes = 0, bool DirectFill = true, bool TwoAhead = true>
using fp8_tile_config =
    fill_view<staged_tile_config<Shape, Shape::block_k, lds_sizing_target(T), ExtraLdsBytes>, T, DirectFill, TwoAhead>;

}  // namespace wavekit::block
