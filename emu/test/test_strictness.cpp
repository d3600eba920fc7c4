// Strictness checks that stop a launch with a message (the launch returns hipErrorLaunchFailure
// and wavekit::emu::last_error_message() says why); each is planted and must fire, and the
// correct variant beside it must run clean. Checks that end the process (out-of-bounds accesses,
// data races) are in strictness_probe.cpp and race_probe.cpp.
#include <hip/hip_runtime.h>
#include <catch2/catch.hpp>

#include <cstdint>

#include "support/lds_kernels.hpp"
#include "wavekit/arch/buffer.hpp"
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

// Lane 0 loads the dword at voffset of a buffer over p with num_records bytes, and stores it to
// out[0]; with store set it stores 7 there instead.
__global__ void buffer_dword(std::uint32_t* p, std::uint32_t num_records, std::uint32_t voffset, std::uint32_t* out,
                             int store) {
  const auto b = wavekit::arch::buffer::over(p, num_records);
  if (threadIdx.x != 0) return;
  if (store)
    b.store4(7u, voffset);
  else
    out[0] = b.load4(voffset);
}

// Every lane loads and stores through a buffer over a null base with num_records 0 (an absent
// optional tensor): everything is out of range, loads give 0.
__global__ void null_buffer(std::uint32_t* out) {
  const auto b = wavekit::arch::buffer::over(nullptr, 0);
  const std::uint32_t at = 64 * threadIdx.x + 16;
  const wavekit::arch::u32x4 v = b.load16(at, 32);
  const std::uint32_t sum = v[0] + v[1] + v[2] + v[3] + b.load8(at)[1] + b.load4(at) + b.load2(at + 2) + b.load1(at);
  b.store4(sum + 1, at, 32), b.store16(v, at), b.store1(1, at + 1);
  out[threadIdx.x] = sum;
}

struct strict_buffers_on {
  strict_buffers_on() { wavekit::emu::set_strict_buffers(true); }
  ~strict_buffers_on() { wavekit::emu::set_strict_buffers(false); }
};

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

TEST_CASE("strict buffer mode stops an access past the buffer's allocation, and the ISA's tails stay legal",
          "[emu][strict]") {
  std::uint32_t *p, *out;
  REQUIRE(hipMalloc(&p, 244) == hipSuccess);  // 61 dwords; the guard page is 12 bytes further
  REQUIRE(hipMalloc(&out, 4) == hipSuccess);
  hipMemset(p, 1, 244);
  REQUIRE(!wavekit::emu::strict_buffers());
  // Default: num_records covers the dword past the allocation, and the hardware reads it.
  hipLaunchKernelGGL(buffer_dword, dim3(1), dim3(64), 0, nullptr, p, 4096u, 244u, out, 0);
  CHECK(launch_error().empty());
  CHECK(*out == 0);
  {
    strict_buffers_on strict;
    hipLaunchKernelGGL(buffer_dword, dim3(1), dim3(64), 0, nullptr, p, 4096u, 244u, out, 0);
    CHECK_THAT(launch_error(), Catch::Contains("block (0, 0, 0): buffer access outside its allocation (strict "
                                               "buffers): buffer_load_dword at voffset 244 + soffset 0 of a buffer "
                                               "with base at byte 0 and num_records 4096: address is 0 bytes past the "
                                               "end of a hipMalloc allocation of 244 bytes (thread (0, 0, 0)"));
    hipLaunchKernelGGL(buffer_dword, dim3(1), dim3(64), 0, nullptr, p, 4096u, 1000u, out, 1);
    CHECK_THAT(launch_error(), Catch::Contains("buffer_store_dword at voffset 1000") &&
                                   Catch::Contains("address is 756 bytes past the end of a hipMalloc allocation"));
    // Dwords past num_records load 0 and are not stored: legal in strict mode too.
    *out = 5;
    hipLaunchKernelGGL(buffer_dword, dim3(1), dim3(64), 0, nullptr, p, 244u, 244u, out, 0);
    CHECK(launch_error().empty());
    CHECK(*out == 0);
    hipLaunchKernelGGL(buffer_dword, dim3(1), dim3(64), 0, nullptr, p, 244u, 1u << 31, out, 1);
    CHECK(launch_error().empty());
    hipLaunchKernelGGL(buffer_dword, dim3(1), dim3(64), 0, nullptr, p, 244u, 240u, out, 0);
    CHECK(launch_error().empty());
    CHECK(*out == 0x01010101u);
  }
  hipFree(p), hipFree(out);
}

TEST_CASE("a buffer over a null base with num_records 0 reads zeros and writes nothing", "[emu][strict]") {
  std::uint32_t* out;
  REQUIRE(hipMalloc(&out, 128 * 4) == hipSuccess);
  hipMemset(out, 0xff, 128 * 4);
  for (bool strict : {false, true}) {
    wavekit::emu::set_strict_buffers(strict);
    hipLaunchKernelGGL(null_buffer, dim3(2), dim3(128), 0, nullptr, out);
    CHECK(launch_error().empty());
    for (int i = 0; i < 128; ++i) CHECK(out[i] == 0);
    CHECK(wavekit::emu::last_launch_counters().global_bytes_read == 0);
    CHECK(wavekit::emu::last_launch_counters().global_bytes_written == 0);
  }
  wavekit::emu::set_strict_buffers(false);
  hipFree(out);
}

TEST_CASE("hipFree keeps a freed allocation known: freeing it again is refused by name", "[emu][strict]") {
  float* p;
  REQUIRE(hipMalloc(&p, 256) == hipSuccess);
  REQUIRE(hipFree(p) == hipSuccess);
  CHECK(hipFree(p) == hipErrorInvalidDevicePointer);
  CHECK(wavekit::emu::last_error_message() ==
        "hipFree: a hipMalloc allocation of 256 bytes freed before (double free)");
  int on_stack = 0;
  CHECK(hipFree(&on_stack) == hipErrorInvalidDevicePointer);
  CHECK(wavekit::emu::last_error_message() == "hipFree: not a device pointer");
  hipGetLastError();
}
