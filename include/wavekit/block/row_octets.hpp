// A row of a bf16 / fp16 tensor spread over one workgroup, for row-wise ops (RMSNorm, SwiGLU): a
// lane takes 8 consecutive elements (an octet: one 16-byte load) per item, item i of thread t
// covering columns [(i * Threads + t) * 8, + 8). A wave's load of an item is 1 KB contiguous, and
// each aligned 16 lanes hold one 128-column group (block/quantize_1x128.hpp's arrangement). Items
// past the row load zeros (buffer loads out of range) and store nothing: lanes never diverge, so
// the cross-lane steps (the row sum, the 1x128 amax) run on every lane.
//
// row_sum is the workgroup's sum of one fp32 value per lane in a fixed order, which host
// references repeat to be bit-exact (host/reference_rmsnorm_quant.hpp): each wave's 64 values by
// an xor butterfly (warp::wave_sum, offsets 32, 16, ..., 1), then the waves' totals in wave order
// from wave 0's.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <hip/hip_runtime.h>  // the platform: HIP on the device, the emulator's shim on the CPU

#include <cstdint>
#include <type_traits>

#include "wavekit/arch/buffer.hpp"
#include "wavekit/arch/lds.hpp"
#include "wavekit/core/half_convert.hpp"
#include "wavekit/core/numeric_types.hpp"
#include "wavekit/core/platform.hpp"
#include "wavekit/core/row_view.hpp"
#include "wavekit/warp/warp_topk.hpp"

namespace wavekit::block {

inline constexpr int octet = 8;  // elements a lane loads at once (16 bytes of bf16 / fp16)

template <int Threads, int Items>
struct row_octets {
  static_assert(Threads % 64 == 0 && Threads >= 64 && Threads <= 1024, "row_octets: whole waves, at most 1024 threads");
  static_assert(Items >= 1 && Items <= 16, "row_octets: 1 to 16 items a lane (its octets stay in registers)");
  static constexpr int threads = Threads, items = Items, waves = Threads / 64;
  static constexpr int max_cols = Threads * Items * octet;
  static constexpr int lds_floats = 2 * waves;  // row_sum's wave totals, two sets (one barrier a call)

  // The first column of item `item` of thread `tid`.
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE static int column(int item, int tid) { return (item * Threads + tid) * octet; }

  // The sum of v over the workgroup, on every lane, in the order the header states. Every thread
  // calls it; `parity` alternates between consecutive calls (a fast wave's next totals land in the
  // other set while the slow ones still read these).
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE static float row_sum(float v, float* lds, int parity, int tid) {
    const float wave_total = warp::wave_sum(v);
    float* totals = lds + parity * waves;
    arch::lds_store<4>(totals + tid / 64, __builtin_bit_cast(std::uint32_t, wave_total), tid % 64 == 0);
    __syncthreads();
    float sum = __builtin_bit_cast(float, arch::lds_load<4>(totals));
#pragma unroll
    for (int w = 1; w < waves; ++w) sum += __builtin_bit_cast(float, arch::lds_load<4>(totals + w));
    return sum;
  }
};

// The 8 elements of a 16-byte load, widened (exact).
template <class T>
WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void widen_octet(const arch::u32x4& raw, float (&v)[octet]) {
  static_assert(std::is_same_v<T, bf16> || std::is_same_v<T, fp16>, "widen_octet: bf16 or fp16");
#pragma unroll
  for (int h = 0; h < octet; ++h)
    v[h] = widen_to_float(T::from_bits(static_cast<std::uint16_t>(raw[h / 2] >> (16 * (h % 2)))));
}

// The octet at (row, col) of a rows x cols tensor x (bf16 / fp16) whose rows are x_ld elements
// apart (0: cols), widened; zeros where !active (the load is out of range; row and col unread).
// The buffer spans x's view (core/row_view.hpp's view_extent), so no load leaves it.
template <class T>
WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void load_octet(const T* x, int rows, int cols, int x_ld, int row, int col,
                                                   bool active, float (&v)[octet]) {
  const int ld = x_ld ? x_ld : cols;
  const arch::u32x4 raw = arch::buffer::over(x, static_cast<std::uint32_t>(view_extent(rows, cols, ld)) * 2)
                              .load16(active ? (static_cast<std::uint32_t>(row) * ld + col) * 2 : arch::out_of_range);
  widen_octet<T>(raw, v);
}

// 8 values rounded to T (nearest even, +-Inf past its range), as a 16-byte store's data.
template <class T>
WAVEKIT_DEVICE WAVEKIT_FORCEINLINE arch::u32x4 narrow_octet(const float (&v)[octet]) {
  arch::u32x4 raw;
#pragma unroll
  for (int q = 0; q < 4; ++q)
    raw[q] = half_bits_rne<T>(v[2 * q]) | static_cast<std::uint32_t>(half_bits_rne<T>(v[2 * q + 1])) << 16;
  return raw;
}

}  // namespace wavekit::block
