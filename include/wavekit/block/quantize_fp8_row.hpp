// The fp8 output of a row-wise op (RMSNorm, SwiGLU), quantized an octet at a time where its values
// are computed, so they never go through memory unquantized (core/scale_granularity.hpp):
//
//   per_tensor    q = saturate(v / scale), the caller's fp32 scale
//   group_1x128   block/quantize_1x128.hpp's rule (amax / max_finite per 128 columns), the lanes
//                 arranged as there (block/row_octets.hpp gives that arrangement)
//
// q and the group scales go out in either storage order of the block-scaled GEMM's A operand
// (ops/gemm_fp8_blockscale/problem.hpp), so the GEMM reads them as they are:
//
//   k_contiguous   q [rows][ld], scales [rows][cols / 128]      (ld >= cols)
//   mn_contiguous  q [cols][ld], scales [cols / 128][rows]      (ld >= rows)
//
// q's rows as stored are ld elements apart (a view into a wider tensor; ld = cols or rows when
// packed), its extent within 2^31 - 1 bytes (the op's validation: core/row_view.hpp); the scales
// are packed.
//
// In the mn_contiguous order a lane's 8 values lie in 8 rows of q, 8 one-byte stores (each byte is
// still written once; a transposing store through LDS would merge them, see docs/glue.md).
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <hip/hip_runtime.h>  // the platform: HIP on the device, the emulator's shim on the CPU

#include <cstdint>

#include "wavekit/arch/buffer.hpp"
#include "wavekit/arch/fp8_convert.hpp"
#include "wavekit/block/quantize_1x128.hpp"
#include "wavekit/block/row_octets.hpp"
#include "wavekit/core/layout.hpp"
#include "wavekit/core/numeric_types.hpp"
#include "wavekit/core/platform.hpp"
#include "wavekit/core/scale_granularity.hpp"

namespace wavekit::block {

// Where the quantized rows go (a kernel argument).
template <class Fp8>
struct fp8_rows {
  Fp8* q;         // rows x cols, in the quantizer's order, its rows as stored ld apart
  float* scales;  // group_1x128: rows x cols / 128, in the quantizer's order; per_tensor: unused
  float scale;    // per_tensor: the divisor; group_1x128: unused
  int rows, cols;
  int ld;  // elements between q's rows as stored: >= cols (k_contiguous) or >= rows (mn_contiguous)
};

template <class Fp8, scale_granularity Scaling, layout Order>
struct fp8_row_quantizer {
  static_assert(Scaling == scale_granularity::tensor || Scaling == scale_granularity::group_1x128,
                "fp8_row_quantizer: per_tensor or group_1x128 scaling");
  static_assert(Order == layout::k_contiguous || Order == layout::mn_contiguous,
                "fp8_row_quantizer: k_contiguous or mn_contiguous storage");
  arch::buffer q, scales;
  float scale;
  int rows, cols, ld;

  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE static fp8_row_quantizer over(const fp8_rows<Fp8>& o) {
    const std::uint32_t elements = static_cast<std::uint32_t>(o.rows) * static_cast<std::uint32_t>(o.cols);
    const bool kc = Order == layout::k_contiguous;
    const std::uint32_t q_extent =
        static_cast<std::uint32_t>((kc ? o.rows : o.cols) - 1) * o.ld + (kc ? o.cols : o.rows);
    return {arch::buffer::over(o.q, q_extent),
            arch::buffer::over(o.scales, elements / quantize_group * 4),
            o.scale,
            o.rows,
            o.cols,
            o.ld};
  }

  // Quantizes and stores v, columns [col, col + 8) of row `row`. Every lane of the wave calls it
  // (the 1x128 amax is a shuffle); a lane with active = false passes zeros and stores nothing.
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void put(const float (&v)[octet], int row, int col, bool active) const {
    arch::u32x2 bytes;
    if constexpr (Scaling == scale_granularity::tensor) {
      bytes = arch::u32x2{arch::pack_fp8x4_saturating<Fp8>(v[0] / scale, v[1] / scale, v[2] / scale, v[3] / scale),
                          arch::pack_fp8x4_saturating<Fp8>(v[4] / scale, v[5] / scale, v[6] / scale, v[7] / scale)};
    } else {
      const fp8_octet_1x128 o = quantize_1x128_octet<Fp8>(v);
      bytes = o.bytes;
      if (col % quantize_group == 0) {
        const int group = col / quantize_group, groups = cols / quantize_group;
        const std::uint32_t at = Order == layout::k_contiguous ? static_cast<std::uint32_t>(row * groups + group)
                                                               : static_cast<std::uint32_t>(group * rows + row);
        scales.store4(__builtin_bit_cast(std::uint32_t, o.scale), active ? at * 4 : arch::out_of_range);
      }
    }
    if constexpr (Order == layout::k_contiguous) {
      q.store8(bytes, active ? static_cast<std::uint32_t>(row) * ld + col : arch::out_of_range);
    } else {
      // Element (row, col + h) is h rows of q past (row, col): one per-lane offset for the 8
      // stores, h * ld in the uniform one (a scalar register, no vector ALU per store).
      const std::uint32_t at = active ? static_cast<std::uint32_t>(col) * ld + row : arch::out_of_range;
#pragma unroll
      for (int h = 0; h < octet; ++h)
        q.store1(static_cast<std::uint8_t>(bytes[h / 4] >> (8 * (h % 4))), at, static_cast<std::uint32_t>(h * ld));
    }
  }
};

}  // namespace wavekit::block
