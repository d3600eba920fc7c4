// Activations to fp8 with one fp32 scale per row per 128 columns (DeepSeek-V3's 1x128 blocks), on
// the device, by the rule of the host quantizer (host/quantize_blockscale.hpp), bit for bit:
//   scale = amax / max_finite(Fp8) (1 for an all-zero block),  q = saturate_cast<Fp8>(x / scale)
// with IEEE division (as the host's) and arch/fp8_convert.hpp's clamped conversion. A block-scaled
// GEMM then reads q and scale (block/scale_group_promotion.hpp, A's k_contiguous scales).
//
// Work items: one thread per 8 consecutive elements (one 16-byte load of bf16 / fp16), so a
// 128-column block is 16 neighbouring lanes, whose amax is four xor shuffles inside the 16.
// Every lane runs the shuffles (missing rows load zeros and store nothing): no divergence around
// them. An optional row table (rows_in_use[r] < 0: row r is skipped) lets a pipeline quantize
// only the rows that a later GEMM reads (MoE's padding rows are never written).
//
// The rule itself is quantize_1x128_octet, on 8 fp32 values in registers: the kernels that
// compute their values before quantizing them (block/quantize_fp8_row.hpp: RMSNorm, SwiGLU) call
// it with the same lane arrangement.
//
// Non-finite values: a NaN is never the amax (it stays NaN in its own byte); an Inf amax makes the
// scale Inf, so the group's finite values become 0 and its Infs NaN (Inf / Inf), as on the host.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <hip/hip_runtime.h>  // the platform: HIP on the device, the emulator's shim on the CPU

#include <cstdint>
#include <type_traits>

#include "wavekit/arch/buffer.hpp"
#include "wavekit/arch/fp8_convert.hpp"
#include "wavekit/block/row_octets.hpp"
#include "wavekit/core/half_convert.hpp"
#include "wavekit/core/numeric_types.hpp"
#include "wavekit/core/platform.hpp"

namespace wavekit::block {

inline constexpr int quantize_group = 128;        // columns per scale
inline constexpr int quantize_lane_elements = 8;  // elements per work item
inline constexpr int quantize_group_lanes = 16;   // work items per scale

template <class T, class Fp8>
struct quantize_1x128_args {
  const T* x;              // [rows][cols], cols a multiple of 128
  Fp8* q;                  // [rows][cols]
  float* scale;            // [rows][cols / 128]
  const int* rows_in_use;  // null, or [rows]: rows with a negative entry are skipped
  int rows, cols;
  int x_ld = 0;  // elements between x's rows (a view of wider rows); 0: cols

  // Work items (threads) the whole tensor needs.
  WAVEKIT_HOST_DEVICE int items() const { return rows * (cols / quantize_lane_elements); }
};

// Eight values of a 128-column group (its other 120 in the 15 neighbouring lanes of the aligned
// group of 16) to eight fp8 bytes (v[0] in the lowest) and the group's scale. Every lane of the
// wave calls it (the amax is xor shuffles inside each 16 lanes); lanes without data pass zeros.
struct fp8_octet_1x128 {
  arch::u32x2 bytes;
  float scale;
};
template <class Fp8>
WAVEKIT_DEVICE WAVEKIT_FORCEINLINE fp8_octet_1x128 quantize_1x128_octet(const float (&v)[quantize_lane_elements]) {
  float amax = 0.0f;
#pragma unroll
  for (int h = 0; h < quantize_lane_elements; ++h) {
    const float m = v[h] < 0.0f ? -v[h] : v[h];
    amax = m > amax ? m : amax;  // a NaN element is not the amax; it stays NaN in its own byte
  }
#pragma unroll
  for (int offset = quantize_group_lanes / 2; offset > 0; offset /= 2) {
    const float other = __shfl_xor(amax, offset);
    amax = other > amax ? other : amax;
  }
  const float scale = amax > 0.0f ? amax / element_limits<Fp8>::max_finite : 1.0f;
  const std::uint32_t lo = arch::pack_fp8x4_saturating<Fp8>(v[0] / scale, v[1] / scale, v[2] / scale, v[3] / scale);
  const std::uint32_t hi = arch::pack_fp8x4_saturating<Fp8>(v[4] / scale, v[5] / scale, v[6] / scale, v[7] / scale);
  return {arch::u32x2{lo, hi}, scale};
}

// Quantizes work item `item` (every lane of a wave calls it; items past the tensor do nothing).
template <class T, class Fp8>
WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void quantize_1x128_item(const quantize_1x128_args<T, Fp8>& a, int item) {
  static_assert(std::is_same_v<T, bf16> || std::is_same_v<T, fp16>, "quantize_1x128: activations are bf16 or fp16");
  const int per_row = a.cols / quantize_lane_elements;
  const int row = item / per_row, col = item % per_row * quantize_lane_elements;
  const bool active = row < a.rows && (!a.rows_in_use || a.rows_in_use[row] >= 0);
  const std::uint32_t elements = static_cast<std::uint32_t>(a.rows) * static_cast<std::uint32_t>(a.cols);
  const std::uint32_t at = static_cast<std::uint32_t>(row) * a.cols + col;  // used only when active
  static_assert(quantize_lane_elements == octet, "quantize_1x128: a work item is one 16-byte load of x");
  float v[quantize_lane_elements];
  load_octet(a.x, a.rows, a.cols, a.x_ld, row, col, active, v);
  const fp8_octet_1x128 o = quantize_1x128_octet<Fp8>(v);
  arch::buffer::over(a.q, elements).store8(o.bytes, active ? at : arch::out_of_range);
  if (col % quantize_group == 0) {
    const std::uint32_t scales = elements / quantize_group;
    arch::buffer::over(a.scale, scales * 4)
        .store4(__builtin_bit_cast(std::uint32_t, o.scale), active ? (at / quantize_group) * 4 : arch::out_of_range);
  }
}

}  // namespace wavekit::block
