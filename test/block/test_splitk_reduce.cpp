// block/splitk_reduce: partials summed in split order and rounded once to bf16, for several
// split counts and a count that is not a multiple of the block size (emulator or device; managed
// memory, so inputs and results are written and read in place).
#include <hip/hip_runtime.h>
#include <catch2/catch.hpp>

#include <random>
#include <vector>

#include "wavekit/block/splitk_reduce.hpp"

using namespace wavekit;

TEST_CASE("split-K reduction sums in split order and rounds to bf16 once", "[emu][block]") {
  for (int splits : {1, 2, 5}) {
    const long count = 4 * 300;  // 1200 outputs: 300 threads, the second block partial
    float* partials;
    bf16* c;
    hipMallocManaged(&partials, count * splits * sizeof(float)), hipMallocManaged(&c, count * sizeof(bf16));
    std::mt19937 rng(splits);
    std::normal_distribution<float> dist(0.0f, 100.0f);
    for (long i = 0; i < count * splits; ++i) partials[i] = dist(rng);
    const block::reduce_view v = block::reduce_view::packed(12, 100);  // count outputs
    hipLaunchKernelGGL(block::splitk_reduce<bf16>, block::splitk_reduce_grid(v), dim3(256), 0, nullptr,
                       static_cast<const float*>(partials), c, v, splits);
    REQUIRE(hipGetLastError() == hipSuccess);
    REQUIRE(hipDeviceSynchronize() == hipSuccess);
    for (long i = 0; i < count; ++i) {
      float sum = 0.0f;
      for (int s = 0; s < splits; ++s) sum += partials[s * count + i];  // the same order, in fp32
      INFO("splits " << splits << " output " << i);
      REQUIRE(c[i].bits == hardware_cast<bf16>(sum).bits);
    }
#if defined(WAVEKIT_EMULATOR)
    CHECK(emu::last_launch_counters().global_bytes_written == static_cast<std::uint64_t>(count) * 2);
#endif
    hipFree(partials), hipFree(c);
  }
}

// Strided and batched outputs (block/gemm_epilogue.hpp): 3 GEMMs of 5 x 12 outputs, rows 20 apart,
// GEMMs 100 apart; the partials have C's layout once a split. Only the views' outputs are written.
TEST_CASE("split-K reduction of strided, batched outputs writes their views only", "[emu][block]") {
  const block::reduce_view v{5, 12, 20, 3, 100};
  const long split_stride = v.split_stride(), span = 2 * 100 + 4 * 20 + 12;
  REQUIRE(split_stride == span);
  const int splits = 3;
  float* partials;
  float* c;
  hipMallocManaged(&partials, split_stride * splits * sizeof(float)), hipMallocManaged(&c, span * sizeof(float));
  std::mt19937 rng(7);
  std::normal_distribution<float> dist(0.0f, 10.0f);
  for (long i = 0; i < split_stride * splits; ++i) partials[i] = dist(rng);
  for (long i = 0; i < span; ++i) c[i] = -1234.5f;
  REQUIRE(block::launch_splitk_reduce(static_cast<const float*>(partials), c, v, splits, nullptr) == hipSuccess);
  REQUIRE(hipDeviceSynchronize() == hipSuccess);
  std::vector<bool> in_view(span, false);
  for (int b = 0; b < v.batches; ++b)
    for (int r = 0; r < v.m; ++r)
      for (int j = 0; j < v.n; ++j) {
        const long at = b * v.batch_stride + long(r) * v.ldc + j;
        in_view[at] = true;
        float sum = 0.0f;
        for (int s = 0; s < splits; ++s) sum += partials[s * split_stride + at];
        INFO("GEMM " << b << " row " << r << " column " << j);
        REQUIRE(c[at] == sum);
      }
  for (long i = 0; i < span; ++i)
    if (!in_view[i]) REQUIRE(c[i] == -1234.5f);
  hipFree(partials), hipFree(c);
}
