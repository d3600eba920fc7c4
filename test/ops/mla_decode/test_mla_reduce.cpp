// ops/mla_decode's reduce kernel over synthetic partial buffers: each (query row, head) merges as
// many splits as its sequence's KV length and the plan's chunk give (read from the device copies
// of the tables, ragged or paged), against host::reference_lse_merge; sequences without query
// rows and with no KV rows; partial LSEs of -inf (a split a causal query did not reach); the
// merged LSE written or not. On the emulator also bit for bit against the merge's fp32 arithmetic
// as the device runs it: the device library's expf and logf and acc += w * o fused.
#include <hip/hip_runtime.h>
#include <catch2/catch.hpp>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <type_traits>
#include <vector>

#include "wavekit/core/float_codec.hpp"
#include "wavekit/core/half_convert.hpp"
#include "wavekit/host/reference_lse_merge.hpp"
#include "wavekit/ops/mla_decode/reduce_kernel.hpp"
#if defined(WAVEKIT_EMULATOR)
#include "wavekit/emu/device_math.hpp"
#endif

using namespace wavekit;
namespace mla = wavekit::ops::mla_decode;

namespace {

template <class U>
U* managed(const std::vector<U>& v) {
  U* d = nullptr;
  hipMallocManaged(&d, std::max<std::size_t>(v.size(), 1) * sizeof(U));
  std::memcpy(d, v.data(), v.size() * sizeof(U));
  return d;
}

#if defined(WAVEKIT_EMULATOR)
// block/lse_merge.hpp's fp32 steps in its order, with the device's expf and logf (the emulator's
// model of the device library) and each acc += w * o one fused multiply-add.
struct device_merge {
  float lse;
  std::vector<float> out;
};

device_merge merge_as_device(const float* partial_out, const float* partial_lse, int splits, int values) {
  namespace dm = wavekit::emu::device_math;
  const float minus_inf = -std::numeric_limits<float>::infinity();
  float m = minus_inf;
  for (int s = 0; s < splits; ++s) m = partial_lse[s] > m ? partial_lse[s] : m;
  float sum = 0.0f;
  if (m != minus_inf)
    for (int s = 0; s < splits; ++s) sum += dm::expf(partial_lse[s] - m);
  device_merge r{m != minus_inf ? m + dm::logf(sum) : minus_inf, std::vector<float>(values, 0.0f)};
  for (int s = 0; s < splits; ++s) {
    if (partial_lse[s] == minus_inf) continue;
    const float w = dm::expf(partial_lse[s] - r.lse);
    for (int c = 0; c < values; ++c) r.out[c] = std::fma(w, partial_out[std::size_t(s) * values + c], r.out[c]);
  }
  return r;
}
#endif

// Out: bf16 (the decode's output), or fp32, which shows every bit of the merge.
template <class Out>
void check_reduce(bool paged, bool with_lse) {
  // Sequences: q rows {1, 0, 2, 1}, KV rows {100, 0, 700, 0}; chunk 256, 4 splits in the buffers.
  const std::vector<int> qo{0, 1, 1, 3, 4}, lens{100, 0, 700, 0}, kv_indptr{0, 100, 100, 800, 800};
  const int heads = 5, splits = 4, chunk = 256, q_rows = 4, v = mla::v_dim;
  const int expect_splits[q_rows] = {1, 3, 3, 1};
  std::mt19937 rng(paged ? 7 : 8);
  std::normal_distribution<float> d(0.0f, 1.0f);
  std::vector<float> po(std::size_t(q_rows) * heads * splits * v), pl(std::size_t(q_rows) * heads * splits);
  for (float& x : po) x = d(rng);
  for (float& x : pl) x = 2.0f * d(rng);
  const float inf = std::numeric_limits<float>::infinity();
  pl[(std::size_t(1) * heads + 2) * splits + 2] = -inf;  // query row 1, head 2: its last split is empty
  for (int s = 0; s < splits; ++s) pl[(std::size_t(3) * heads + 0) * splits + s] = -inf;  // no KV row at all
  float *d_po = managed(po), *d_pl = managed(pl);
  int *d_qo = managed(qo), *d_lens = managed(lens), *d_kv = managed(kv_indptr);
  Out* out = managed(std::vector<Out>(std::size_t(q_rows) * heads * v));
  float* lse = managed(std::vector<float>(std::size_t(q_rows) * heads));
  const mla::reduce_params<Out> p{d_po,   d_pl,  d_qo, paged ? nullptr : d_kv,  paged ? d_lens : nullptr, 4, heads,
                                  splits, chunk, out,  with_lse ? lse : nullptr};
  hipLaunchKernelGGL(mla::mla_reduce_kernel<Out>, dim3(q_rows * heads), dim3(mla::merge::threads), 0, nullptr, p);
  REQUIRE(hipGetLastError() == hipSuccess);
  REQUIRE(hipDeviceSynchronize() == hipSuccess);
  for (int row = 0; row < q_rows * heads; ++row) {
    const int n = expect_splits[row / heads];
    INFO("row " << row << ", " << n << " splits");
    const auto ref = host::reference_lse_merge(po.data() + std::size_t(row) * splits * v,
                                               pl.data() + std::size_t(row) * splits, n, v);
    if (with_lse) CHECK(lse[row] == Approx(ref.lse).epsilon(1e-6));
    for (int c = 0; c < v; ++c) {
      const double got = widen_to_float(out[std::size_t(row) * v + c]);
      REQUIRE(std::fabs(got - ref.out[c]) <= ref.bound(c, n, 0x1p-8));
    }
#if defined(WAVEKIT_EMULATOR)
    const device_merge want =
        merge_as_device(po.data() + std::size_t(row) * splits * v, pl.data() + std::size_t(row) * splits, n, v);
    if (with_lse) CHECK(std::bit_cast<std::uint32_t>(lse[row]) == std::bit_cast<std::uint32_t>(want.lse));
    int differ = 0;
    for (int c = 0; c < v; ++c) {
      const Out got = out[std::size_t(row) * v + c];
      if constexpr (std::is_same_v<Out, float>)
        differ += std::bit_cast<std::uint32_t>(got) != std::bit_cast<std::uint32_t>(want.out[c]);
      else
        differ += got.bits != half_bits_rne<Out>(want.out[c]);
    }
    CHECK(differ == 0);
#endif
  }
  if (!with_lse)
    for (int row = 0; row < q_rows * heads; ++row) CHECK(lse[row] == 0.0f);  // untouched
  hipFree(d_po), hipFree(d_pl), hipFree(d_qo), hipFree(d_lens), hipFree(d_kv), hipFree(out), hipFree(lse);
}

}  // namespace

TEST_CASE("mla_decode reduce: split counts from the device tables, merged by LSE", "[emu][mla]") {
  check_reduce<bf16>(/*paged=*/false, /*with_lse=*/true);
  check_reduce<bf16>(/*paged=*/true, /*with_lse=*/false);
  check_reduce<float>(/*paged=*/false, /*with_lse=*/true);
}
