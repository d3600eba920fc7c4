// The SwiGLU + fp8 kernel (ops/swiglu_quant/problem.hpp states the op) and its launcher: a
// composition of the row parts.
//
//   block/row_octets.hpp        a row over the workgroup, 8 elements a lane an item
//   core/silu.hpp               SiLU(gate) * up, the definition MoE's stage-1 epilogue uses
//   block/quantize_fp8_row.hpp  the fp8 output: per tensor or 1x128 groups, either storage order
//
// A workgroup of 256 threads takes rows blockIdx.x, + gridDim.x, ... (the grid is the model's
// choice: ops/swiglu_quant/plan.hpp). An item loads 8 gate and the 8 matching up elements, gates
// them in fp32 and quantizes the 8 products where they are: each byte of x is read once, each
// byte of q and its scales written once.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <hip/hip_runtime.h>

#include <cstdint>
#include <string>
#include <type_traits>

#include "wavekit/arch/buffer.hpp"
#include "wavekit/arch/codegen_targets.hpp"
#include "wavekit/arch/device_math.hpp"
#include "wavekit/arch/matrix_formats.hpp"
#include "wavekit/block/quantize_fp8_row.hpp"
#include "wavekit/block/row_octets.hpp"
#include "wavekit/core/silu.hpp"
#include "wavekit/ops/swiglu_quant/plan.hpp"
#include "wavekit/ops/swiglu_quant/problem.hpp"

namespace wavekit::ops::swiglu_quant {

using row = block::row_octets<row_threads, 1>;

// The kernel's promises to the codegen report: 6 waves a SIMD (nothing stays live across items;
// the SiLU's exponentials and the divisions of 8 elements in flight take about 64 VGPRs), and the
// row loop's length (a row: its items) for the forms the report compiles (codegen/instances/swiglu_quant.hip): the
// report's figures when they were set with about 3% of room; 0, no promise, for the others.
inline constexpr int min_waves_per_simd = 6;
template <class T, scale_granularity Scaling, layout Order>
inline constexpr int loop_budget = 0;
template <>
inline constexpr int loop_budget<fp16, scale_granularity::tensor, layout::k_contiguous> = 430;
template <>
inline constexpr int loop_budget<bf16, scale_granularity::group_1x128, layout::k_contiguous> = 515;
template <>
inline constexpr int loop_budget<bf16, scale_granularity::group_1x128, layout::mn_contiguous> = 527;

template <class T, class Fp8>
struct params {
  const T* x;
  block::fp8_rows<Fp8> out;
  int tokens, d;
  int x_stride;  // elements between x's token rows (0 resolved: 2 * d when packed)
};

template <class T, class Fp8, scale_granularity Scaling, layout Order>
__global__ __launch_bounds__(row_threads)
    WAVEKIT_MIN_WAVES_PER_SIMD(min_waves_per_simd) void swiglu_quant_kernel(params<T, Fp8> p) {
  static_assert(std::is_same_v<T, bf16> || std::is_same_v<T, fp16>, "swiglu_quant: x is bf16 or fp16");
  arch::declare_codegen_targets<0, min_waves_per_simd, 0, loop_budget<T, Scaling, Order>>();
  if constexpr (!arch::reads_fp8<Fp8>(arch::current_target) && arch::current_target != arch::target::host) {
    __builtin_trap();  // the converter writes the target's own fp8 format, not Fp8
  } else {
    const int tid = static_cast<int>(threadIdx.x);
    // The buffer covers x's view, (tokens - 1) * x_stride + 2 * d elements (below 2^31 bytes).
    const arch::buffer x =
        arch::buffer::over(p.x, (static_cast<std::uint32_t>(p.tokens - 1) * p.x_stride + p.d * 2) * 2);
    const auto out = block::fp8_row_quantizer<Fp8, Scaling, Order>::over(p.out);
    // Items of a row (the same on every lane: the 1x128 amax's shuffles never diverge).
    const int items = (p.d / block::octet + row_threads - 1) / row_threads;
    for (int t = static_cast<int>(blockIdx.x); t < p.tokens; t += static_cast<int>(gridDim.x)) {
      // The gate's and the up's starts in the uniform offsets (scalar registers): the two loads
      // share one per-lane offset, the column's.
      const std::uint32_t gate_row = static_cast<std::uint32_t>(t) * p.x_stride * 2, up_row = gate_row + p.d * 2;
      for (int i = 0; i < items; ++i) {
        const int col = row::column(i, tid);
        const bool in = col < p.d;
        const std::uint32_t at = in ? static_cast<std::uint32_t>(col) * 2 : arch::out_of_range;
        float gate[block::octet], v[block::octet];
        block::widen_octet<T>(x.load16(at, gate_row), gate);
        block::widen_octet<T>(x.load16(at, up_row), v);
#pragma unroll
        for (int h = 0; h < block::octet; ++h) v[h] = silu_times(gate[h], v[h], arch::device_exp{});
        out.put(v, t, col, in);
      }
    }
  }
}

// f(out_scales, order) with each as a compile-time constant (std::integral_constant).
template <class F>
decltype(auto) with_variant(const problem& p, F&& f) {
  auto by_order = [&](auto s) {
    return p.order == layout::k_contiguous ? f(s, std::integral_constant<layout, layout::k_contiguous>{})
                                           : f(s, std::integral_constant<layout, layout::mn_contiguous>{});
  };
  return p.out_scales == scale_granularity::tensor
             ? by_order(std::integral_constant<scale_granularity, scale_granularity::tensor>{})
             : by_order(std::integral_constant<scale_granularity, scale_granularity::group_1x128>{});
}

// Validates, then launches on `stream` workgroups(p, device) workgroups (plan.hpp). The fp8 format
// is not checked here (the one-call API does it: ops/swiglu_quant.hpp).
template <class T, class Fp8>
status launch(const problem& p, const args<T, Fp8>& a, arch::target device, hipStream_t stream) {
  if (status s = validate(p, a); !s.ok()) return s;
  if (p.tokens == 0) return status::success();  // an empty problem launches nothing
  // The strides with 0 resolved (validate: each below 2^31).
  const params<T, Fp8> kp{a.x,
                          {a.q, a.q_scale, a.scale, p.tokens, p.d, static_cast<int>(p.q_view().ld())},
                          p.tokens,
                          p.d,
                          static_cast<int>(p.x_view().ld())};
  with_variant(p, [&](auto s, auto o) {
    hipLaunchKernelGGL((swiglu_quant_kernel<T, Fp8, decltype(s)::value, decltype(o)::value>),
                       dim3(static_cast<unsigned>(workgroups(p, device))), dim3(row_threads), 0, stream, kp);
  });
  if (hipError_t e = hipGetLastError(); e != hipSuccess)
    return {status_code::launch_failed, "swiglu_quant " + p.str() + ": " + hipGetErrorString(e)};
  return status::success();
}

}  // namespace wavekit::ops::swiglu_quant
