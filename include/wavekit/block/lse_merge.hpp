// The merge of flash decoding's split results by their log-sum-exp (the LSE reducer of the kit;
// MLA decode's reduce is this part over its partial buffers). For one output row (a query row and
// head), `splits` partial vectors o_s of V fp32 values, each normalised by its own softmax sum,
// with lse_s = log of that sum (natural log, after its own max; -inf: the split saw no row):
//
//   m = max_s lse_s,  lse = m + log(sum_s e^(lse_s - m)),  out = sum_s e^(lse_s - lse) o_s
//
// in split order, in fp32, so the result is the same on every run. A row whose splits all saw no
// row gets out = 0 and lse = -inf (never NaN: no e^(-inf - -inf) is formed).
//
// V / 4 threads per row, each thread 4 consecutive values (16-byte loads): the split LSEs are
// read once into LDS (by the first `splits` threads, V / 4 at a time), and every thread derives
// the weights from there. merge_row takes a row's splits packed ([splits][V]); merge_entries takes
// them wherever entry_of(s) says (entry e: values at e * V, LSE at e), as MLA decode's balanced
// schedule leaves them.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <hip/hip_runtime.h>  // the platform: HIP on the device, the emulator's shim on the CPU

#include <cstdint>
#include <limits>
#include <type_traits>

#include "wavekit/arch/buffer.hpp"
#include "wavekit/arch/device_math.hpp"
#include "wavekit/arch/lds.hpp"
#include "wavekit/core/half_convert.hpp"
#include "wavekit/core/numeric_types.hpp"
#include "wavekit/core/platform.hpp"

namespace wavekit::block {

template <int V, int MaxSplits>
struct lse_merge {
  static_assert(V % 256 == 0, "lse_merge: V is 4 values per thread of whole waves");
  static constexpr int threads = V / 4;
  static constexpr int max_splits = MaxSplits;
  static_assert(MaxSplits >= 1, "lse_merge: at least one split");
  static constexpr int lds_bytes = MaxSplits * 4;
  static constexpr int in_flight = 4;  // splits' loads a thread has in flight (merge_entries)

  // partial_out [splits][V] and partial_lse [splits] of this row; out [V] in Out (bf16, fp16 or
  // fp32); lse_out (may be null) the merged LSE. lds: lds_bytes, 4-byte aligned. Every thread of
  // the workgroup calls it (it synchronises the workgroup once).
  template <class Out>
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE static void merge_row(const float* partial_out, const float* partial_lse,
                                                           int splits, Out* out, float* lse_out, float* lds, int tid) {
    merge_entries(
        partial_out, partial_lse, static_cast<std::uint32_t>(splits), splits, [](int s) { return s; }, out, lse_out,
        lds, tid);
  }

  // The row's split s at entry entry_of(s) (< entries) of partial_out [entries][V] and
  // partial_lse [entries]; splits <= MaxSplits. The V / 4 threads of a row (tid: 0 .. V / 4 - 1)
  // call it together with the workgroup's other threads (one barrier): a group of them with
  // nothing to merge passes splits 0 and a null out (it stores nothing).
  template <class Out, class EntryOf>
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE static void merge_entries(const float* partial_out, const float* partial_lse,
                                                               std::uint32_t entries, int splits, EntryOf entry_of,
                                                               Out* out, float* lse_out, float* lds, int tid) {
    static_assert(std::is_same_v<Out, bf16> || std::is_same_v<Out, fp16> || std::is_same_v<Out, float>,
                  "lse_merge: the output is bf16, fp16 or fp32");
    const arch::buffer lses = arch::buffer::over(partial_lse, entries * 4);
    for (int first = 0; first < splits; first += threads) {  // the same trips in every thread of the row
      const int s = first + tid;
      const bool brings = s < splits;
      const std::uint32_t lse_bits =
          lses.load4(brings ? static_cast<std::uint32_t>(entry_of(s)) * 4 : arch::out_of_range);
      arch::lds_store<4>(lds + (brings ? s : 0), lse_bits, brings);  // masked, not divergent
    }
    __syncthreads();
    // The LSEs are read from LDS in each pass (all lanes one address: a broadcast), not kept in a
    // register array a run-time split count would index; once a split a pass.
    auto lse_of = [&](int s) { return __builtin_bit_cast(float, arch::lds_load<4>(lds + s)); };
    constexpr float minus_inf = -std::numeric_limits<float>::infinity();
    float m = minus_inf;
    for (int s = 0; s < splits; ++s) {
      const float ls = lse_of(s);
      m = ls > m ? ls : m;
    }
    float sum = 0.0f;
    if (m != minus_inf)
      for (int s = 0; s < splits; ++s) sum += arch::device_expf(lse_of(s) - m);
    const float lse = m != minus_inf ? m + arch::device_logf(sum) : minus_inf;
    float acc[4] = {};
    const arch::buffer partials = arch::buffer::over(partial_out, entries * V * 4);
    // Split s's four values and their weighted add (ls: its LSE). A split that saw no row (lse
    // -inf) is not read (an out-of-range load: zeros) and adds 0 x 0 (+0: the sums' bits as if it
    // were skipped), whatever its partial holds.
    auto values_of = [&](int s, float ls) {
      const bool seen = ls != minus_inf;
      return partials.load16(
          seen ? (static_cast<std::uint32_t>(entry_of(s)) * V + 4 * static_cast<std::uint32_t>(tid)) * 4
               : arch::out_of_range);
    };
    auto add = [&](float ls, const arch::u32x4& v) {
      const float w = ls != minus_inf ? arch::device_expf(ls - lse) : 0.0f;
#pragma unroll
      for (int e = 0; e < 4; ++e) acc[e] += w * __builtin_bit_cast(float, static_cast<std::uint32_t>(v[e]));
    };
    // Splits in_flight at a time: their loads issued together, then added in split order (the
    // same sums as one at a time), so a pass waits for one round trip, not one a split.
    int s = 0;
    for (; s + in_flight <= splits; s += in_flight) {
      float ls[in_flight];
      arch::u32x4 v[in_flight];
#pragma unroll
      for (int i = 0; i < in_flight; ++i) {
        ls[i] = lse_of(s + i);
        v[i] = values_of(s + i, ls[i]);
      }
#pragma unroll
      for (int i = 0; i < in_flight; ++i) add(ls[i], v[i]);
    }
    for (; s < splits; ++s) {
      const float ls = lse_of(s);
      add(ls, values_of(s, ls));
    }
    if (!out) return;
    store4(out, tid, acc);
    if (lse_out && tid == 0) *lse_out = lse;
  }

 private:
  template <class Out>
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE static void store4(Out* out, int tid, const float (&v)[4]) {
    const arch::buffer o = arch::buffer::over(out, V * sizeof(Out));
    if constexpr (std::is_same_v<Out, float>) {
      o.store16(arch::u32x4{__builtin_bit_cast(std::uint32_t, v[0]), __builtin_bit_cast(std::uint32_t, v[1]),
                            __builtin_bit_cast(std::uint32_t, v[2]), __builtin_bit_cast(std::uint32_t, v[3])},
                static_cast<std::uint32_t>(16 * tid));
    } else {
      const std::uint32_t lo = half_bits_rne<Out>(v[0]) | static_cast<std::uint32_t>(half_bits_rne<Out>(v[1])) << 16;
      const std::uint32_t hi = half_bits_rne<Out>(v[2]) | static_cast<std::uint32_t>(half_bits_rne<Out>(v[3])) << 16;
      o.store8(arch::u32x2{lo, hi}, static_cast<std::uint32_t>(8 * tid));
    }
  }
};

}  // namespace wavekit::block
