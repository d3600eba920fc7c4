// Activations to MXFP4 or MXFP8 (e2m1 or e4m3fn elements with one e8m0 scale per row per 32
// columns) on gfx950, by the rule of the host quantizer (host/quantize_mx.hpp: aiter's MX rule,
// docs/hardware.md 7.3), bit for bit:
//   exponent = core/mx_scale.hpp's rule on the block's amax (its bits rounded to a power of two,
//              floor(log2) - the element's largest exponent, clamped to [-127, 127])
//   element  = x / 2^exponent rounded to nearest-even, saturating at the element's largest value
// MXFP4's elements come from gfx950's v_cvt_scalef32_pk_fp4_f32, which divides by the scale exactly
// and rounds the same way (docs/hardware.md 2.3): the host's one fp32 multiply by 2^-exponent is
// exact wherever the result is not below fp4's resolution, so both give the same bits. Two
// elements a byte, the even column in the low nibble. MXFP8's are that same fp32 multiply, then the
// saturating fp8 conversion (arch/fp8_convert.hpp: a clamp, then v_cvt_pk_fp8_f32), which is
// saturate_cast's rounding. The scale is its e8m0 byte.
//
// The element rounding is a compile-time choice R (core/mx_rounding.hpp), the host's bit for bit
// under each: mx_rounding::nearest_even (the default, amd-mxfp4-mm's quantizer, aiter's
// _mxfp4_quant_op; the code above) or mx_rounding::ties_away_from_zero (aiter's
// fused_dynamic_mxfp4_quant_moe_sort, amd-moe-mxfp4's reference path for <= 1024 tokens). Ties
// away divides by the scale first, y = ldexp(x, -exponent) (exact wherever y is not far below the
// element's resolution: there it rounds to +-0 under both), rounds y onto the element's grid with
// core/mx_rounding.hpp's round_to_grid_ties_away, and lets the same conversions encode that value,
// which they do exactly (fp4 with a scale of 1); so saturation, NaN and Inf follow the conversions as
// under nearest even.
//
// Work items: one thread per 8 consecutive elements (one 16-byte load of bf16 / fp16), so a
// 32-column block is 4 neighbouring lanes (a quad), whose amax is two DPP moves. Every lane runs
// them (missing rows load zeros and store nothing): no divergence around them. An optional row
// table (rows_in_use[r] < 0: row r is skipped) lets a pipeline quantize only the rows a later GEMM
// reads (MoE's padding rows are never written). A GEMM that quantizes its A tile as it loads it
// calls arch::quantize_fp4_octet on registers (arch/mx_quantize_lanes.hpp: the lanes' part of this
// rule, below the tile loaders); the kernel form here runs the item over a whole tensor.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <hip/hip_runtime.h>  // the platform: HIP on the device, the emulator's shim on the CPU

#include <cstdint>
#include <type_traits>

#include "wavekit/arch/buffer.hpp"
#include "wavekit/arch/codegen_targets.hpp"
#include "wavekit/arch/mx_quantize_lanes.hpp"
#include "wavekit/arch/target.hpp"
#include "wavekit/block/row_octets.hpp"
#include "wavekit/core/half_convert.hpp"
#include "wavekit/core/mx_rounding.hpp"
#include "wavekit/core/numeric_types.hpp"
#include "wavekit/core/platform.hpp"

namespace wavekit::block {

// Elem: fp4_e2m1 (MXFP4) or fp8_e4m3fn (MXFP8).
template <class T, class Elem = fp4_e2m1>
struct quantize_1x32_mx_args {
  static_assert(std::is_same_v<Elem, fp4_e2m1> || std::is_same_v<Elem, fp8_e4m3fn>,
                "quantize_1x32_mx: the elements are fp4_e2m1 (MXFP4) or fp8_e4m3fn (MXFP8)");
  static constexpr int element_bits = std::is_same_v<Elem, fp4_e2m1> ? 4 : 8;
  const T* x;           // [rows][cols], cols a multiple of 32
  std::uint8_t* q;      // [rows][cols * element_bits / 8]: two e2m1 a byte, or one e4m3fn
  std::uint8_t* scale;  // [rows][cols / 32]: e8m0
  int rows, cols;
  const int* rows_in_use = nullptr;  // null, or [rows]: rows with a negative entry are skipped
  int x_ld = 0;                      // elements between x's rows (a view of wider rows); 0: cols

  // Work items (threads) the whole tensor needs.
  WAVEKIT_HOST_DEVICE int items() const { return rows * (cols / arch::mx_quantize_lane_elements); }
};

// Quantizes work item `item` (every lane of a wave calls it; items past the tensor do nothing).
template <class T, class Elem, mx_rounding R = mx_rounding::nearest_even>
WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void quantize_1x32_mx_item(const quantize_1x32_mx_args<T, Elem>& a, int item) {
  static_assert(std::is_same_v<T, bf16> || std::is_same_v<T, fp16>, "quantize_1x32_mx: activations are bf16 or fp16");
  const int per_row = a.cols / arch::mx_quantize_lane_elements;
  const int row = item / per_row, col = item % per_row * arch::mx_quantize_lane_elements;
  const bool active = row < a.rows && (!a.rows_in_use || a.rows_in_use[row] >= 0);
  const std::uint32_t elements = static_cast<std::uint32_t>(a.rows) * static_cast<std::uint32_t>(a.cols);
  const std::uint32_t at = static_cast<std::uint32_t>(row) * a.cols + col;  // used only when active
  static_assert(arch::mx_quantize_lane_elements == octet, "quantize_1x32_mx: a work item is one 16-byte load of x");
  float v[arch::mx_quantize_lane_elements];
  load_octet(a.x, a.rows, a.cols, a.x_ld, row, col, active, v);
  const arch::buffer q = arch::buffer::over(a.q, elements / 8 * a.element_bits);
  std::uint32_t scale;
  if constexpr (std::is_same_v<Elem, fp4_e2m1>) {
    const arch::fp4_octet o = arch::quantize_fp4_octet<Elem, R>(v);
    q.store4(o.bytes, active ? at / 2 : arch::out_of_range), scale = o.scale;
  } else {
    const arch::fp8_octet o = arch::quantize_fp8_octet<Elem, R>(v);
    q.store8(o.bytes, active ? at : arch::out_of_range), scale = o.scale;
  }
  if (col % arch::mx_group == 0)
    arch::buffer::over(a.scale, elements / arch::mx_group)
        .store1(static_cast<std::uint8_t>(scale), active ? at / arch::mx_group : arch::out_of_range);
}

// The whole tensor: launch ceil(items / 256) workgroups of 256 threads.
template <class T, class Elem = fp4_e2m1, mx_rounding R = mx_rounding::nearest_even>
__global__ __launch_bounds__(256) void quantize_1x32_mx_kernel(quantize_1x32_mx_args<T, Elem> a) {
  arch::declare_codegen_targets<0, 8>();
  if constexpr (arch::current_target == arch::target::gfx942)
    __builtin_trap();  // gfx942's pass of a GPU build: no fp4 conversions, another fp8 format
  else
    quantize_1x32_mx_item<T, Elem, R>(a, static_cast<int>(blockIdx.x) * 256 + static_cast<int>(threadIdx.x));
}

}  // namespace wavekit::block
