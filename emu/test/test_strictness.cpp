// Strictness checks that stop a launch with a message (the launch returns hipErrorLaunchFailure
// and wavekit::emu::last_error_message() says why); each is planted and must fire, and the
// correct variant beside it must run clean. Checks that end the process (out-of-bounds accesses,
// data races) are in strictness_probe.cpp and race_probe.cpp.
#include <hip/hip_runtime.h>
#include <catch2/catch.hpp>

#include "support/lds_kernels.hpp"
#include "wavekit/arch/lds.hpp"

namespace {

__global__ void partial_barrier(int* out, int exit_below) {
  if (static_cast<int>(threadIdx.x) < exit_below) return;
  __syncthreads();
  out[threadIdx.x] = 1;
}

__global__ void divergent_shuffle(int* out, int divergent) {
  int v = static_cast<int>(threadIdx.x);
  if (!divergent || threadIdx.x < 32) v = __shfl_xor(v, 1);
  out[threadIdx.x] = v;
}

__global__ void two_shuffle_sites(int* out) {
  int v = static_cast<int>(threadIdx.x);
  if (threadIdx.x % 2)
    v = __shfl_xor(v, 2);
  else
    v = __shfl_xor(v, 4);
  out[threadIdx.x] = v;
}

__global__ void divergent_barriers(int* out) {
  if (threadIdx.x < 64)
    __syncthreads();
  else
    __syncthreads();
  out[threadIdx.x] = 1;
}

__global__ void dynamic_lds_user(int* out) {
  HIP_DYNAMIC_SHARED(float, tile);
  tile[threadIdx.x] = 2.0f;
  __syncthreads();
  out[threadIdx.x] = static_cast<int>(tile[255 - threadIdx.x]);
}

std::string launch_error() {
  const hipError_t e = hipGetLastError();
  return e == hipSuccess ? std::string() : wavekit::emu::last_error_message();
}

}  // namespace

TEST_CASE("a barrier reached by only part of a block stops the launch", "[emu][strict]") {
  int* out;
  REQUIRE(hipMalloc(&out, 256 * sizeof(int)) == hipSuccess);
  hipLaunchKernelGGL(partial_barrier, dim3(1), dim3(256), 0, nullptr, out, 0);
  CHECK(launch_error().empty());
  hipLaunchKernelGGL(partial_barrier, dim3(2), dim3(256), 0, nullptr, out, 100);
  CHECK_THAT(launch_error(), Catch::Contains("reached by only part of the block"));
  hipLaunchKernelGGL(divergent_barriers, dim3(1), dim3(128), 0, nullptr, out);
  CHECK_THAT(launch_error(), Catch::Contains("divergent barriers"));
  hipFree(out);
}

TEST_CASE("a cross-lane operation in divergent code stops the launch", "[emu][strict]") {
  int* out;
  REQUIRE(hipMalloc(&out, 64 * sizeof(int)) == hipSuccess);
  hipLaunchKernelGGL(divergent_shuffle, dim3(1), dim3(64), 0, nullptr, out, 0);
  CHECK(launch_error().empty());
  hipLaunchKernelGGL(divergent_shuffle, dim3(1), dim3(64), 0, nullptr, out, 1);
  CHECK_THAT(launch_error(), Catch::Contains("cross-lane operation in divergent code") &&
                                 Catch::Contains("__shfl_xor") && Catch::Contains("lanes 0-31"));
  hipLaunchKernelGGL(two_shuffle_sites, dim3(1), dim3(64), 0, nullptr, out);
  CHECK_THAT(launch_error(), Catch::Contains("cross-lane operation in divergent code"));
  hipFree(out);
}

TEST_CASE("more LDS than the target has stops the launch", "[emu][strict]") {
  int* out;
  REQUIRE(hipMalloc(&out, 256 * sizeof(int)) == hipSuccess);
  hipLaunchKernelGGL(wavekit::test::lds_user<16384>, dim3(2), dim3(256), 0, nullptr, out);  // 64 KiB: fits gfx942
  CHECK(launch_error().empty());
  hipLaunchKernelGGL(wavekit::test::lds_user<16388>, dim3(2), dim3(256), 0, nullptr, out);  // 64 KiB + 16 B
  CHECK_THAT(launch_error(), Catch::Contains("more LDS than the target has") && Catch::Contains("65552 bytes") &&
                                 Catch::Contains("gfx942 has 65536"));
  hipLaunchKernelGGL(dynamic_lds_user, dim3(1), dim3(256), 1024, nullptr, out);
  CHECK(launch_error().empty());
  hipLaunchKernelGGL(dynamic_lds_user, dim3(1), dim3(256), 65537, nullptr, out);
  CHECK_THAT(launch_error(), Catch::Contains("more LDS than the target has"));
  hipFree(out);
}

TEST_CASE("invalid launch configurations are refused", "[emu][strict]") {
  int* out;
  REQUIRE(hipMalloc(&out, 64 * sizeof(int)) == hipSuccess);
  hipLaunchKernelGGL(divergent_shuffle, dim3(1), dim3(2048), 0, nullptr, out, 0);
  CHECK(hipGetLastError() == hipErrorInvalidConfiguration);
  hipLaunchKernelGGL(divergent_shuffle, dim3(0), dim3(64), 0, nullptr, out, 0);
  CHECK(hipGetLastError() == hipErrorInvalidConfiguration);
  hipFree(out);
}
