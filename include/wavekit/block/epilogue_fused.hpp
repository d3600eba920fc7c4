// The epilogue slot of a GEMM: what happens to each fp32 result after the scale policy's transform,
// separate from the scale policy (which only scales). An epilogue_fused<Out, Act, Inputs...> computes,
// for output (row, col) with the scaled accumulator v,
//
//   v = input_1(v, x_1) ... input_k(v, x_k)     each input's D tensor at the output's column, row or
//                                               element (or a row's entry through an index table),
//                                               added or multiplied, in the listed order
//   y = activate<Act>(v)                        core/activation.hpp
//   C = y as Out                                bf16 / fp16 round to nearest even, fp32 as is, fp8
//                                               saturate(y / out_scale) (block/quantize_fp8_row.hpp's
//                                               per-tensor rule; Out the target's fp8)
//
// all in fp32 with one rounding, at the end. With split-K the main kernel writes only the scaled
// partials (fp32 in C's layout a split: block/gemm_epilogue.hpp) and splitk_reduce_fused (block/splitk_reduce.hpp) runs
// the whole fusion once, after the partials' sum in split order: every fusion keeps split-K, and a bias is added once,
// not once a split. The plain store, epilogue_store<Out>, is the fusion of nothing: epilogue_fused<Out,
// activation::identity>. An fp8 C with 1x128 scales computed in the epilogue: block/epilogue_fused_1x128.hpp.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <hip/hip_runtime.h>  // the platform: HIP on the device, the emulator's shim on the CPU

#include <cstddef>
#include <cstdint>
#include <tuple>
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

template <class Out>
inline constexpr bool is_fp8_v = is_fp8_e4m3_v<Out>;

// A D input's kernel argument. index and count: a gathered row input's table (index[row], -1: the
// row's factor is 0) and its values' count; unused by the other kinds.
struct input_args {
  const void* values;
  const int* index = nullptr;
  int count = 0;
};

// A D tensor's element `index` as fp32 (past the tensor's end: 0, from the buffer's range check).
template <class T>
WAVEKIT_DEVICE WAVEKIT_FORCEINLINE float load_as_float(const arch::buffer& b, std::uint32_t index) {
  if constexpr (std::is_same_v<T, float>)
    return __builtin_bit_cast(float, b.load4(index * 4));
  else
    return widen_to_float(T::from_bits(b.load2(index * 2)));
}

enum class input_index { column, row, element };
enum class input_combine { add, multiply };

// One D input: a tensor of T read at the output's column ([N]), row ([M]) or element ([M][N]
// row-major), added to or multiplying the value. Its parts: lane_values<Mma> (what a lane of a GEMM
// block reads, in the accumulators' layout: columns and rows once, elements where they are stored)
// and at_output (one output's value, for the split-K reduction).
template <class T, input_index Index, input_combine Combine>
struct epilogue_input {
  static_assert(is_half_or_float_v<T>, "epilogue_input: D tensors are bf16, fp16 or fp32");
  using value_type = T;
  WAVEKIT_HOST_DEVICE WAVEKIT_FORCEINLINE static float apply(float v, float x) {
    return Combine == input_combine::add ? v + x : v * x;
  }
  static constexpr bool per_element = Index == input_index::element;
  // An element input has C's layout (rows ldc apart, C's batch stride: epilogue_fused::place).
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE static arch::buffer over(const input_args& a, int m, int n, int ldc) {
    const std::uint32_t count = Index == input_index::column ? static_cast<std::uint32_t>(n)
                                : Index == input_index::row  ? static_cast<std::uint32_t>(m)
                                                             : static_cast<std::uint32_t>(view_extent(m, n, ldc));
    return arch::buffer::over(a.values, count * sizeof(T));
  }

  template <class Mma>
  struct lane_values {
    arch::buffer d;
    float x[Index == input_index::column ? Mma::tiles_n : Index == input_index::row ? Mma::tiles_m * Mma::regs : 1];
    WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void load(const input_args& a, int m, int n, int ldc, int row0, int col0,
                                                 int lane) {
      d = over(a, m, n, ldc);
      if constexpr (Index == input_index::column) {
#pragma unroll
        for (int j = 0; j < Mma::tiles_n; ++j)
          x[j] = load_as_float<T>(d, static_cast<std::uint32_t>(col0 + j * Mma::m + Mma::acc_col(lane)));
      } else if constexpr (Index == input_index::row) {
#pragma unroll
        for (int i = 0; i < Mma::tiles_m; ++i)
#pragma unroll
          for (int r = 0; r < Mma::regs; ++r)
            x[i * Mma::regs + r] =
                load_as_float<T>(d, static_cast<std::uint32_t>(row0 + i * Mma::tile_m + Mma::acc_row(lane, r)));
      }
    }
    WAVEKIT_DEVICE WAVEKIT_FORCEINLINE float at(int i, int j, int r, std::uint32_t output) const {
      if constexpr (Index == input_index::column)
        return x[j];
      else if constexpr (Index == input_index::row)
        return x[i * Mma::regs + r];
      else
        return load_as_float<T>(d, output);
    }
  };
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE static float at_output(const input_args& a, int m, int n, int ldc,
                                                            std::uint32_t row, std::uint32_t col) {
    const std::uint32_t at = Index == input_index::column ? col
                             : Index == input_index::row  ? row
                                                          : row * static_cast<std::uint32_t>(ldc) + col;
    return load_as_float<T>(over(a, m, n, ldc), at);
  }
};
template <class T>
using column_bias = epilogue_input<T, input_index::column, input_combine::add>;
template <class T>
using row_bias = epilogue_input<T, input_index::row, input_combine::add>;
using row_weights = epilogue_input<float, input_index::row, input_combine::multiply>;
template <class T>
using residual = epilogue_input<T, input_index::element, input_combine::add>;

// A per-row fp32 factor through an index table: row r is multiplied by values[index[r]], by 0 where
// index[r] is -1 (MoE's down projection: its rows are sorted slots, a slot's factor its routing
// weight). Many lanes hold a row's accumulators: lanes 0..m-1 of a wave read an MFMA row tile's
// entries and factors (one coalesced load each, no lane reading an address another does) and every
// lane takes its rows' factors by a shuffle.
struct gathered_row_weights {
  WAVEKIT_HOST_DEVICE WAVEKIT_FORCEINLINE static float apply(float v, float x) { return v * x; }

  template <class Mma>
  struct lane_values {
    static_assert(Mma::tile_m == Mma::m, "gathered_row_weights: square MFMA tiles (not a row-pair atom's 8 x 16)");
    float x[Mma::tiles_m * Mma::regs];
    WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void load(const input_args& a, int m, int, int, int row0, int, int lane) {
      const arch::buffer rows = arch::buffer::over(a.index, static_cast<std::uint32_t>(m) * 4);
      const arch::buffer factors = arch::buffer::over(a.values, static_cast<std::uint32_t>(a.count) * 4);
#pragma unroll
      for (int i = 0; i < Mma::tiles_m; ++i) {
        // Rows past M read index 0 through the range check; their results are not stored.
        const int at =
            lane < Mma::m ? static_cast<int>(rows.load4(static_cast<std::uint32_t>(row0 + i * Mma::m + lane) * 4)) : -1;
        const float factor =
            __builtin_bit_cast(float, factors.load4(at >= 0 ? static_cast<std::uint32_t>(at) * 4 : arch::out_of_range));
#pragma unroll
        for (int r = 0; r < Mma::regs; ++r) x[i * Mma::regs + r] = __shfl(factor, Mma::acc_row(lane, r));
      }
    }
    WAVEKIT_DEVICE WAVEKIT_FORCEINLINE float at(int i, int, int r, std::uint32_t) const { return x[i * Mma::regs + r]; }
  };
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE static float at_output(const input_args& a, int m, int, int, std::uint32_t row,
                                                            std::uint32_t) {
    const arch::buffer rows = arch::buffer::over(a.index, static_cast<std::uint32_t>(m) * 4);
    const int at = static_cast<int>(rows.load4(row * 4));
    const arch::buffer factors = arch::buffer::over(a.values, static_cast<std::uint32_t>(a.count) * 4);
    return __builtin_bit_cast(float, factors.load4(at >= 0 ? static_cast<std::uint32_t>(at) * 4 : arch::out_of_range));
  }
};

// The kernel argument of an epilogue_fused: C, the split-K partials, the D inputs and (fp8 C) the
// divisor. With neither inputs nor an fp8 C it is epilogue_store's {c, partials} (fused_args_t).
template <class Out, int Inputs, bool Fp8 = is_fp8_v<Out>>
struct fused_args : epilogue_args<Out> {
  input_args d[Inputs > 0 ? Inputs : 1];  // Inputs' order
  float out_scale;                        // the divisor of an fp8 C
};
template <class Out, int Inputs>
struct fused_args<Out, Inputs, false> : epilogue_args<Out> {
  input_args d[Inputs > 0 ? Inputs : 1];
};
template <class Out, int Inputs>
using fused_args_t = std::conditional_t<Inputs == 0 && !is_fp8_v<Out>, epilogue_args<Out>, fused_args<Out, Inputs>>;

template <class Out, activation Act, class... Inputs>
struct epilogue_fused {
  static_assert(is_half_or_float_v<Out> || is_fp8_v<Out>, "epilogue_fused: C is bf16, fp16, fp32 or fp8");
  using out_type = Out;
  using args = fused_args_t<Out, sizeof...(Inputs)>;
  static constexpr int inputs = sizeof...(Inputs);
  static constexpr int slots = sizeof...(Inputs) > 0 ? sizeof...(Inputs) : 1;  // arrays of the inputs (never empty)

  // f.template operator()<q, In>() for each input In, q its place in Inputs.
  template <class F>
  WAVEKIT_HOST_DEVICE WAVEKIT_FORCEINLINE static void for_each_input(F&& f) {
    [&]<std::size_t... Q>(std::index_sequence<Q...>) {
      (f.template operator()<static_cast<int>(Q), Inputs>(), ...);
    }(std::index_sequence_for<Inputs...>{});
  }

  // The arguments of a block's outputs (gemm_block): C and the partials placed as place_outputs does,
  // and each element input moved with C (it has C's layout: row ldc, C's batch stride).
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE static args place(args p, long c_offset, long split_offset) {
    p = place_outputs(p, c_offset, split_offset);
    if constexpr (sizeof...(Inputs) > 0)
      for_each_input([&]<int q, class In>() {
        if constexpr (requires { In::per_element; })
          if constexpr (In::per_element)
            p.d[q].values = static_cast<const typename In::value_type*>(p.d[q].values) + c_offset;
      });
    return p;
  }

  // The value before C's conversion: v through the inputs (their D values in x), then the activation.
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE static float value(float v, const float (&x)[slots]) {
    for_each_input([&]<int q, class In>() { v = In::apply(v, x[q]); });
    return activate<Act>(v, arch::device_exp{});
  }

  // Inputs, activation and conversion of one value, its D values in x (Inputs' order): the bits of
  // C's element (the low sizeof(Out) bytes).
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE static std::uint32_t finish(float v, const float (&x)[slots], const args& p) {
    const float y = value(v, x);
    if constexpr (std::is_same_v<Out, float>)
      return __builtin_bit_cast(std::uint32_t, y);
    else if constexpr (is_fp8_v<Out>)
      return arch::fp8_bits_saturating<Out>(y / p.out_scale);
    else
      return half_bits_rne<Out>(y);
  }

  // The epilogue of a GEMM block (block/gemm_block.hpp): acc is a warp MMA's accumulator set for the
  // wave's tiles at (row0, col0).
  template <class Mma, class Acc, class Transform = identity_transform>
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE static void store(const args& p, int m, int n,
                                                       const Acc (&acc)[Mma::tiles_m][Mma::tiles_n], int row0, int col0,
                                                       int lane, Transform transform = {}) {
    store_outputs<true, Mma>(p, m, n, acc, row0, col0, lane, transform);
  }

  // The store, with SplitK false for a GEMM that never splits K (without_split_k: one path, no
  // partials' test).
  template <bool SplitK, class Mma, class Acc, class Transform>
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE static void store_outputs(const args& p, int m, int n,
                                                               const Acc (&acc)[Mma::tiles_m][Mma::tiles_n], int row0,
                                                               int col0, int lane, Transform transform) {
    std::tuple<typename Inputs::template lane_values<Mma>...> lanes;
    if constexpr (sizeof...(Inputs) > 0)
      for_each_input([&]<int q, class In>() { std::get<q>(lanes).load(p.d[q], m, n, p.ldc, row0, col0, lane); });
    const auto outputs = static_cast<std::uint32_t>(view_extent(m, n, p.ldc));
    const arch::buffer c = arch::buffer::over(p.c, outputs * sizeof(Out));
    const arch::buffer partials = arch::buffer::over(p.partials, outputs * 4);
    const bool to_partials = SplitK && p.partials != nullptr;  // split-K: splitk_reduce(_fused) runs the rest
    for_each_output<Mma>(m, n, p.ldc, row0, col0, lane, [&](int i, int j, int r, std::uint32_t at) {
      // A copy first: __builtin_bit_cast of a vector-element lvalue reads element 0 (clang).
      const float a = acc[i][j][r];
      const float v = transform(i, j, r, a);
      if (to_partials) {  // the scaled partial of the split (scalings commute with the sum)
        partials.store4(__builtin_bit_cast(std::uint32_t, v), at * 4);
        return;
      }
      float x[slots];
      for_each_input([&]<int q, class In>() { x[q] = std::get<q>(lanes).at(i, j, r, at); });
      const std::uint32_t bits = finish(v, x, p);
      if constexpr (sizeof(Out) == 4)
        c.store4(bits, at * 4);
      else if constexpr (sizeof(Out) == 2)
        c.store2(static_cast<std::uint16_t>(bits), at * 2);
      else
        c.store1(static_cast<std::uint8_t>(bits), at);
    });
  }
};

// An epilogue of a GEMM that never splits K (MoE's grouped GEMMs): the same store without the
// partials' path (args.partials is not read).
template <class Epilogue>
struct without_split_k : Epilogue {
  template <class Mma, class Acc, class Transform = identity_transform>
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE static void store(const typename Epilogue::args& p, int m, int n,
                                                       const Acc (&acc)[Mma::tiles_m][Mma::tiles_n], int row0, int col0,
                                                       int lane, Transform transform = {}) {
    Epilogue::template store_outputs<false, Mma>(p, m, n, acc, row0, col0, lane, transform);
  }
};

// The plain store: C (bf16, fp16 or fp32) or, with split-K, the split's fp32 partials for
// splitk_reduce (block/splitk_reduce.hpp) to sum.
template <class Out>
using epilogue_store = epilogue_fused<Out, activation::identity>;

}  // namespace wavekit::block
