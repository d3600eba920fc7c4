// The split-K rules a launch and a plan query share (plain C++, no HIP): how many K splits a
// problem can take, and the fp32 partials they need.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <cstddef>
#include <string>

#include "wavekit/core/gemm_view.hpp"
#include "wavekit/core/lazy_text.hpp"
#include "wavekit/core/math.hpp"
#include "wavekit/core/status.hpp"

namespace wavekit::block {

// A GEMM launch's split-K cut: K steps per split, the splits that get any (the last may get fewer
// steps) for `splits` requested over `steps` K steps; and, cut from K elements in steps of step_k
// (of_k), the elements the first step starts early so that whole steps cover K (the mainloop's
// KTail reads them as zeros; 0 where K is whole steps). The kernel argument takes per_split and
// skip (block::make_gemm_params).
struct splitk_cut {
  int per_split, used_splits, skip = 0;
  static splitk_cut of(int steps, int splits) {
    const int per = ceil_div(steps, splits);
    return {per, ceil_div(steps, per)};
  }
  static splitk_cut of_k(int k, int step_k, int splits) {
    const int steps = ceil_div(k, step_k);
    splitk_cut cut = of(steps, splits);
    cut.skip = steps * step_k - k;
    return cut;
  }
};

// The rule a GEMM launch keeps for its number of K splits (check_splitk_launch), which a plan query
// checks of a tuned plan before taking it (tuning/tuned_or_model.hpp): every split gets at least
// one of the `steps` K steps. `name` names the config, `problem` the problem, `steps_name` the unit
// K is split in.
inline status check_splits(text_ref name, text_ref problem, int splits, int steps, const char* steps_name = "K steps") {
  if (splits < 1 || splits > steps)
    return {status_code::bad_config,
            name + " on " + problem + ": splits must be in [1, " + steps_name + " = " + std::to_string(steps) + "]"};
  return status::success();
}

// A batched launch's grid holds splits x batches blocks in z (block/tile_scheduler.hpp): at most
// max_grid_z of them.
inline status check_batched_splits(text_ref name, text_ref problem, int splits, int batches) {
  if (!batched_grid_fits(splits, batches))
    return {status_code::bad_shape, name + " on " + problem + ": " + std::to_string(splits) + " K splits x " +
                                        std::to_string(batches) + " GEMMs of the batch exceed the launch grid's " +
                                        std::to_string(max_grid_z) + " blocks in z; use fewer splits"};
  return status::success();
}

// The same for a problem with strides and a batch (core/gemm_view.hpp): C's extent over the batch a
// split (the partials have C's layout, block/gemm_epilogue.hpp).
template <class Problem>
std::size_t splitk_view_workspace_bytes(const Problem& p, int splits) {
  return splits > 1 ? static_cast<std::size_t>(splits) * static_cast<std::size_t>(p.views().c_batch_extent(p.batch)) * 4
                    : 0;
}

// Bytes of the fp32 split-K partials ([splits][M][N]) of an m x n output; 0 without split-K.
inline std::size_t splitk_workspace_bytes(int m, int n, int splits) {
  return splits > 1 ? std::size_t(splits) * std::size_t(m) * std::size_t(n) * sizeof(float) : 0;
}

}  // namespace wavekit::block
