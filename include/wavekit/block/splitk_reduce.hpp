// Split-K reduction: C (bf16, fp16 or fp32) = sum over splits of the fp32 partials, added in split
// order, so the result is the same run after run (no atomics). Every GEMM's split-K ends with it.
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

// sum[t] = output i + t summed over the splits of partials ([splits][count] fp32), in split order.
WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void sum_partials4(const float* partials, long count, long i, int splits,
                                                      float (&sum)[4]) {
#pragma unroll
  for (int t = 0; t < 4; ++t) sum[t] = 0.0f;
  for (int s = 0; s < splits; ++s) {
    const arch::buffer src = arch::buffer::over(partials + s * count, static_cast<std::uint32_t>(count * 4));
    const arch::u32x4 v = src.load16(static_cast<std::uint32_t>(i * 4));
#pragma unroll
    for (int t = 0; t < 4; ++t) sum[t] += __builtin_bit_cast(float, static_cast<std::uint32_t>(v[t]));
  }
}

// partials: [splits][count] fp32, count % 4 == 0; each thread reduces 4 consecutive outputs.
// (A template so that the kernel can live in a header included by several translation units.)
template <class Out, int Threads = 256>
__global__ __launch_bounds__(Threads) void splitk_reduce(const float* partials, Out* c, long count, int splits) {
  static_assert(std::is_same_v<Out, bf16> || std::is_same_v<Out, fp16> || std::is_same_v<Out, float>,
                "splitk_reduce: C is bf16, fp16 or fp32");
  arch::declare_codegen_targets<0, 8>();
  const long i = (static_cast<long>(blockIdx.x) * Threads + threadIdx.x) * 4;
  if (i >= count) return;
  float sum[4];
  sum_partials4(partials, count, i, splits, sum);
  const arch::buffer dst = arch::buffer::over(c, static_cast<std::uint32_t>(count * sizeof(Out)));
  if constexpr (std::is_same_v<Out, float>) {
    dst.store16(arch::u32x4{__builtin_bit_cast(std::uint32_t, sum[0]), __builtin_bit_cast(std::uint32_t, sum[1]),
                            __builtin_bit_cast(std::uint32_t, sum[2]), __builtin_bit_cast(std::uint32_t, sum[3])},
                static_cast<std::uint32_t>(i * 4));
  } else {
    std::uint32_t h[4];
#pragma unroll
    for (int t = 0; t < 4; ++t)
      h[t] = std::is_same_v<Out, bf16> ? bf16_bits_rne(sum[t])
                                       : __builtin_bit_cast(std::uint16_t, static_cast<_Float16>(sum[t]));
    dst.store8(arch::u32x2{h[0] | (h[1] << 16), h[2] | (h[3] << 16)}, static_cast<std::uint32_t>(i * 2));
  }
}

// The same sum, then an epilogue_fused's inputs, activation and conversion (block/epilogue_fused.hpp)
// on each output: the fusion runs once, on the summed value. n % 4 == 0 (a thread's 4 outputs are
// one row's).
template <class Epilogue, int Threads = 256>
__global__ __launch_bounds__(Threads) void splitk_reduce_fused(const float* partials, typename Epilogue::args p, int m,
                                                               int n, int splits) {
  using Out = typename Epilogue::out_type;
  arch::declare_codegen_targets<0, 8>();
  const long count = static_cast<long>(m) * n;
  const long i = (static_cast<long>(blockIdx.x) * Threads + threadIdx.x) * 4;
  if (i >= count) return;
  float sum[4];
  sum_partials4(partials, count, i, splits, sum);
  const auto row = static_cast<std::uint32_t>(i / n), col = static_cast<std::uint32_t>(i % n);
  std::uint32_t bits[4];
#pragma unroll
  for (int t = 0; t < 4; ++t) {
    float x[Epilogue::slots];
    if constexpr (Epilogue::inputs > 0)
      Epilogue::for_each_input([&]<int q, class In>() { x[q] = In::at_output(p.d[q], m, n, row, col + t); });
    bits[t] = Epilogue::finish(sum[t], x, p);
  }
  const arch::buffer dst = arch::buffer::over(p.c, static_cast<std::uint32_t>(count * sizeof(Out)));
  if constexpr (sizeof(Out) == 4)
    dst.store16(arch::u32x4{bits[0], bits[1], bits[2], bits[3]}, static_cast<std::uint32_t>(i * 4));
  else if constexpr (sizeof(Out) == 2)
    dst.store8(arch::u32x2{bits[0] | (bits[1] << 16), bits[2] | (bits[3] << 16)}, static_cast<std::uint32_t>(i * 2));
  else
    dst.store4(bits[0] | (bits[1] << 8) | (bits[2] << 16) | (bits[3] << 24), static_cast<std::uint32_t>(i));
}

// Launches the reduction of `splits` partial sums of `count` outputs on `stream`.
template <class Out>
hipError_t launch_splitk_reduce(const float* partials, Out* c, long count, int splits, hipStream_t stream) {
  hipLaunchKernelGGL(splitk_reduce<Out>, dim3(static_cast<unsigned>(ceil_div(count / 4, 256L))), dim3(256), 0, stream,
                     partials, c, count, splits);
  return hipGetLastError();
}

// Launches the fused reduction of `splits` partials of an m x n output in `partials`.
template <class Epilogue>
hipError_t launch_splitk_reduce_fused(const float* partials, const typename Epilogue::args& p, int m, int n, int splits,
                                      hipStream_t stream) {
  const long count = static_cast<long>(m) * n;
  hipLaunchKernelGGL(splitk_reduce_fused<Epilogue>, dim3(static_cast<unsigned>(ceil_div(count / 4, 256L))), dim3(256),
                     0, stream, partials, p, m, n, splits);
  return hipGetLastError();
}

// A GEMM launch's split-K cut: K steps per split, and the splits that get any (the last may get
// fewer steps), for `splits` requested over `steps` K steps.
struct splitk_cut {
  int per_split, used_splits;
  static splitk_cut of(int steps, int splits) {
    const int per = ceil_div(steps, splits);
    return {per, ceil_div(steps, per)};
  }
};

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

// The same with the plain reduction of `used_splits` partials in `workspace` into the m x n output c.
template <class Out>
status finish_splitk_launch(text_ref name, bool split, const void* workspace, Out* c, int m, int n, int used_splits,
                            hipStream_t stream) {
  return finish_launch_then_reduce(name, split, stream, [&](hipStream_t s) {
    return launch_splitk_reduce(static_cast<const float*>(workspace), c, static_cast<long>(m) * n, used_splits, s);
  });
}

}  // namespace wavekit::block
