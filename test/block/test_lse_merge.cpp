// block/lse_merge: split partials merged by their log-sum-exp against the merge in double: one
// split (the partial itself, exactly), several with one that saw no row, the most splits, LSEs far
// from 0 (no overflow), every split empty (zeros and -inf, no NaN), bf16 and fp32 outputs; and
// the traffic (each partial value read once, each LSE once).
#include <hip/hip_runtime.h>
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "wavekit/arch/lds.hpp"
#include "wavekit/block/lse_merge.hpp"
#include "wavekit/core/float_codec.hpp"
#include "wavekit/host/reference_lse_merge.hpp"

using namespace wavekit;

namespace {

constexpr int V = 512, max_splits = 64;
using merge = block::lse_merge<V, max_splits>;

// Row r: splits[r] partials at partial_out + r * max_splits * V, LSEs at partial_lse + r * max_splits.
template <class Out>
__global__ void merge_kernel(const float* partial_out, const float* partial_lse, const int* splits, Out* out,
                             float* lse) {
  WAVEKIT_LDS_ARRAY(float, lds, max_splits);
  const int r = static_cast<int>(blockIdx.x);
  merge::merge_row(partial_out + static_cast<long>(r) * max_splits * V, partial_lse + r * max_splits, splits[r],
                   out + static_cast<long>(r) * V, lse + r, lds, static_cast<int>(threadIdx.x));
}

template <class Out>
void check(const std::vector<int>& splits, const std::vector<float>& lses, std::uint32_t seed) {
  const int rows = static_cast<int>(splits.size());
  float *po, *pl, *lse;
  int* sp;
  Out* out;
  hipMallocManaged(&po, std::size_t(rows) * max_splits * V * 4), hipMallocManaged(&pl, rows * max_splits * 4);
  hipMallocManaged(&sp, rows * 4), hipMallocManaged(&out, std::size_t(rows) * V * sizeof(Out));
  hipMallocManaged(&lse, rows * 4);
  std::mt19937 rng(seed);
  std::normal_distribution<float> d(0.0f, 1.0f);
  for (std::size_t i = 0; i < std::size_t(rows) * max_splits * V; ++i) po[i] = d(rng);
  std::memcpy(pl, lses.data(), lses.size() * 4), std::memcpy(sp, splits.data(), rows * 4);
  for (int r = 0; r < rows; ++r)  // a split that saw no row holds zeros, as the decode kernel writes
    for (int s = 0; s < splits[r]; ++s)
      if (std::isinf(pl[r * max_splits + s])) std::memset(po + (std::size_t(r) * max_splits + s) * V, 0, V * 4);
#if defined(WAVEKIT_EMULATOR)
  emu::reset_counters();
#endif
  hipLaunchKernelGGL((merge_kernel<Out>), dim3(rows), dim3(merge::threads), 0, nullptr, po, pl, sp, out, lse);
  REQUIRE(hipGetLastError() == hipSuccess);
  REQUIRE(hipDeviceSynchronize() == hipSuccess);
  std::uint64_t expect_read = 0;
  for (int r = 0; r < rows; ++r) {
    INFO("row " << r << ", " << splits[r] << " splits");
    const auto ref = host::reference_lse_merge(po + std::size_t(r) * max_splits * V, pl + r * max_splits, splits[r], V);
    const double l = ref.lse;
    CHECK(lse[r] == Approx(l).epsilon(1e-6));
    expect_read += std::uint64_t(splits[r]) * 4;
    for (int s = 0; s < splits[r]; ++s) expect_read += std::isinf(pl[r * max_splits + s]) ? 0 : V * 4;
    for (int c = 0; c < V; ++c) {
      const double e = ref.out[c];
      const double got = widen_to_float(out[std::size_t(r) * V + c]);
      const double bound = ref.bound(c, splits[r], std::is_same_v<Out, bf16> ? 0x1p-8 : 0.0);
      REQUIRE(!std::isnan(got));
      if (splits[r] == 1 && !std::isinf(l) && std::is_same_v<Out, float>)
        REQUIRE(got == po[std::size_t(r) * max_splits * V + c]);  // weight e^0 = 1 exactly
      else
        REQUIRE(std::fabs(got - e) <= bound);
    }
  }
#if defined(WAVEKIT_EMULATOR)
  CHECK(emu::last_launch_counters().global_bytes_read == expect_read);
#endif
  hipFree(po), hipFree(pl), hipFree(sp), hipFree(out), hipFree(lse);
}

}  // namespace

TEST_CASE("lse_merge merges split partials by their LSE, in split order", "[emu][block]") {
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<int> splits = {1, 5, 64, 3, 2};
  std::vector<float> lses(splits.size() * max_splits, 0.0f);
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(-3.0f, 3.0f);
  for (float& l : lses) l = u(rng);
  lses[1 * max_splits + 2] = -inf;                                     // a split of row 1 saw no row
  for (int s = 0; s < 3; ++s) lses[3 * max_splits + s] = -inf;         // row 3: none saw a row
  lses[4 * max_splits + 0] = 85.0f, lses[4 * max_splits + 1] = 80.0f;  // far from 0: e^85 overflows fp32
  check<float>(splits, lses, 1);
  check<bf16>(splits, lses, 2);
}
