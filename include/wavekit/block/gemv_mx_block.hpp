// One block of an MXFP8 GEMM with few rows of A (decode: M <= 16), as a GEMV: each lane owns one
// column of C, i.e. one row of B, and streams that row along K from memory into its registers;
// the block's A rows of a K step, which every lane needs, are widened to fp32 into LDS once and
// read back as broadcasts. No matrix instructions, no LDS for B, no cross-lane reduction: a lane
// multiplies in fp32 and applies the e8m0 scales once per 32 K, to that block's partial sum, as
// the scaled MFMA does (2^(sa + sb - 254); a scale byte 0xFF makes the result NaN:
// docs/hardware.md 2.4).
//
// Memory: each B byte (and B scale) is read once; A once per block of `threads` columns. Work
// per lane and 32 K: 16 conversions of B plus BlockM x (32 FMAs, 8 LDS broadcasts): the vector
// ALU keeps up with HBM only for a row or two of A, which is why the plan (ops/gemm_mx/plan.hpp)
// weighs this path against the MFMA one.
//
// Every buffer starts at the tile's first row (64-bit pointer arithmetic), so a B past 2 GB works:
// only a tile's rows need 32-bit offsets. K need only be a multiple of 32: the first step of the
// K range starts `skip` elements early and reads zeros there (gemm_params::skip).
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <hip/hip_runtime.h>  // the platform: HIP on the device, the emulator's shim on the CPU

#include <cstdint>
#include <limits>

#include "wavekit/arch/buffer.hpp"
#include "wavekit/arch/lds.hpp"
#include "wavekit/block/gemm_block.hpp"
#include "wavekit/block/gemm_epilogue.hpp"
#include "wavekit/block/scale_in_instruction.hpp"
#include "wavekit/block/tile_scheduler.hpp"
#include "wavekit/core/numeric_types.hpp"
#include "wavekit/core/platform.hpp"
#include "wavekit/core/vector.hpp"

namespace wavekit::block {

template <int BlockM, class Out>
struct gemv_mx_block {
  using f32x2 = float __attribute__((ext_vector_type(2)));
  static_assert(BlockM >= 1 && BlockM <= 16, "gemv_mx_block: 1 to 16 rows of A a block");
  static constexpr int threads = 256, block_m = BlockM, block_n = threads;  // a column a lane
  static constexpr int step_k = 128, scale_blocks = step_k / 32, chunks = step_k / 16;
  static constexpr int a_floats = BlockM * step_k;
  static constexpr int lds_bytes = a_floats * 4 + BlockM * scale_blocks * 4;
  using params = gemm_params<fp8_e4m3fn, fp8_e4m3fn, mx_scale_args, Out>;
  using scheduler = tile_scheduler_2d<BlockM, block_n>;

  // lds: lds_bytes, 16-byte aligned. t: the block's tile, its K groups being K steps.
  // The tile's GEMM of a batch: its A, B, scales and C a batch stride on (gemm_params::batch); A's
  // and B's rows lda and ldb apart (0: packed), C's ldc.
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE static void run(const params& p, const gemm_tile& t, unsigned char* lds) {
    const int tid = static_cast<int>(threadIdx.x);
    const int scale_cols = p.k / 32;
    const int rows_a = p.m - t.m0 < BlockM ? p.m - t.m0 : BlockM;
    const int rows_b = p.n - t.n0 < block_n ? p.n - t.n0 : block_n;
    const long batch = t.batch;
    const int lda = p.lda ? p.lda : p.k, ldb = p.ldb ? p.ldb : p.k;
    const mx_scale_args scales = mx_scales_at_batch(p.scales, batch, p.batch, static_cast<long>(p.m) * scale_cols,
                                                    static_cast<long>(p.n) * scale_cols);
    const arch::buffer a = tile_rows(p.a + batch * p.batch.a, t.m0, p.m, BlockM, lda),
                       b = tile_rows(p.b + batch * p.batch.b, t.n0, p.n, block_n, ldb);
    const arch::buffer a_scale = tile_rows(scales.a_scale, t.m0, p.m, BlockM, scale_cols);
    const arch::buffer b_scale = tile_rows(scales.b_scale, t.n0, p.n, block_n, scale_cols);
    const bool has_column = tid < rows_b;
    const std::uint32_t b_row = has_column ? static_cast<std::uint32_t>(tid * ldb) : arch::out_of_range;
    const std::uint32_t b_scale_row = has_column ? static_cast<std::uint32_t>(tid * scale_cols) : arch::out_of_range;
    float* a_lds = reinterpret_cast<float*>(lds);
    std::uint32_t* a_exponent_lds = reinterpret_cast<std::uint32_t*>(lds + a_floats * 4);

    float acc[BlockM];
#pragma unroll
    for (int m = 0; m < BlockM; ++m) acc[m] = 0.0f;
    for (int step = t.group_begin; step < t.group_end; ++step) {
      const int k0 = step * step_k - p.skip;  // negative only in the first step of a ragged K
      // This lane's B row: issued first, so the loads fly while A is staged.
      arch::u32x4 b_bytes[chunks];
#pragma unroll
      for (int c = 0; c < chunks; ++c)
        b_bytes[c] =
            k0 + 16 * c < 0 ? arch::u32x4{0, 0, 0, 0} : b.load16(b_row, static_cast<std::uint32_t>(k0 + 16 * c));
      int b_exponent[scale_blocks];
#pragma unroll
      for (int s = 0; s < scale_blocks; ++s)
        b_exponent[s] =
            k0 + 32 * s < 0
                ? 0
                : static_cast<int>(b_scale.load1(b_scale_row, static_cast<std::uint32_t>((k0 + 32 * s) / 32)));
      __syncthreads();  // the previous step's A is read
      stage_a(a, a_scale, lda, scale_cols, k0, tid, a_lds, a_exponent_lds);
      __syncthreads();
#pragma unroll
      for (int s = 0; s < scale_blocks; ++s) {
        float bv[32];
#pragma unroll
        for (int c = 0; c < 2; ++c)
#pragma unroll
          for (int w = 0; w < 4; ++w) {
            const int word = static_cast<int>(b_bytes[2 * s + c][w]);
            const auto lo = __builtin_amdgcn_cvt_pk_f32_fp8(word, false),
                       hi = __builtin_amdgcn_cvt_pk_f32_fp8(word, true);
            float* v = bv + 16 * c + 4 * w;
            v[0] = lo[0], v[1] = lo[1], v[2] = hi[0], v[3] = hi[1];
          }
#pragma unroll
        for (int m = 0; m < BlockM; ++m) {
          // Two chains (even and odd K), so the pairs can go to packed FMAs.
          f32x2 part2 = {0.0f, 0.0f};
          // Broadcasts: every lane reads the same 16 bytes. (The device compiler unrolls this loop
          // unasked; a pragma would pass the emulator build's unroll limit at 16 rows.)
          for (int q = 0; q < 8; ++q) {
            // (The whole vector is cast: __builtin_bit_cast of one element reads element 0, clang.)
            const floatx4 a4 = __builtin_bit_cast(floatx4, arch::lds_load<16>(a_lds + m * step_k + 32 * s + 4 * q));
#pragma unroll
            for (int e = 0; e < 4; e += 2)
              part2 =
                  __builtin_elementwise_fma(f32x2{a4[e], a4[e + 1]}, f32x2{bv[4 * q + e], bv[4 * q + e + 1]}, part2);
          }
          const float part = part2[0] + part2[1];
          const int a_exponent = static_cast<int>(arch::lds_load<4>(a_exponent_lds + m * scale_blocks + s));
          acc[m] += scaled(part, a_exponent, b_exponent[s]);
        }
      }
    }

    // C at the tile's GEMM, the split's partials at its split (block/gemm_epilogue.hpp).
    const output_place at = output_place_of(p.out.ldc, p.m, p.n, p.batch, batch, t.split);
    const output_buffers<Out> out(place_outputs(p.out, at.c_offset, at.split_offset), p.m, p.n, at.ldc);
#pragma unroll
    for (int m = 0; m < BlockM; ++m)
      if (m < rows_a && has_column) out.store(static_cast<std::uint32_t>((t.m0 + m) * at.ldc + t.n0 + tid), acc[m]);
  }

 private:
  // A's rows (lda apart) of the step at k0 widened to fp32 (rows past the tile and K before 0 read 0): thread
  // i moves 4 consecutive bytes to 16 consecutive LDS bytes, so a wave's writes are contiguous;
  // and each row's 4 scale bytes, as integers.
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE static void stage_a(const arch::buffer& a, const arch::buffer& a_scale, int lda,
                                                         int scale_cols, int k0, int tid, float* a_lds,
                                                         std::uint32_t* a_exponent_lds) {
    constexpr int words = a_floats / 4;  // 4-byte words of A a step
#pragma unroll
    for (int it = 0; it < (words + threads - 1) / threads; ++it) {
      const int i = tid + it * threads, row = i / (step_k / 4), col = i % (step_k / 4) * 4;
      const bool active = i < words;
      const std::uint32_t word =
          a.load4(active && k0 + col >= 0 ? static_cast<std::uint32_t>(row * lda + k0 + col) : arch::out_of_range);
      const auto lo = __builtin_amdgcn_cvt_pk_f32_fp8(static_cast<int>(word), false);
      const auto hi = __builtin_amdgcn_cvt_pk_f32_fp8(static_cast<int>(word), true);
      arch::lds_store<16>(a_lds + 4 * (active ? i : 0),
                          __builtin_bit_cast(arch::lds_vector_t<16>, floatx4{lo[0], lo[1], hi[0], hi[1]}), active);
    }
    const bool has_scale = tid < BlockM * scale_blocks;
    const int row = tid / scale_blocks, kb = k0 + 32 * (tid % scale_blocks);
    const std::uint32_t exponent = a_scale.load1(
        has_scale && kb >= 0 ? static_cast<std::uint32_t>(row * scale_cols + kb / 32) : arch::out_of_range);
    arch::lds_store<4>(a_exponent_lds + (has_scale ? tid : 0), exponent, has_scale);
  }

  // A 32-K block's partial sum under its scales: 2^(ea + eb - 254) exactly (ldexp), NaN for 0xFF.
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE static float scaled(float part, int ea, int eb) {
    return ea == 0xFF || eb == 0xFF ? std::numeric_limits<float>::quiet_NaN() : __builtin_ldexpf(part, ea + eb - 254);
  }
};

}  // namespace wavekit::block
