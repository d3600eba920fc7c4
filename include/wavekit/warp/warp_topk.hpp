// Wave-wide top-k: one wave selects the k best of up to 64 * PerLane candidates held in its
// registers, by k rounds of "each lane's best, then the wave's best" over xor shuffles (six
// exchanges of 64 lanes), the winner's lane striking it off. No LDS, no memory.
//
// Candidate id i * 64 + lane lives in slot i of lane `lane`, so a wave reading a row of scores
// with consecutive lanes on consecutive ids holds the row in order. Order: the larger value wins;
// equal values go to the lower id; NaN counts as -Inf. Every lane receives every selection.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <hip/hip_runtime.h>  // the platform: HIP on the device, the emulator's shim on the CPU

#include <climits>

#include "wavekit/core/platform.hpp"

namespace wavekit::warp {

struct scored {
  float value;
  int id;  // INT_MAX: no candidate
};

// Whether a beats b (header comment).
WAVEKIT_HOST_DEVICE WAVEKIT_FORCEINLINE bool beats(scored a, scored b) {
  const float av = a.value == a.value ? a.value : -__builtin_inff();
  const float bv = b.value == b.value ? b.value : -__builtin_inff();
  return av > bv || (av == bv && a.id < b.id);
}

inline constexpr scored no_candidate = {-__builtin_inff(), INT_MAX};

// The wave's best of its lanes' candidates, on every lane.
WAVEKIT_DEVICE WAVEKIT_FORCEINLINE scored wave_best(scored c) {
#pragma unroll
  for (int offset = 32; offset > 0; offset /= 2) {
    const scored other{__shfl_xor(c.value, offset), __shfl_xor(c.id, offset)};
    if (beats(other, c)) c = other;
  }
  return c;
}

// The wave's sum of one value per lane, on every lane (a fixed butterfly: the same on every run).
WAVEKIT_DEVICE WAVEKIT_FORCEINLINE float wave_sum(float v) {
#pragma unroll
  for (int offset = 32; offset > 0; offset /= 2) v += __shfl_xor(v, offset);
  return v;
}

// The wave's largest value, on every lane.
WAVEKIT_DEVICE WAVEKIT_FORCEINLINE float wave_max(float v) {
#pragma unroll
  for (int offset = 32; offset > 0; offset /= 2) {
    const float other = __shfl_xor(v, offset);
    v = other > v ? other : v;
  }
  return v;
}

// Up to 64 * PerLane candidates: value[i] of id i * 64 + lane. A slot struck off (selected, or
// excluded by the caller) is no longer a candidate.
template <int PerLane>
struct wave_candidates {
  static_assert(PerLane >= 1 && PerLane <= 16, "wave_candidates: 1 to 16 candidates per lane (64 to 1024 per wave)");
  float value[PerLane];
  unsigned struck = 0;  // bit i: slot i is no candidate

  // Slots whose id is count or more hold no candidate.
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void limit(int count, int lane) {
#pragma unroll
    for (int i = 0; i < PerLane; ++i)
      if (i * 64 + lane >= count) struck |= 1u << i;
  }
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void strike(int slot) { struck |= 1u << slot; }

  // This lane's best candidate.
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE scored lane_best(int lane) const {
    scored best = no_candidate;
#pragma unroll
    for (int i = 0; i < PerLane; ++i) {
      const scored c{value[i], i * 64 + lane};
      if (!(struck >> i & 1u) && beats(c, best)) best = c;
    }
    return best;
  }

  // Selects the wave's best remaining candidate: struck off in its lane, returned on every lane
  // (no_candidate when none is left).
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE scored take_best(int lane) {
    const scored best = wave_best(lane_best(lane));
    if (best.id != INT_MAX && best.id % 64 == lane) struck |= 1u << (best.id / 64);
    return best;
  }
};

// Slot `slot` of a per-lane array without indexing registers by a run-time value (which would
// move the array to scratch memory): a select per slot.
template <int N>
WAVEKIT_DEVICE WAVEKIT_FORCEINLINE float select_slot(const float (&v)[N], int slot) {
  float out = v[0];
#pragma unroll
  for (int i = 1; i < N; ++i) out = slot == i ? v[i] : out;
  return out;
}

}  // namespace wavekit::warp
