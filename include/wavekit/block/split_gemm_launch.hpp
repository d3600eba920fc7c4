// What every split-K GEMM launch does around its kernel once the op has checked its arguments:
// check the number of splits and the workspace their fp32 partials need, launch nothing for an
// empty problem, cut K into splits, size the grid (block/tile_scheduler.hpp), let the op launch
// its kernel, then reduce the partials. The op keeps what is its own: validation, the target, the
// kernel arguments and which kernel instance runs.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <hip/hip_runtime.h>

#include <cstddef>

#include "wavekit/block/splitk_reduce.hpp"
#include "wavekit/block/splitk_rule.hpp"
#include "wavekit/block/tile_scheduler.hpp"
#include "wavekit/core/lazy_text.hpp"
#include "wavekit/core/math.hpp"
#include "wavekit/core/status.hpp"

namespace wavekit::block {

// A launch as the op asks for it. name: the config ("gemm_half<...>, sk4"); problem: the problem's
// text for the statuses (both formatted on a refusal only). K is cut in steps of step_k elements
// (the K step the target runs, or the scale group for an op that splits in groups: steps_name says
// which unit the split-count status names).
struct split_gemm_request {
  text_ref name, problem;
  int splits, step_k;
  void* workspace;
  std::size_t workspace_bytes;
  const char* steps_name = "K steps";
};

// Problem: m, n, k, batch and views() (core/gemm_view.hpp). start(grid, cut, partials) launches the
// kernel (partials: the workspace as fp32 with split-K, else null); reduce(partials, used_splits,
// stream) launches the reduction of a split launch and returns its hipError_t.
template <int BlockM, int BlockN, class Problem, class Start, class Reduce>
status launch_split_gemm(const split_gemm_request& r, const Problem& p, hipStream_t stream, Start&& start,
                         Reduce&& reduce) {
  const std::size_t need = splitk_view_workspace_bytes(p, r.splits);
  if (status s = check_splitk_launch(r.name, r.problem, r.splits, ceil_div(p.k, r.step_k), need, r.workspace,
                                     r.workspace_bytes, r.steps_name);
      !s.ok())
    return s;
  if (p.m == 0) return status::success();  // an empty problem launches nothing
  const splitk_cut cut = splitk_cut::of_k(p.k, r.step_k, r.splits);
  if (status s = check_batched_splits(r.name, r.problem, cut.used_splits, p.batch.count); !s.ok()) return s;
  float* const partials = need ? static_cast<float*>(r.workspace) : nullptr;
  start(tile_scheduler_2d<BlockM, BlockN>::grid(p.m, p.n, cut.used_splits, p.batch.count), cut, partials);
  return finish_launch_then_reduce(r.name, need > 0, stream,
                                   [&](hipStream_t s) { return reduce(partials, cut.used_splits, s); });
}

// The same with the plain reduction of the partials into C (Out at c, the problem's C view).
template <int BlockM, int BlockN, class Problem, class Out, class Start>
status launch_split_gemm(const split_gemm_request& r, const Problem& p, Out* c, hipStream_t stream, Start&& start) {
  return launch_split_gemm<BlockM, BlockN>(r, p, stream, start, [&](const float* partials, int splits, hipStream_t s) {
    return launch_splitk_reduce(partials, c, reduce_view_of(p), splits, s);
  });
}

}  // namespace wavekit::block
