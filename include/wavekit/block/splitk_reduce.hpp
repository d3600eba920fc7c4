// Split-K reduction: C (bf16, fp16 or fp32) = sum over splits of the fp32 partials, added in split
// order, so the result is the same run after run (no atomics). Every GEMM's split-K ends with it;
// with an epilogue_fused it runs the fusion after the sum (splitk_reduce_fused).
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <hip/hip_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include "wavekit/arch/buffer.hpp"
#include "wavekit/arch/codegen_targets.hpp"
#include "wavekit/block/epilogue_fused.hpp"
#include "wavekit/block/splitk_rule.hpp"
#include "wavekit/core/float_codec.hpp"
#include "wavekit/core/math.hpp"
#include "wavekit/core/numeric_types.hpp"
#include "wavekit/core/platform.hpp"
#include "wavekit/core/status.hpp"

namespace wavekit::block {

// Where a split-K reduction's outputs lie: `batches` m x n outputs (C), rows ldc apart, batch_stride
// apart. The partials have the same layout once a split, split_stride() apart
// (block/gemm_epilogue.hpp).
struct reduce_view {
  int m, n, ldc, batches = 1;
  long batch_stride = 0;

  static reduce_view packed(int m, int n) { return {m, n, n, 1, 0}; }
  WAVEKIT_HOST_DEVICE long extent() const { return view_extent(m, n, ldc); }  // one GEMM's C
  WAVEKIT_HOST_DEVICE long split_stride() const { return (batches - 1) * batch_stride + extent(); }
};

// The outputs of a problem p (core/gemm_view.hpp: m, n, strides, batch).
template <class Problem>
reduce_view reduce_view_of(const Problem& p) {
  return {p.m, p.n, static_cast<int>(p.views().ldc), p.batch.count, static_cast<long>(p.batch.c)};
}

// sum[t] = output at + t summed over the splits of partials (each split's `extent` outputs
// split_stride after the previous split's), in split order.
WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void sum_partials4(const float* partials, long split_stride, std::uint32_t extent,
                                                      std::uint32_t at, int splits, float (&sum)[4]) {
#pragma unroll
  for (int t = 0; t < 4; ++t) sum[t] = 0.0f;
  for (int s = 0; s < splits; ++s) {
    const arch::buffer src = arch::buffer::over(partials + s * split_stride, extent * 4);
    const arch::u32x4 v = src.load16(at * 4);
#pragma unroll
    for (int t = 0; t < 4; ++t) sum[t] += __builtin_bit_cast(float, static_cast<std::uint32_t>(v[t]));
  }
}

// The reduction of a block of Threads threads, 4 consecutive outputs of a row each (n % 4 == 0), GEMM
// blockIdx.y of the batch: the partials' sum in split order, then the epilogue_fused's inputs,
// activation and conversion (block/epilogue_fused.hpp) on each output: the fusion runs once, on the
// summed value (the plain store's: only the conversion).
template <class Epilogue, int Threads>
WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void reduce_partials(const float* partials, typename Epilogue::args p,
                                                        const reduce_view& v, int splits) {
  using Out = typename Epilogue::out_type;
  const long count = static_cast<long>(v.m) * v.n;
  const long i = (static_cast<long>(blockIdx.x) * Threads + threadIdx.x) * 4;
  if (i >= count) return;
  const long c_offset = static_cast<long>(blockIdx.y) * v.batch_stride;
  p = Epilogue::place(p, c_offset, 0);  // C and the element inputs at the GEMM's place
  const auto row = static_cast<std::uint32_t>(i / v.n), col = static_cast<std::uint32_t>(i % v.n);
  const auto extent = static_cast<std::uint32_t>(v.extent());
  const std::uint32_t at = row * static_cast<std::uint32_t>(v.ldc) + col;
  float sum[4];
  sum_partials4(partials + c_offset, v.split_stride(), extent, at, splits, sum);
  std::uint32_t bits[4];
#pragma unroll
  for (int t = 0; t < 4; ++t) {
    float x[Epilogue::slots];
    if constexpr (Epilogue::inputs > 0)
      Epilogue::for_each_input([&]<int q, class In>() { x[q] = In::at_output(p.d[q], v.m, v.n, v.ldc, row, col + t); });
    bits[t] = Epilogue::finish(sum[t], x, p);
  }
  const arch::buffer dst = arch::buffer::over(p.c, extent * static_cast<std::uint32_t>(sizeof(Out)));
  if constexpr (sizeof(Out) == 4)
    dst.store16(arch::u32x4{bits[0], bits[1], bits[2], bits[3]}, at * 4);
  else if constexpr (sizeof(Out) == 2)
    dst.store8(arch::u32x2{bits[0] | (bits[1] << 16), bits[2] | (bits[3] << 16)}, at * 2);
  else
    dst.store4(bits[0] | (bits[1] << 8) | (bits[2] << 16) | (bits[3] << 24), at);
}

// C (bf16, fp16 or fp32) = the sum of the partials. Grid: (outputs / (4 Threads), batches).
// (A template so that the kernel can live in a header included by several translation units.)
template <class Out, int Threads = 256>
__global__ __launch_bounds__(Threads) void splitk_reduce(const float* partials, Out* c, reduce_view v, int splits) {
  static_assert(std::is_same_v<Out, bf16> || std::is_same_v<Out, fp16> || std::is_same_v<Out, float>,
                "splitk_reduce: C is bf16, fp16 or fp32");
  arch::declare_codegen_targets<0, 8>();
  reduce_partials<epilogue_store<Out>, Threads>(partials, epilogue_args<Out>{c, nullptr}, v, splits);
}

// The same sum, then an epilogue_fused's whole fusion.
template <class Epilogue, int Threads = 256>
__global__ __launch_bounds__(Threads) void splitk_reduce_fused(const float* partials, typename Epilogue::args p,
                                                               reduce_view v, int splits) {
  arch::declare_codegen_targets<0, 8>();
  reduce_partials<Epilogue, Threads>(partials, p, v, splits);
}

inline dim3 splitk_reduce_grid(const reduce_view& v, int outputs_per_thread = 4, int threads = 256) {
  const long count = static_cast<long>(v.m) * v.n;
  return dim3(static_cast<unsigned>(ceil_div(count / outputs_per_thread, static_cast<long>(threads))),
              static_cast<unsigned>(v.batches));
}

// Launches the reduction of `splits` partial sums of the outputs of v on `stream`.
template <class Out>
hipError_t launch_splitk_reduce(const float* partials, Out* c, const reduce_view& v, int splits, hipStream_t stream) {
  hipLaunchKernelGGL(splitk_reduce<Out>, splitk_reduce_grid(v), dim3(256), 0, stream, partials, c, v, splits);
  return hipGetLastError();
}

// Launches the fused reduction of `splits` partials of the outputs of v.
template <class Epilogue>
hipError_t launch_splitk_reduce_fused(const float* partials, const typename Epilogue::args& p, const reduce_view& v,
                                      int splits, hipStream_t stream) {
  hipLaunchKernelGGL(splitk_reduce_fused<Epilogue>, splitk_reduce_grid(v), dim3(256), 0, stream, partials, p, v,
                     splits);
  return hipGetLastError();
}

// The checks every GEMM launcher makes of an explicit number of splits and of the workspace
// their fp32 partials need (`need` bytes, 0 without split-K). `name` names the config, `problem`
// the problem, `steps_name` the unit K is split in.
inline status check_splitk_launch(text_ref name, text_ref problem, int splits, int steps, std::size_t need,
                                  const void* workspace, std::size_t workspace_bytes,
                                  const char* steps_name = "K steps") {
  if (status s = check_splits(name, problem, splits, steps, steps_name); !s.ok()) return s;
  if (need > 0 && !workspace)
    return {status_code::null_pointer, name + " on " + problem + ": argument workspace is null and split-K needs " +
                                           std::to_string(need) + " bytes of it"};
  if (need > 0 && workspace_bytes < need)
    return {status_code::workspace_too_small, name + " on " + problem + ": split-K needs a workspace of " +
                                                  std::to_string(need) + " bytes (have " +
                                                  std::to_string(workspace_bytes) + ")"};
  if (need > 0 && reinterpret_cast<std::uintptr_t>(workspace) % 16)
    return {status_code::bad_alignment,
            name + " on " + problem + ": argument workspace must be 16-byte aligned (16-byte vector stores)"};
  return status::success();
}

// After a GEMM's main kernel was launched: its launch status, then (with split-K) `reduce(stream)`,
// which launches the reduction and returns its hipError_t.
template <class Reduce>
status finish_launch_then_reduce(text_ref name, bool split, hipStream_t stream, Reduce&& reduce) {
  if (hipError_t e = hipGetLastError(); e != hipSuccess)
    return {status_code::launch_failed, name + ": " + hipGetErrorString(e)};
  if (split) {
    if (hipError_t e = reduce(stream); e != hipSuccess)
      return {status_code::launch_failed, name + " (split-K reduction): " + hipGetErrorString(e)};
  }
  return status::success();
}

// The same with the plain reduction of `used_splits` partials in `workspace` into the outputs of v at c.
template <class Out>
status finish_splitk_launch(text_ref name, bool split, const void* workspace, Out* c, const reduce_view& v,
                            int used_splits, hipStream_t stream) {
  return finish_launch_then_reduce(name, split, stream, [&](hipStream_t s) {
    return launch_splitk_reduce(static_cast<const float*>(workspace), c, v, used_splits, s);
  });
}

}  // namespace wavekit::block
