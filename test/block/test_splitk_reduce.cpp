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
    hipLaunchKernelGGL(block::splitk_reduce<bf16>, dim3((count / 4 + 255) / 256), dim3(256), 0, nullptr,
                       static_cast<const float*>(partials), c, count, splits);
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
