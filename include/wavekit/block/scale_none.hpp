// The scale policy of an unscaled K loop (and of scales applied after it, by the epilogue): one K
// step a group, the warp MMA's accumulators are the result. The hooks the mainloop calls
// (block/gemm_mainloop.hpp documents them) do nothing.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include "wavekit/block/gemm_epilogue.hpp"
#include "wavekit/block/tile_scheduler.hpp"
#include "wavekit/core/platform.hpp"
#include "wavekit/warp/warp_mma.hpp"

namespace wavekit::block {

struct scale_none_args {};

template <class Mma, int StepK>
struct scale_none {
  static constexpr int group_k = StepK;  // a group is one K step
  static constexpr int steps_per_group = 1;
  static constexpr bool restarts = false;  // the accumulators run across the whole K range
  static constexpr int lds_bytes = 0;
  using args = scale_none_args;
  using mma_type = Mma;  // the warp MMA whose accumulators it scales

  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void begin(const args&, int, int, int, const gemm_tile&, float*, int, int, int,
                                                int) {}

  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void prologue(int) {}
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void group_begin(int) {}
  template <int S>
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void issue_loads(int, bool) {}
  template <int S>
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void before_mma(int) {}
  template <int S>
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE static warp::neutral_scales mma_scales() {
    return {};
  }
  template <int S>
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void after_stores(int) {}
  template <int S>
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void after_mma(Mma&) {}
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE static const auto& result(const Mma& w) { return w.acc; }
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE static identity_transform epilogue_transform() { return {}; }
};

}  // namespace wavekit::block
