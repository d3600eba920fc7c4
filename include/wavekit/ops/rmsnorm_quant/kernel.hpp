// The residual + RMSNorm + fp8 kernel (ops/rmsnorm_quant/problem.hpp states the op) and its
// launcher: a composition of the row parts.
//
//   block/row_octets.hpp        a row over the workgroup, 8 elements a lane an item; the row sum
//   block/quantize_fp8_row.hpp  the fp8 output: per tensor or 1x128 groups, either storage order
//
// A workgroup of 512 threads takes rows blockIdx.x, + gridDim.x, ... (ops/rmsnorm_quant/plan.hpp).
// Its lanes load their weight octets once. Per row: x (and the residual) are loaded, added and
// the sum stored back, its squares summed per lane; one workgroup sum; then from the same
// registers the normalized, weighted octets are quantized and stored. Each byte of x, the residual
// and the outputs moves once; the row never leaves registers.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <hip/hip_runtime.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>

#include "wavekit/arch/buffer.hpp"
#include "wavekit/arch/codegen_targets.hpp"
#include "wavekit/arch/lds.hpp"
#include "wavekit/arch/matrix_formats.hpp"
#include "wavekit/block/quantize_fp8_row.hpp"
#include "wavekit/block/row_octets.hpp"
#include "wavekit/core/half_convert.hpp"
#include "wavekit/ops/rmsnorm_quant/plan.hpp"
#include "wavekit/ops/rmsnorm_quant/problem.hpp"

namespace wavekit::ops::rmsnorm_quant {

using row = block::row_octets<row_threads, max_hidden / (row_threads * block::octet)>;

// The kernel's promises to the codegen report: registers for 4 waves a SIMD (two workgroups a
// compute unit; the weight's and the row's octets, 32 VGPRs, stay live across the row sum), and the
// row loop's length for the forms the report compiles (codegen/instances/rmsnorm_quant.hip): the
// report's figures when they were set (the larger of gfx942's and gfx950's) with about 3% of room,
// so that a change which lengthens the loop fails the isa test; 0, no promise, for the others. A
// bf16 row costs more than an fp16 one: its roundings are integer sequences with a NaN branch
// (core/float_codec.hpp), fp16's one conversion instruction.
inline constexpr int min_waves_per_simd = 4;
template <class T, scale_granularity Scaling, layout Order>
inline constexpr int loop_budget = 0;
template <>
inline constexpr int loop_budget<fp16, scale_granularity::tensor, layout::k_contiguous> = 955;
template <>
inline constexpr int loop_budget<bf16, scale_granularity::group_1x128, layout::k_contiguous> = 2480;
template <>
inline constexpr int loop_budget<bf16, scale_granularity::group_1x128, layout::mn_contiguous> = 2530;

template <class T, class Fp8>
struct params {
  const T* x;
  T* residual;
  const T* weight;
  block::fp8_rows<Fp8> out;
  float eps;
  int tokens, hidden;
  int x_stride, residual_stride;  // elements between token rows (0 resolved: hidden when packed)
};

template <class T, class Fp8, scale_granularity Scaling, layout Order, residual_mode Residual>
__global__ __launch_bounds__(row_threads)
    WAVEKIT_MIN_WAVES_PER_SIMD(min_waves_per_simd) void rmsnorm_quant_kernel(params<T, Fp8> p) {
  static_assert(std::is_same_v<T, bf16> || std::is_same_v<T, fp16>, "rmsnorm_quant: x is bf16 or fp16");
  arch::declare_codegen_targets<row::lds_floats * 4, min_waves_per_simd, 0, loop_budget<T, Scaling, Order>>();
  if constexpr (!arch::reads_fp8<Fp8>(arch::current_target) && arch::current_target != arch::target::host) {
    __builtin_trap();  // the converter writes the target's own fp8 format, not Fp8
  } else {
    WAVEKIT_LDS_ARRAY(float, lds, row::lds_floats);
    const int tid = static_cast<int>(threadIdx.x);
    // Each buffer covers its view's extent, (tokens - 1) * stride + hidden elements (below 2^31 bytes).
    const std::uint32_t last_row = static_cast<std::uint32_t>(p.tokens - 1);
    const arch::buffer x = arch::buffer::over(p.x, (last_row * p.x_stride + p.hidden) * 2),
                       r = arch::buffer::over(p.residual, (last_row * p.residual_stride + p.hidden) * 2);
    const auto out = block::fp8_row_quantizer<Fp8, Scaling, Order>::over(p.out);
    arch::u32x4 weight[row::items];
    {
      const arch::buffer w = arch::buffer::over(p.weight, static_cast<std::uint32_t>(p.hidden) * 2);
#pragma unroll
      for (int i = 0; i < row::items; ++i) {
        const int col = row::column(i, tid);
        weight[i] = w.load16(col < p.hidden ? static_cast<std::uint32_t>(col) * 2 : arch::out_of_range);
      }
    }
    // Items a lane has in this row (the same on every lane): a shorter row skips the rest with a
    // scalar branch instead of loading zeros.
    const int items = (p.hidden / block::octet + row_threads - 1) / row_threads;
    int parity = 0;
    for (int t = static_cast<int>(blockIdx.x); t < p.tokens; t += static_cast<int>(gridDim.x), parity ^= 1) {
      arch::u32x4 xs[row::items];  // x + residual, rounded to T
      float squares = 0.0f;
      // The row's start in the uniform offsets (scalar registers): x and the residual share one
      // per-lane offset, the column's, whatever their strides.
      const std::uint32_t x_row = static_cast<std::uint32_t>(t) * p.x_stride * 2,
                          r_row = static_cast<std::uint32_t>(t) * p.residual_stride * 2;
#pragma unroll
      for (int i = 0; i < row::items; ++i) {
        if (i >= items) break;
        const int col = row::column(i, tid);
        const std::uint32_t at = col < p.hidden ? static_cast<std::uint32_t>(col) * 2 : arch::out_of_range;
        xs[i] = x.load16(at, x_row);
        float v[block::octet];
        block::widen_octet<T>(xs[i], v);
        if constexpr (Residual == residual_mode::add) {
          float res[block::octet];
          block::widen_octet<T>(r.load16(at, r_row), res);
#pragma unroll
          for (int h = 0; h < block::octet; ++h) v[h] += res[h];
          xs[i] = block::narrow_octet<T>(v);
          r.store16(xs[i], at, r_row);
          block::widen_octet<T>(xs[i], v);
        }
#pragma unroll
        for (int h = 0; h < block::octet; ++h) squares += v[h] * v[h];  // exact products: no fma question
      }
      const float rstd = 1.0f / sqrtf(row::row_sum(squares, lds, parity, tid) / static_cast<float>(p.hidden) + p.eps);
#pragma unroll
      for (int i = 0; i < row::items; ++i) {
        if (i >= items) break;
        const int col = row::column(i, tid);
        float v[block::octet], w[block::octet];
        block::widen_octet<T>(xs[i], v);
        block::widen_octet<T>(weight[i], w);
#pragma unroll
        for (int h = 0; h < block::octet; ++h) {
          const float normed = widen_to_float(T::from_bits(half_bits_rne<T>(v[h] * rstd)));
          v[h] = widen_to_float(T::from_bits(half_bits_rne<T>(normed * w[h])));
        }
        out.put(v, t, col, col < p.hidden);
      }
    }
  }
}

// f(out_scales, order, residual) with each as a compile-time constant (std::integral_constant).
template <class F>
decltype(auto) with_variant(const problem& p, F&& f) {
  auto by_residual = [&](auto s, auto o) {
    return p.residual == residual_mode::add ? f(s, o, std::integral_constant<residual_mode, residual_mode::add>{})
                                            : f(s, o, std::integral_constant<residual_mode, residual_mode::none>{});
  };
  auto by_order = [&](auto s) {
    return p.order == layout::k_contiguous ? by_residual(s, std::integral_constant<layout, layout::k_contiguous>{})
                                           : by_residual(s, std::integral_constant<layout, layout::mn_contiguous>{});
  };
  return p.out_scales == scale_granularity::tensor
             ? by_order(std::integral_constant<scale_granularity, scale_granularity::tensor>{})
             : by_order(std::integral_constant<scale_granularity, scale_granularity::group_1x128>{});
}

// Validates, then launches on `stream` for a device of target `device`. The fp8 format is not
// checked here (the one-call API does it: ops/rmsnorm_quant.hpp).
template <class T, class Fp8>
status launch(const problem& p, const args<T, Fp8>& a, arch::target device, hipStream_t stream) {
  if (status s = validate(p, a); !s.ok()) return s;
  if (p.tokens == 0) return status::success();  // an empty problem launches nothing
  // The strides with 0 resolved (validate: each below 2^31; the residual's only checked, and used,
  // with residual_mode::add).
  const bool add = p.residual == residual_mode::add;
  const params<T, Fp8> kp{a.x,
                          a.residual,
                          a.weight,
                          {a.q, a.q_scale, a.scale, p.tokens, p.hidden, static_cast<int>(p.q_view().ld())},
                          a.eps,
                          p.tokens,
                          p.hidden,
                          static_cast<int>(p.x_view().ld()),
                          add ? static_cast<int>(p.residual_view().ld()) : p.hidden};
  with_variant(p, [&](auto s, auto o, auto r) {
    hipLaunchKernelGGL((rmsnorm_quant_kernel<T, Fp8, decltype(s)::value, decltype(o)::value, decltype(r)::value>),
                       dim3(static_cast<unsigned>(workgroups(p, device))), dim3(row_threads), 0, stream, kp);
  });
  if (hipError_t e = hipGetLastError(); e != hipSuccess)
    return {status_code::launch_failed, "rmsnorm_quant " + p.str() + ": " + hipGetErrorString(e)};
  return status::success();
}

}  // namespace wavekit::ops::rmsnorm_quant
