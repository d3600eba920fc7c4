// The epilogue slot of a GEMM: what happens to each fp32 result after the scale policy's transform,
// separate from the scale policy (which only scales). An epilogue_fused<Out, Act, Inputs...> computes,
// for output (row, col) with the scaled accumulator v,
//
//   v = input_1(v, x_1) ... input_k(v, x_k)     each input's D tensor at the output's column, row or
//                                               element, added or multiplied, in the listed order
//   y = activate<Act>(v)                        core/activation.hpp
//   C = y as Out                                bf16 / fp16 round to nearest even, fp32 as is, fp8
//                                               saturate(y / out_scale) (block/quantize_fp8_row.hpp's
//                                               per-tensor rule; Out the target's fp8)
//
// all in fp32 with one rounding, at the end. With split-K the main kernel writes only the scaled
// partials ([split][M][N] fp32, as epilogue_store does) and splitk_reduce_fused runs the whole
// fusion once, after the partials' sum in split order: every fusion keeps split-K, and a bias is
// added once, not once a split.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "wavekit/arch/buffer.hpp"
#include "wavekit/arch/device_math.hpp"
#include "wavekit/arch/fp8_convert.hpp"
#include "wavekit/block/gemm_epilogue.hpp"
#include "wavekit/core/activation.hpp"
#include "wavekit/core/half_convert.hpp"
#include "wavekit/core/numeric_types.hpp"
#include "wavekit/core/platform.hpp"

namespace wavekit::block {

enum class input_index { column, row, element };
enum class input_combine { add, multiply };

// One D input of an epilogue: a tensor of T read at the output's column ([N]), row ([M]) or element
// ([M][N] row-major), added to or multiplying the value.
template <class T, input_index Index, input_combine Combine>
struct epilogue_input {
  static_assert(is_half_or_float_v<T>, "epilogue_input: D tensors are bf16, fp16 or fp32");
  using element = T;
  static constexpr input_index index = Index;
  WAVEKIT_HOST_DEVICE WAVEKIT_FORCEINLINE static float apply(float v, float x) {
    return Combine == input_combine::add ? v + x : v * x;
  }
};
template <class T>
using column_bias = epilogue_input<T, input_index::column, input_combine::add>;
template <class T>
using row_bias = epilogue_input<T, input_index::row, input_combine::add>;
using row_weights = epilogue_input<float, input_index::row, input_combine::multiply>;  // MoE's routing weights
template <class T>
using residual = epilogue_input<T, input_index::element, input_combine::add>;

template <class Out>
inline constexpr bool is_fp8_v = std::is_same_v<Out, fp8_e4m3fnuz> || std::is_same_v<Out, fp8_e4m3fn>;

// A D tensor's element `index` as fp32 (past the tensor's end: 0, from the buffer's range check).
template <class T>
WAVEKIT_DEVICE WAVEKIT_FORCEINLINE float load_as_float(const arch::buffer& b, std::uint32_t index) {
  if constexpr (std::is_same_v<T, float>)
    return __builtin_bit_cast(float, b.load4(index * 4));
  else
    return widen_to_float(T::from_bits(b.load2(index * 2)));
}

template <class Out, activation Act, class... Inputs>
struct epilogue_fused {
  static_assert(is_half_or_float_v<Out> || is_fp8_v<Out>, "epilogue_fused: C is bf16, fp16, fp32 or fp8");
  using out_type = Out;
  static constexpr int inputs = sizeof...(Inputs);
  static constexpr int slots = inputs > 0 ? inputs : 1;  // arrays of the D inputs (never empty)

  // f.template operator()<q, In>() for each input In, q its place in Inputs.
  template <class F>
  WAVEKIT_HOST_DEVICE WAVEKIT_FORCEINLINE static void for_each_input(F&& f) {
    [&]<std::size_t... Q>(std::index_sequence<Q...>) {
      (f.template operator()<static_cast<int>(Q), Inputs>(), ...);
    }(std::index_sequence_for<Inputs...>{});
  }

  struct args {
    Out* c;                // [M][N]; written when partials is null
    float* partials;       // [split][M][N] fp32, for split-K
    const void* d[slots];  // input q's tensor (Inputs' order)
    float out_scale;       // fp8 C: the divisor; otherwise unused
  };

  // The buffers over the D tensors, for an m x n output.
  struct d_buffers {
    arch::buffer at[slots];
    WAVEKIT_DEVICE WAVEKIT_FORCEINLINE d_buffers(const args& p, int m, int n) {
      for_each_input([&]<int q, class In>() {
        const std::uint32_t count = In::index == input_index::column ? static_cast<std::uint32_t>(n)
                                    : In::index == input_index::row
                                        ? static_cast<std::uint32_t>(m)
                                        : static_cast<std::uint32_t>(m) * static_cast<std::uint32_t>(n);
        at[q] = arch::buffer::over(p.d[q], count * sizeof(typename In::element));
      });
    }
  };

  // Inputs, activation and conversion of one value, its D values in x (Inputs' order).
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE static float finish(float v, const float (&x)[slots]) {
    for_each_input([&]<int q, class In>() { v = In::apply(v, x[q]); });
    return activate<Act>(v, arch::device_exp{});
  }
  // The bits of y in C (the low sizeof(Out) bytes).
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE static std::uint32_t out_bits(float y, float out_scale) {
    if constexpr (std::is_same_v<Out, float>)
      return __builtin_bit_cast(std::uint32_t, y);
    else if constexpr (is_fp8_v<Out>)
      return arch::fp8_bits_saturating<Out>(y / out_scale);
    else
      return half_bits_rne<Out>(y);
  }
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE static void store_one(const arch::buffer& c, std::uint32_t at,
                                                           std::uint32_t bits) {
    if constexpr (sizeof(Out) == 4)
      c.store4(bits, at * 4);
    else if constexpr (sizeof(Out) == 2)
      c.store2(static_cast<std::uint16_t>(bits), at * 2);
    else
      c.store1(static_cast<std::uint8_t>(bits), at);
  }

  // The epilogue of a GEMM block (block/gemm_block.hpp): acc is a warp MMA's accumulator set for the
  // wave's tiles at (row0, col0). A lane reads its columns' and rows' D values once, its elements'
  // where it stores them.
  template <class Mma, class Acc, class Transform = identity_transform>
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE static void store(const args& p, int m, int n,
                                                       const Acc (&acc)[Mma::tiles_m][Mma::tiles_n], int row0, int col0,
                                                       int lane, int split, Transform transform = {}) {
    const std::uint32_t outputs = static_cast<std::uint32_t>(m) * static_cast<std::uint32_t>(n);
    if (p.partials) {  // split-K: the scaled partials; splitk_reduce_fused runs the rest
      const arch::buffer part = arch::buffer::over(p.partials + static_cast<long>(split) * outputs, outputs * 4);
      for_each_output<Mma>(m, n, row0, col0, lane, [&](int i, int j, int r, std::uint32_t at) {
        const float v = acc[i][j][r];
        part.store4(__builtin_bit_cast(std::uint32_t, transform(i, j, r, v)), at * 4);
      });
      return;
    }
    const d_buffers d(p, m, n);
    float per_col[slots][Mma::tiles_n] = {}, per_row[slots][Mma::tiles_m][Mma::regs] = {};
    for_each_input(
        [&]<int q, class In>() { load_lane_values<In, Mma>(d.at[q], row0, col0, lane, per_col[q], per_row[q]); });
    const arch::buffer c = arch::buffer::over(p.c, outputs * sizeof(Out));
    for_each_output<Mma>(m, n, row0, col0, lane, [&](int i, int j, int r, std::uint32_t at) {
      float x[slots];
      for_each_input([&]<int q, class In>() {
        if constexpr (In::index == input_index::column)
          x[q] = per_col[q][j];
        else if constexpr (In::index == input_index::row)
          x[q] = per_row[q][i][r];
        else
          x[q] = load_as_float<typename In::element>(d.at[q], at);
      });
      const float v = acc[i][j][r];
      store_one(c, at, out_bits(finish(transform(i, j, r, v), x), p.out_scale));
    });
  }

 private:
  template <class In, class Mma>
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE static void load_lane_values(const arch::buffer& b, int row0, int col0, int lane,
                                                                  float (&col)[Mma::tiles_n],
                                                                  float (&row)[Mma::tiles_m][Mma::regs]) {
    if constexpr (In::index == input_index::column) {
#pragma unroll
      for (int j = 0; j < Mma::tiles_n; ++j)
        col[j] =
            load_as_float<typename In::element>(b, static_cast<std::uint32_t>(col0 + j * Mma::m + Mma::acc_col(lane)));
    } else if constexpr (In::index == input_index::row) {
#pragma unroll
      for (int i = 0; i < Mma::tiles_m; ++i)
#pragma unroll
        for (int r = 0; r < Mma::regs; ++r)
          row[i][r] = load_as_float<typename In::element>(
              b, static_cast<std::uint32_t>(row0 + i * Mma::tile_m + Mma::acc_row(lane, r)));
    }
  }
};

}  // namespace wavekit::block
