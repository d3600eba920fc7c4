// The epilogue slot with an fp8 C quantized 1x128 in the epilogue (DeepSeek-V3's activation
// blocks: one fp32 scale per row per 128 columns), by block/quantize_1x128.hpp's rule, bit for bit:
//
//   y     = epilogue_fused<.., Act, Inputs...>'s value (inputs in order, then the activation)
//   scale = amax of the group's y / max_finite(Fp8) (1 for an all-zero group; a NaN is never the amax)
//   q     = saturate(y / scale)
//
// C [M][N] and its scales [M][N / 128] in the k_contiguous order the block-scaled GEMM reads as A
// (ops/gemm_fp8_blockscale/problem.hpp). A group's 128 columns lie in several waves of the block:
// each wave takes its rows' maxima over its own columns (across its tiles, then the lanes of a row:
// xor shuffles), leaves them in LDS, and after a barrier reads its group's. So this is a block
// epilogue (its waves meet in LDS); N must be a multiple of 128 and the block's N tile too. C and
// its scales are packed and one GEMM's (an op offering it keeps ldc = N and no batch: its ldc is not read).
//
// With split-K the main kernel writes the scaled partials as every epilogue does and
// splitk_reduce_fused_1x128 (below) sums them, then runs the same value and
// quantize_1x128_octet on 8 outputs a thread: the same rule on the summed value.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <hip/hip_runtime.h>  // the platform: HIP on the device, the emulator's shim on the CPU

#include <cstdint>
#include <tuple>

#include "wavekit/arch/buffer.hpp"
#include "wavekit/arch/codegen_targets.hpp"
#include "wavekit/arch/fp8_convert.hpp"
#include "wavekit/arch/lds.hpp"
#include "wavekit/block/epilogue_fused.hpp"
#include "wavekit/block/gemm_epilogue.hpp"
#include "wavekit/block/quantize_1x128.hpp"
#include "wavekit/block/splitk_reduce.hpp"
#include "wavekit/block/tile_scheduler.hpp"
#include "wavekit/core/math.hpp"
#include "wavekit/core/numeric_types.hpp"
#include "wavekit/core/platform.hpp"

namespace wavekit::block {

template <class Fp8, int Inputs>
struct fused_1x128_args : epilogue_args<Fp8> {
  input_args d[Inputs > 0 ? Inputs : 1];  // Inputs' order
  float* scales;                          // [M][N / 128]
};

// f(i, r) for each accumulator row of a wave: register r of MFMA row tile i.
template <class Mma, class F>
WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void for_each_row(F&& f) {
#pragma unroll
  for (int i = 0; i < Mma::tiles_m; ++i)
#pragma unroll
    for (int r = 0; r < Mma::regs; ++r) f(i, r);
}

template <class Fp8, activation Act, class... Inputs>
struct epilogue_fused_1x128 {
  static_assert(is_fp8_v<Fp8>, "epilogue_fused_1x128: C is fp8 (the target's format)");
  using values = epilogue_fused<float, Act, Inputs...>;  // the inputs and the activation
  using out_type = Fp8;
  using args = fused_1x128_args<Fp8, sizeof...(Inputs)>;
  static constexpr bool exchanges_between_waves = true;
  static constexpr int inputs = values::inputs, slots = values::slots;

  // The rows' maxima: [wave][row of the wave] fp32.
  template <class Cfg, class Mma>
  static constexpr int lds_bytes = Cfg::waves * Cfg::wave_m * 4;

  template <class Cfg, class Mma, class Acc, class Transform>
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE static void store(const args& p, int m, int n,
                                                       const Acc (&acc)[Mma::tiles_m][Mma::tiles_n], const gemm_tile& t,
                                                       const wave_place& at, Transform transform) {
    static_assert(Cfg::block_n % quantize_group == 0 && quantize_group % Cfg::wave_n == 0,
                  "epilogue_fused_1x128: the N tile holds whole 128-column groups, each wave part of one");
    static_assert(Mma::tile_m == Mma::m, "epilogue_fused_1x128: square MFMA tiles (a row's lanes are m apart)");
    const int row0 = t.m0 + at.wave_row, col0 = t.n0 + at.wave_col;
    const std::uint32_t outputs = static_cast<std::uint32_t>(m) * static_cast<std::uint32_t>(n);
    if (p.partials) {  // split-K: the scaled partials; splitk_reduce_fused_1x128 runs the rest
      const arch::buffer part = arch::buffer::over(p.partials, outputs * 4);
      for_each_output<Mma>(m, n, n, row0, col0, at.lane, [&](int i, int j, int r, std::uint32_t o) {
        const float a = acc[i][j][r];
        part.store4(__builtin_bit_cast(std::uint32_t, transform(i, j, r, a)), o * 4);
      });
      return;
    }
    std::tuple<typename Inputs::template lane_values<Mma>...> lanes;
    if constexpr (sizeof...(Inputs) > 0)
      values::for_each_input([&]<int q, class In>() { std::get<q>(lanes).load(p.d[q], m, n, n, row0, col0, at.lane); });
    // The values, and each row's amax over the wave's columns (tiles, then the row's m lanes).
    float y[Mma::tiles_m][Mma::tiles_n][Mma::regs], amax[Mma::tiles_m][Mma::regs];
    for_each_output<Mma>(m, n, n, row0, col0, at.lane, [&](int i, int j, int r, std::uint32_t o) {
      float x[slots];
      values::for_each_input([&]<int q, class In>() { x[q] = std::get<q>(lanes).at(i, j, r, o); });
      const float a = acc[i][j][r];
      y[i][j][r] = values::value(transform(i, j, r, a), x);
    });
    for_each_row<Mma>([&](int i, int r) {
      float most = 0.0f;
#pragma unroll
      for (int j = 0; j < Mma::tiles_n; ++j) {
        const float v = y[i][j][r] < 0.0f ? -y[i][j][r] : y[i][j][r];
        most = v > most ? v : most;  // a NaN is not the amax; it stays NaN in its own byte
      }
#pragma unroll
      for (int offset = Mma::m / 2; offset > 0; offset /= 2) {
        const float other = __shfl_xor(most, offset);
        most = other > most ? other : most;
      }
      amax[i][r] = most;
    });
    // Every wave is done with the K loop's tiles, then the maxima meet in LDS.
    constexpr int waves_per_group = quantize_group / Cfg::wave_n;
    const int wave = (at.wave_row / Cfg::wave_m) * Cfg::waves_n + at.wave_col / Cfg::wave_n;
    float* maxima = reinterpret_cast<float*>(at.lds);
    auto row_in_wave = [&](int i, int r) { return i * Mma::tile_m + Mma::acc_row(at.lane, r); };
    __syncthreads();
    for_each_row<Mma>([&](int i, int r) {  // one lane of each row writes (every lane calls: EXEC-masked)
      arch::lds_store<4>(maxima + wave * Cfg::wave_m + row_in_wave(i, r), __builtin_bit_cast(std::uint32_t, amax[i][r]),
                         Mma::acc_col(at.lane) == 0);
    });
    __syncthreads();
    const int first = wave - wave % waves_per_group;  // the group's first wave (same wave row)
    const arch::buffer c = arch::buffer::over(p.c, outputs);
    const arch::buffer scales = arch::buffer::over(p.scales, outputs / quantize_group * 4);
    const std::uint32_t groups = static_cast<std::uint32_t>(n) / quantize_group;
    for_each_row<Mma>([&](int i, int r) {
      float most = 0.0f;
#pragma unroll
      for (int w = 0; w < waves_per_group; ++w) {
        const float other =
            __builtin_bit_cast(float, arch::lds_load<4>(maxima + (first + w) * Cfg::wave_m + row_in_wave(i, r)));
        most = other > most ? other : most;
      }
      amax[i][r] = most > 0.0f ? most / element_limits<Fp8>::max_finite : 1.0f;  // the scale
    });
    for_each_output<Mma>(m, n, n, row0, col0, at.lane, [&](int i, int j, int r, std::uint32_t o) {
      c.store1(static_cast<std::uint8_t>(arch::fp8_bits_saturating<Fp8>(y[i][j][r] / amax[i][r])), o);
      // The group's scale, by the lanes of its first wave that hold its first column.
      if (wave == first && j == 0 && Mma::acc_col(at.lane) == 0)
        scales.store4(
            __builtin_bit_cast(std::uint32_t, amax[i][r]),
            o == arch::out_of_range / 4
                ? arch::out_of_range
                : (o / static_cast<std::uint32_t>(n) * groups + static_cast<std::uint32_t>(col0) / quantize_group) * 4);
    });
  }
};

// The split-K reduction of an epilogue_fused_1x128: each thread sums 8 consecutive outputs over the
// splits (split order), takes their values and quantizes them with quantize_1x128_octet (16
// neighbouring threads a group: n % 128 == 0). Every lane runs the shuffles; lanes past the end
// store nothing.
template <class Epilogue, int Threads = 256>
__global__ __launch_bounds__(Threads) void splitk_reduce_fused_1x128(const float* partials, typename Epilogue::args p,
                                                                     int m, int n, int splits) {
  using Fp8 = typename Epilogue::out_type;
  arch::declare_codegen_targets<0, 8>();
  const long count = static_cast<long>(m) * n;
  const long i = (static_cast<long>(blockIdx.x) * Threads + threadIdx.x) * quantize_lane_elements;
  const bool active = i < count;
  float v[quantize_lane_elements] = {};
  if (active) {
    float sum[4];
    const auto row = static_cast<std::uint32_t>(i / n), col = static_cast<std::uint32_t>(i % n);
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      sum_partials4(partials, count, static_cast<std::uint32_t>(count), static_cast<std::uint32_t>(i + 4 * half),
                    splits, sum);
#pragma unroll
      for (int t = 0; t < 4; ++t) {
        float x[Epilogue::slots];
        if constexpr (Epilogue::inputs > 0)
          Epilogue::values::for_each_input(
              [&]<int q, class In>() { x[q] = In::at_output(p.d[q], m, n, n, row, col + 4 * half + t); });
        v[4 * half + t] = Epilogue::values::value(sum[t], x);
      }
    }
  }
  const fp8_octet_1x128 o = quantize_1x128_octet<Fp8>(v);
  const auto at = static_cast<std::uint32_t>(i);
  arch::buffer::over(p.c, static_cast<std::uint32_t>(count)).store8(o.bytes, active ? at : arch::out_of_range);
  if (i % n % quantize_group == 0)
    arch::buffer::over(p.scales, static_cast<std::uint32_t>(count / quantize_group * 4))
        .store4(__builtin_bit_cast(std::uint32_t, o.scale), active ? at / quantize_group * 4 : arch::out_of_range);
}

template <class Epilogue>
hipError_t launch_splitk_reduce_fused_1x128(const float* partials, const typename Epilogue::args& p, int m, int n,
                                            int splits, hipStream_t stream) {
  const long count = static_cast<long>(m) * n;
  hipLaunchKernelGGL(splitk_reduce_fused_1x128<Epilogue>,
                     dim3(static_cast<unsigned>(ceil_div(count / quantize_lane_elements, 256L))), dim3(256), 0, stream,
                     partials, p, m, n, splits);
  return hipGetLastError();
}

}  // namespace wavekit::block
