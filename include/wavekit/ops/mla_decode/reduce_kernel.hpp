// MLA decode's reduce: where the split plan cut a sequence's KV rows into several chunks
// (ops/mla_decode/plan.hpp), each chunk's workgroup leaves a partial output and its LSE per
// (query row, head), and this kernel merges them (block/lse_merge.hpp) into the output, in split
// order. The split count of a row's sequence comes from the device copies of the tables (the KV
// length and the plan's chunk), so nothing is read on the host.
//
// Partial buffers (the workspace): partial_out [q_rows][heads][max_splits][512] fp32 and
// partial_lse [q_rows][heads][max_splits]; a sequence with n splits fills the first n of each.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <hip/hip_runtime.h>

#include <cstdint>

#include "wavekit/arch/codegen_targets.hpp"
#include "wavekit/arch/lds.hpp"
#include "wavekit/block/lse_merge.hpp"
#include "wavekit/core/numeric_types.hpp"
#include "wavekit/ops/mla_decode/plan.hpp"
#include "wavekit/ops/mla_decode/problem.hpp"

namespace wavekit::ops::mla_decode {

using merge = block::lse_merge<v_dim, max_splits>;
static_assert(merge::in_flight == merge_splits_in_flight, "mla_decode: the model counts the merge's passes by it");

template <class Out>
struct reduce_params {
  const float* partial_out;  // [q_rows][heads][splits][512]
  const float* partial_lse;  // [q_rows][heads][splits]
  const int* qo_indptr;      // [batch + 1]
  const int* kv_indptr;      // ragged: [batch + 1]; else null
  const int* kv_lens;        // paged: [batch]; else null
  int batch, heads, splits;  // splits: the plan's (the buffers' extent)
  int chunk;                 // the plan's rows per split
  Out* out;                  // [q_rows][heads][512]
  float* lse;                // [q_rows][heads], or null
};

// The sequence of query row q: the last b with qo_indptr[b] <= q (sequences without query rows
// are skipped by the search).
WAVEKIT_DEVICE WAVEKIT_FORCEINLINE int sequence_of(const int* qo_indptr, int batch, int q) {
  int lo = 0, hi = batch;  // qo_indptr[lo] <= q < qo_indptr[hi]
  while (hi - lo > 1) {
    const int mid = (lo + hi) / 2;
    if (qo_indptr[mid] <= q)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

// One workgroup per (query row, head); its first thread finds the row's split count. Out: bf16
// (the decode output), fp16 or fp32.
template <class Out>
__global__ __launch_bounds__(merge::threads) void mla_reduce_kernel(reduce_params<Out> p) {
  arch::declare_codegen_targets<merge::lds_bytes + 16, 8>();
  WAVEKIT_LDS_ARRAY(float, lds, merge::max_splits + 4);
  const int row = static_cast<int>(blockIdx.x), tid = static_cast<int>(threadIdx.x);
  float* split_count = lds + merge::max_splits;
  int n = 0;
  if (tid == 0) {  // one search and one length read, not one per thread
    const int b = sequence_of(p.qo_indptr, p.batch, row / p.heads);
    const int kv_len = p.kv_indptr ? p.kv_indptr[b + 1] - p.kv_indptr[b] : p.kv_lens[b];
    n = kv_len <= p.chunk ? 1 : (kv_len + p.chunk - 1) / p.chunk;
    n = n < p.splits ? n : p.splits;
  }
  arch::lds_store<4>(split_count, static_cast<std::uint32_t>(n), tid == 0);  // masked, not divergent
  __syncthreads();
  const int splits = static_cast<int>(arch::lds_load<4>(split_count));
  const long base = static_cast<long>(row) * p.splits;
  merge::merge_row(p.partial_out + base * v_dim, p.partial_lse + base, splits, p.out + static_cast<long>(row) * v_dim,
                   p.lse ? p.lse + row : nullptr, lds, tid);
}

}  // namespace wavekit::ops::mla_decode
