// A downstream HIP program run on wavekit's CPU emulator: launch wavekit's gemm_fp8_direct and
// a kernel of its own with <<<>>>, and check both.
#include <hip/hip_runtime.h>

#include <cstdio>
#include <vector>
#include <wavekit/ops/gemm_fp8_direct.hpp>

__global__ void fill_ones(wavekit::fp8_e4m3fnuz* p) { p[blockIdx.x * blockDim.x + threadIdx.x] = {0x40}; }  // 1.0

int main() {
  const int m = 32, n = 32, k = 64;
  wavekit::fp8_e4m3fnuz *a = nullptr, *b = nullptr;
  float* c = nullptr;
  if (hipMalloc(&a, m * k) != hipSuccess || hipMalloc(&b, n * k) != hipSuccess ||
      hipMalloc(&c, sizeof(float) * m * n) != hipSuccess)
    return std::printf("consumer_emulated: hipMalloc failed\n"), 1;
  fill_ones<<<m, k>>>(a);
  fill_ones<<<n, k>>>(b);
  const wavekit::status s = wavekit::ops::gemm_fp8_direct::launch<wavekit::fp8_e4m3fnuz>({a, b, c, m, n, k}, nullptr);
  std::vector<float> h(m * n);
  if (hipMemcpy(h.data(), c, sizeof(float) * m * n, hipMemcpyDeviceToHost) != hipSuccess)
    return std::printf("consumer_emulated: hipMemcpy failed\n"), 1;
  std::printf("consumer_emulated: %s, C[0][0] = %g (expected %d)\n", s.ok() ? "ok" : s.message().c_str(), h[0], k);
  return s.ok() && h[0] == float(k) && h[m * n - 1] == float(k) ? 0 : 1;
}
