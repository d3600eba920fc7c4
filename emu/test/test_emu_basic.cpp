#include <hip/hip_runtime.h>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

__global__ void add_one(const int* in, int* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] + 1;
}

__global__ void reverse_block(int* data) {
  __shared__ int tile[256];
  tile[threadIdx.x] = data[blockIdx.x * 256 + threadIdx.x];
  __syncthreads();
  data[blockIdx.x * 256 + threadIdx.x] = tile[255 - threadIdx.x];
}

__global__ void xor_reduce(const int* in, int* out) {
  int v = in[threadIdx.x];
  for (int m = 32; m >= 1; m /= 2) v += __shfl_xor(v, m);
  out[threadIdx.x] = v;
}

TEST_CASE("emulator runs blocks, barriers and shuffles", "[emu]") {
  const int n = 1000;
  int *in, *out;
  REQUIRE(hipMalloc(&in, n * sizeof(int)) == hipSuccess);
  REQUIRE(hipMalloc(&out, n * sizeof(int)) == hipSuccess);
  std::vector<int> h(n);
  for (int i = 0; i < n; ++i) h[i] = i;
  hipMemcpy(in, h.data(), n * sizeof(int), hipMemcpyHostToDevice);
  hipLaunchKernelGGL(add_one, dim3((n + 255) / 256), dim3(256), 0, nullptr, in, out, n);
  REQUIRE(hipGetLastError() == hipSuccess);
  std::vector<int> r(n);
  hipMemcpy(r.data(), out, n * sizeof(int), hipMemcpyDeviceToHost);
  for (int i = 0; i < n; ++i) REQUIRE(r[i] == i + 1);

  hipLaunchKernelGGL(reverse_block, dim3(3), dim3(256), 0, nullptr, in);
  hipMemcpy(r.data(), in, 768 * sizeof(int), hipMemcpyDeviceToHost);
  for (int i = 0; i < 768; ++i) REQUIRE(r[i] == (i / 256) * 256 + 255 - i % 256);

  hipLaunchKernelGGL(xor_reduce, dim3(1), dim3(64), 0, nullptr, out, in);
  hipMemcpy(r.data(), in, 64 * sizeof(int), hipMemcpyDeviceToHost);
  for (int i = 0; i < 64; ++i) REQUIRE(r[i] == 64 * 65 / 2);
  hipFree(in);
  hipFree(out);
}

TEST_CASE("the emulated target defines the device compiler's target macros", "[emu]") {
#if defined(__gfx942__) && !defined(__gfx950__) && defined(__GFX9__) && __AMDGCN_WAVEFRONT_SIZE == 64
  hipDeviceProp_t prop;
  REQUIRE(hipGetDeviceProperties(&prop, 0) == hipSuccess);
  CHECK(std::string(prop.gcnArchName).rfind("gfx942", 0) == 0);
  CHECK(prop.sharedMemPerBlock == 64 * 1024);
  CHECK(prop.warpSize == 64);
#else
  FAIL("gfx942 target macros missing");
#endif
}

namespace {
__global__ void count_and_max(int* counter, float* total, unsigned* biggest, int* per_block) {
  __shared__ int block_count;
  if (threadIdx.x == 0) block_count = 0;
  __syncthreads();
  atomicAdd(&block_count, 1);
  atomicAdd(counter, 1);
  atomicAdd(total, 0.5f);
  atomicMax(biggest, blockIdx.x * blockDim.x + threadIdx.x);
  __syncthreads();
  if (threadIdx.x == 0) per_block[blockIdx.x] = atomicExch(&block_count, 0);
}
}  // namespace

TEST_CASE("atomics on global and shared memory are atomic across blocks and threads", "[emu]") {
  int *counter, *per_block;
  float* total;
  unsigned* biggest;
  REQUIRE(hipMalloc(&counter, sizeof(int)) == hipSuccess);
  REQUIRE(hipMalloc(&total, sizeof(float)) == hipSuccess);
  REQUIRE(hipMalloc(&biggest, sizeof(unsigned)) == hipSuccess);
  REQUIRE(hipMalloc(&per_block, 64 * sizeof(int)) == hipSuccess);
  hipMemset(counter, 0, sizeof(int)), hipMemset(total, 0, sizeof(float)), hipMemset(biggest, 0, sizeof(unsigned));
  hipLaunchKernelGGL(count_and_max, dim3(64), dim3(128), 0, nullptr, counter, total, biggest, per_block);
  REQUIRE(hipGetLastError() == hipSuccess);
  CHECK(*counter == 64 * 128);
  CHECK(*total == 64 * 128 * 0.5f);
  CHECK(*biggest == 64 * 128 - 1);
  for (int b = 0; b < 64; ++b) CHECK(per_block[b] == 128);
  int expected = 7;
  CHECK(atomicCAS(counter, 64 * 128, 7) == 64 * 128);
  CHECK(atomicCAS(counter, 0, 9) == expected);
  hipFree(counter), hipFree(total), hipFree(biggest), hipFree(per_block);
}

TEST_CASE("a capture check records every call a captured graph could not hold", "[emu]") {
  int* device = nullptr;
  REQUIRE(hipMalloc(&device, 64) == hipSuccess);
  int host[16] = {};
  {
    wavekit::emu::capture_check check;
    // Graph-safe: asynchronous fills and host-to-device or device-to-device copies, launches.
    REQUIRE(hipMemsetAsync(device, 0, 64, nullptr) == hipSuccess);
    REQUIRE(hipMemcpyAsync(device, host, 64, hipMemcpyHostToDevice, nullptr) == hipSuccess);
    REQUIRE(hipMemcpyAsync(device + 8, device, 32, hipMemcpyDeviceToDevice, nullptr) == hipSuccess);
    CHECK(check.graph_unsafe_calls().empty());
    // Each of these makes the host wait for the device or reads device data on the host.
    REQUIRE(hipMemcpyAsync(host, device, 64, hipMemcpyDeviceToHost, nullptr) == hipSuccess);
    REQUIRE(hipMemcpy(device, host, 64, hipMemcpyHostToDevice) == hipSuccess);
    REQUIRE(hipMemset(device, 0, 64) == hipSuccess);
    REQUIRE(hipDeviceSynchronize() == hipSuccess);
    REQUIRE(hipStreamSynchronize(nullptr) == hipSuccess);
    int* more = nullptr;
    REQUIRE(hipMalloc(&more, 4) == hipSuccess);
    REQUIRE(hipFree(more) == hipSuccess);
    CHECK(check.graph_unsafe_calls() == std::vector<std::string>{"hipMemcpyAsync to the host", "hipMemcpy", "hipMemset",
                                                                 "hipDeviceSynchronize", "hipStreamSynchronize",
                                                                 "hipMalloc", "hipFree"});
  }
  // Outside a check nothing is recorded.
  REQUIRE(hipDeviceSynchronize() == hipSuccess);
  {
    wavekit::emu::capture_check check;
    CHECK(check.graph_unsafe_calls().empty());
  }
  REQUIRE(hipFree(device) == hipSuccess);
}
