// Split-K reduction: C (bf16) = sum over splits of the fp32 partials, added in split order, so
// the result is the same run after run (no atomics).
#pragma once

#include <hip/hip_runtime.h>

#include "wavekit/arch/buffer.hpp"
#include "wavekit/arch/codegen_targets.hpp"
#include "wavekit/core/float_codec.hpp"
#include "wavekit/core/numeric_types.hpp"

namespace wavekit::block {

// partials: [splits][count] fp32, count % 4 == 0; each thread reduces 4 consecutive outputs.
// (A template so that the kernel can live in a header included by several translation units.)
template <int Threads = 256>
__global__ __launch_bounds__(Threads) void splitk_reduce_bf16(const float* partials, bf16* c, long count, int splits) {
  arch::declare_codegen_targets<0, 8>();
  const long i = (static_cast<long>(blockIdx.x) * Threads + threadIdx.x) * 4;
  if (i >= count) return;
  float sum[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  for (int s = 0; s < splits; ++s) {
    const arch::buffer src = arch::buffer::over(partials + s * count, static_cast<std::uint32_t>(count * 4));
    const arch::u32x4 v = src.load16(static_cast<std::uint32_t>(i * 4));
#pragma unroll
    for (int t = 0; t < 4; ++t) sum[t] += __builtin_bit_cast(float, static_cast<std::uint32_t>(v[t]));
  }
  const arch::buffer dst = arch::buffer::over(c, static_cast<std::uint32_t>(count * 2));
  const arch::u32x2 packed{bf16_bits_rne(sum[0]) | (bf16_bits_rne(sum[1]) << 16),
                           bf16_bits_rne(sum[2]) | (bf16_bits_rne(sum[3]) << 16)};
  dst.store8(packed, static_cast<std::uint32_t>(i * 2));
}

}  // namespace wavekit::block
