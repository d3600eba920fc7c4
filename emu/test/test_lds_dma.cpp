// The emulator's model of direct-to-LDS buffer loads (emu/lds_dma.hpp): each rule's planted
// break must stop the launch with a message naming the instruction, the LDS bytes and the source
// lines, beside the correct variant, which must run clean and give the loaded data. The loads'
// results and counters on every form are test/arch/test_buffer_lds.cpp's.
#include <hip/hip_runtime.h>
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "wavekit/arch/buffer_lds.hpp"
#include "wavekit/arch/lds.hpp"

using namespace wavekit;

namespace {

std::string site(int line) { return "test_lds_dma.cpp:" + std::to_string(line); }

std::string launch_error() {
  const hipError_t e = hipGetLastError();
  return e == hipSuccess ? std::string() : emu::last_error_message();
}

// Two waves, each loading one dword a lane into its half of tile; every thread then reads the
// other wave's half. Without the wait the load may not have landed when read.
constexpr int read_other_half_line = __LINE__ + 5;  // the line of its load
__global__ void read_other_half(const std::uint32_t* src, std::uint32_t* out, int wait) {
  WAVEKIT_LDS_ARRAY(std::uint32_t, tile, 128);
  const unsigned tid = threadIdx.x;
  const arch::buffer source = arch::buffer::over(src, 128 * 4);
  arch::buffer_load_lds<4>(source, &tile[tid / 64 * 64], 4 * tid);
  if (wait) arch::wait_vmcnt<0>();
  __syncthreads();
  out[tid] = arch::lds_load<4>(&tile[(tid + 64) % 128]);
}

// One wave: a load into LDS, then `younger` buffer loads (or stores) through registers, then
// s_waitcnt vmcnt(N): the load into LDS has landed when at least N instructions were issued after it.
template <int N>
__global__ void counted_wait(const std::uint32_t* src, std::uint32_t* out, int younger, int stores) {
  WAVEKIT_LDS_ARRAY(std::uint32_t, tile, 64);
  const unsigned lane = threadIdx.x;
  const arch::buffer source = arch::buffer::over(src, 64 * 4);
  const arch::buffer scratch = arch::buffer::over(out + 64, 64 * 4);
  arch::buffer_load_lds<4>(source, tile, 4 * lane);
  std::uint32_t sum = 0;
  for (int i = 0; i < younger; ++i) {
    if (stores)
      scratch.store4(static_cast<std::uint32_t>(i), 4 * lane);
    else
      sum += source.load4(4 * ((lane + static_cast<unsigned>(i)) % 64));
  }
  arch::wait_vmcnt<N>();
  out[lane] = arch::lds_load<4>(&tile[lane]) + sum * 0;
}

constexpr int pending_at_exit_line = __LINE__ + 3;  // the line of its load
__global__ void pending_at_exit(const std::uint32_t* src) {
  WAVEKIT_LDS_ARRAY(std::uint32_t, tile, 64);
  arch::buffer_load_lds<4>(arch::buffer::over(src, 64 * 4), tile, 4 * threadIdx.x);
}

constexpr int divergent_load_line = __LINE__ + 3;  // the line of its load
__global__ void divergent_load(const std::uint32_t* src) {
  WAVEKIT_LDS_ARRAY(std::uint32_t, tile, 64);
  if (threadIdx.x < 32) arch::buffer_load_lds<4>(arch::buffer::over(src, 64 * 4), tile, 4 * threadIdx.x);
  arch::wait_vmcnt<0>();
  __syncthreads();
}

__global__ void split_destination(const std::uint32_t* src) {
  WAVEKIT_LDS_ARRAY(std::uint32_t, tile, 128);
  arch::buffer_load_lds<4>(arch::buffer::over(src, 64 * 4), &tile[threadIdx.x / 32 * 64], 4 * threadIdx.x);
  arch::wait_vmcnt<0>();
}

__global__ void past_the_array(const std::uint32_t* src) {
  WAVEKIT_LDS_ARRAY(std::uint32_t, tile, 64);
  arch::buffer_load_lds<4>(arch::buffer::over(src, 64 * 4), &tile[32], 4 * threadIdx.x);
  arch::wait_vmcnt<0>();
}

__global__ void into_plain_shared(const std::uint32_t* src) {
  __shared__ std::uint32_t plain[64];
  arch::buffer_load_lds<4>(arch::buffer::over(src, 64 * 4), plain, 4 * threadIdx.x);
  arch::wait_vmcnt<0>();
}

// An LDS store onto bytes a load has in flight: whichever lands last wins on the device.
__global__ void store_over_load(const std::uint32_t* src, int wait) {
  WAVEKIT_LDS_ARRAY(std::uint32_t, tile, 64);
  arch::buffer_load_lds<4>(arch::buffer::over(src, 64 * 4), tile, 4 * threadIdx.x);
  if (wait) arch::wait_vmcnt<0>();
  arch::lds_store<4>(&tile[threadIdx.x], 7u);
  arch::wait_vmcnt<0>();
}

// A stage both waves read, reloaded by wave 0 for the next step: without a barrier between the
// reads and the reload, wave 1 may still be reading when the new data lands.
constexpr int reload_line = __LINE__ + 10;  // the line of its second load
__global__ void reload_while_read(const std::uint32_t* src, std::uint32_t* out, int barrier) {
  WAVEKIT_LDS_ARRAY(std::uint32_t, stage, 64);
  const unsigned tid = threadIdx.x, lane = tid % 64;
  const arch::buffer source = arch::buffer::over(src, 128 * 4);
  if (tid < 64) arch::buffer_load_lds<4>(source, stage, 4 * lane);
  arch::wait_vmcnt<0>();
  __syncthreads();
  std::uint32_t sum = arch::lds_load<4>(&stage[lane]);
  if (barrier) __syncthreads();
  if (tid < 64) arch::buffer_load_lds<4>(source, stage, 4 * (64 + lane));
  arch::wait_vmcnt<0>();
  __syncthreads();
  sum += arch::lds_load<4>(&stage[63 - lane]);
  out[tid] = sum;
}

// Wave 0 loads and waits; wave 1 reads the bytes. Only a barrier after the wait makes them
// visible to wave 1.
__global__ void read_without_barrier(const std::uint32_t* src, std::uint32_t* out, int barrier) {
  WAVEKIT_LDS_ARRAY(std::uint32_t, tile, 64);
  const unsigned tid = threadIdx.x;
  if (tid < 64) {
    arch::buffer_load_lds<4>(arch::buffer::over(src, 64 * 4), tile, 4 * tid);
    arch::wait_vmcnt<0>();
  } else {
    // In the emulator's order of turns this lets every lane of wave 0 pass its wait before
    // wave 1 reads: the data has landed, as it may have on the device, but is not published.
    __builtin_amdgcn_wave_barrier();
  }
  if (barrier) __syncthreads();
  if (tid >= 64) out[tid - 64] = arch::lds_load<4>(&tile[tid - 64]);
  __syncthreads();
}

struct buffers {
  std::uint32_t *src = nullptr, *out = nullptr;
  buffers() {
    std::vector<std::uint32_t> host(128);
    for (unsigned i = 0; i < 128; ++i) host[i] = 1000 + i;
    REQUIRE(hipMalloc(&src, 128 * 4) == hipSuccess);
    REQUIRE(hipMalloc(&out, 128 * 4) == hipSuccess);
    REQUIRE(hipMemcpy(src, host.data(), 128 * 4, hipMemcpyHostToDevice) == hipSuccess);
  }
  ~buffers() { (void)hipFree(src), (void)hipFree(out); }
  std::vector<std::uint32_t> result(int n) const {
    std::vector<std::uint32_t> h(n);
    hipMemcpy(h.data(), out, n * 4u, hipMemcpyDeviceToHost);
    return h;
  }
};

}  // namespace

TEST_CASE("lds dma: a read before s_waitcnt vmcnt is reported, the waited read gets the data", "[emu][strict]") {
  buffers b;
  hipLaunchKernelGGL(read_other_half, dim3(1), dim3(128), 0, nullptr, b.src, b.out, 1);
  REQUIRE(launch_error().empty());
  const std::vector<std::uint32_t> got = b.result(128);
  for (unsigned i = 0; i < 128; ++i) CHECK(got[i] == 1000 + (i + 64) % 128);
  const emu::launch_counters& c = emu::last_launch_counters();
  CHECK(c.lds_dma_instructions == 2);
  CHECK(c.lds_dma_bytes == 512);
  CHECK(c.bytes_read_from(b.src) == 512);

  hipLaunchKernelGGL(read_other_half, dim3(1), dim3(128), 0, nullptr, b.src, b.out, 0);
  CHECK_THAT(launch_error(), Catch::Contains("LDS read before s_waitcnt vmcnt: ds_read_b32 at ") &&
                                 Catch::Contains("reads LDS bytes 256..259, which buffer_load_dword lds at ") &&
                                 Catch::Contains(site(read_other_half_line) + " (wave 1 lane 0) still has in flight"));
}

TEST_CASE("lds dma: s_waitcnt vmcnt(N) retires a load once N VMEM instructions follow it", "[emu][strict]") {
  buffers b;
  auto run = [&](auto kernel, int younger, int stores) {
    hipLaunchKernelGGL(kernel, dim3(1), dim3(64), 0, nullptr, b.src, b.out, younger, stores);
    return launch_error();
  };
  CHECK(run(counted_wait<0>, 0, 0).empty());
  CHECK(run(counted_wait<1>, 1, 0).empty());
  CHECK(run(counted_wait<1>, 1, 1).empty());    // gfx9's vmcnt counts stores too
  CHECK(run(counted_wait<16>, 16, 0).empty());  // 16 and more: vmcnt's high bits (15:14)
  CHECK(run(counted_wait<20>, 20, 0).empty());
  const std::vector<std::uint32_t> got = b.result(64);
  for (unsigned i = 0; i < 64; ++i) CHECK(got[i] == 1000 + i);
  CHECK_THAT(run(counted_wait<1>, 0, 0), Catch::Contains("LDS read before s_waitcnt vmcnt"));
  CHECK_THAT(run(counted_wait<17>, 16, 0), Catch::Contains("LDS read before s_waitcnt vmcnt"));
  CHECK_THAT(run(counted_wait<21>, 20, 1), Catch::Contains("LDS read before s_waitcnt vmcnt"));
}

TEST_CASE("lds dma: a load still in flight when the wave returns is reported", "[emu][strict]") {
  buffers b;
  hipLaunchKernelGGL(pending_at_exit, dim3(1), dim3(64), 0, nullptr, b.src);
  CHECK_THAT(launch_error(), Catch::Contains("buffer_load_dword lds at ") &&
                                 Catch::Contains(site(pending_at_exit_line) + " still in flight when thread (") &&
                                 Catch::Contains("returned: no s_waitcnt vmcnt retired its load into LDS bytes "));
}

TEST_CASE("lds dma: divergent, split or misplaced destinations are refused", "[emu][strict]") {
  buffers b;
  hipLaunchKernelGGL(divergent_load, dim3(1), dim3(64), 0, nullptr, b.src);
  CHECK_THAT(launch_error(), Catch::Contains("divergent code") && Catch::Contains("buffer_load_dword lds") &&
                                 Catch::Contains(site(divergent_load_line)));
  hipLaunchKernelGGL(split_destination, dim3(1), dim3(64), 0, nullptr, b.src);
  CHECK_THAT(launch_error(), Catch::Contains("buffer_load_dword lds at ") &&
                                 Catch::Contains("name different LDS destinations (lane 0 0, lane 32 256)"));
  hipLaunchKernelGGL(past_the_array, dim3(1), dim3(64), 0, nullptr, b.src);
  CHECK_THAT(launch_error(), Catch::Contains("the wave writes LDS bytes 128..383 of the array declared at ") &&
                                 Catch::Contains("which has 256"));
  hipLaunchKernelGGL(into_plain_shared, dim3(1), dim3(64), 0, nullptr, b.src);
  CHECK_THAT(launch_error(), Catch::Contains("not a WAVEKIT_LDS_ARRAY array or dynamic shared memory"));
}

TEST_CASE("lds dma: an LDS store onto bytes in flight is reported", "[emu][strict]") {
  buffers b;
  hipLaunchKernelGGL(store_over_load, dim3(1), dim3(64), 0, nullptr, b.src, 1);
  CHECK(launch_error().empty());
  hipLaunchKernelGGL(store_over_load, dim3(1), dim3(64), 0, nullptr, b.src, 0);
  CHECK_THAT(launch_error(), Catch::Contains("LDS write before s_waitcnt vmcnt: ds_write_b32 at ") &&
                                 Catch::Contains("writes LDS bytes 0..3"));
}

TEST_CASE("lds dma: a load onto a stage other waves read since the last barrier is reported", "[emu][strict]") {
  buffers b;
  hipLaunchKernelGGL(reload_while_read, dim3(1), dim3(128), 0, nullptr, b.src, b.out, 1);
  REQUIRE(launch_error().empty());
  const std::vector<std::uint32_t> got = b.result(128);
  for (unsigned i = 0; i < 128; ++i) CHECK(got[i] == 1000 + i % 64 + 1000 + 64 + (63 - i % 64));
  hipLaunchKernelGGL(reload_while_read, dim3(1), dim3(128), 0, nullptr, b.src, b.out, 0);
  CHECK_THAT(launch_error(), Catch::Contains("direct-to-LDS load racing other waves' LDS accesses: ") &&
                                 Catch::Contains("buffer_load_dword lds at ") &&
                                 Catch::Contains("which wave(s) 1 read since the last barrier (latest: wave 1 at ") &&
                                 Catch::Contains(site(reload_line)));
}

TEST_CASE("lds dma: another wave reads landed bytes only after a barrier", "[emu][strict]") {
  buffers b;
  hipLaunchKernelGGL(read_without_barrier, dim3(1), dim3(128), 0, nullptr, b.src, b.out, 1);
  REQUIRE(launch_error().empty());
  const std::vector<std::uint32_t> got = b.result(64);
  for (unsigned i = 0; i < 64; ++i) CHECK(got[i] == 1000 + i);
  hipLaunchKernelGGL(read_without_barrier, dim3(1), dim3(128), 0, nullptr, b.src, b.out, 0);
  CHECK_THAT(launch_error(), Catch::Contains("LDS read without a barrier after s_waitcnt vmcnt: ") &&
                                 Catch::Contains("landed in wave 0's s_waitcnt vmcnt") &&
                                 Catch::Contains("visible to wave 1"));
}
