// On a GPU, a benchmark's iterations time one call each with HIP events, its operands evicted from
// L2 first (a 512 MiB memset between calls), reported as manual time.
#pragma once

#include <benchmark/benchmark.h>
#include <hip/hip_runtime.h>

#include <cstddef>

namespace wavekit::test {

template <class F>
void time_calls(benchmark::State& state, F&& call) {
  void* flush = nullptr;
  const std::size_t flush_bytes = std::size_t(512) << 20;
  hipMalloc(&flush, flush_bytes);
  hipEvent_t start, stop;
  hipEventCreate(&start), hipEventCreate(&stop);
  for (auto _ : state) {
    hipMemsetAsync(flush, 0, flush_bytes, nullptr);  // evict the operands from L2 and MALL
    hipEventRecord(start, nullptr);
    call();
    hipEventRecord(stop, nullptr);
    hipEventSynchronize(stop);
    float ms = 0;
    hipEventElapsedTime(&ms, start, stop);
    state.SetIterationTime(ms / 1e3);
  }
  hipEventDestroy(start), hipEventDestroy(stop), hipFree(flush);
}

}  // namespace wavekit::test
