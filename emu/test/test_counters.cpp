// Launch counters: MFMA by kind, global bytes of buffer loads/stores (with their range rules) and
// the allocations they read, barriers, and LDS bank conflicts of arch::lds_load/lds_store under
// the gfx942 bank model.
#include <hip/hip_runtime.h>
#include <catch2/catch.hpp>

#include <cstdint>

#include "wavekit/arch/lds.hpp"

using namespace wavekit;

namespace {

using u32x4 = arch::lds_vector_t<16>;

// Lane l reads 16 bytes at l * stride; then writes them back at l * 16.
__global__ void lds_pattern(int stride_bytes, std::uint32_t* out) {
  WAVEKIT_LDS_ARRAY(std::uint32_t, tile, 64 * 64);
  for (int i = static_cast<int>(threadIdx.x); i < 64 * 64; i += 64) tile[i] = static_cast<std::uint32_t>(i);
  __syncthreads();
  const u32x4 v = arch::lds_load<16>(&tile[threadIdx.x * stride_bytes / 4]);
  __syncthreads();
  arch::lds_store<16>(&tile[threadIdx.x * 4], v);
  __syncthreads();
  out[threadIdx.x] = tile[threadIdx.x * 4];
}

__global__ void buffer_copy(const float* in, float* out, int n_in, int n_out) {
  const __amdgpu_buffer_rsrc_t src = __builtin_amdgcn_make_buffer_rsrc(in, 0, n_in * 4, 0x00020000);
  const __amdgpu_buffer_rsrc_t dst = __builtin_amdgcn_make_buffer_rsrc(out, 0, n_out * 4, 0x00020000);
  const auto v = __builtin_amdgcn_raw_buffer_load_b128(src, static_cast<int>(threadIdx.x) * 16, 0, 0);
  __builtin_amdgcn_raw_buffer_store_b128(v, dst, static_cast<int>(threadIdx.x) * 16, 0, 0);
}

__global__ void mfma_and_barriers(float* out) {
  floatx4 acc = {};
  acc = __builtin_amdgcn_mfma_f32_16x16x32_fp8_fp8(0x3838383838383838L, 0x3838383838383838L, acc, 0, 0, 0);
  __syncthreads();
  acc = __builtin_amdgcn_mfma_f32_16x16x32_fp8_fp8(0x3838383838383838L, 0x3838383838383838L, acc, 0, 0, 0);
  acc = __builtin_amdgcn_mfma_f32_16x16x32_bf8_bf8(0x3838383838383838L, 0x3838383838383838L, acc, 0, 0, 0);
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc[0];
}

}  // namespace

TEST_CASE("LDS bank conflicts follow the gfx942 phase model", "[emu][counters]") {
  std::uint32_t* out;
  REQUIRE(hipMalloc(&out, 64 * sizeof(std::uint32_t)) == hipSuccess);
  // 16 bytes per lane, consecutive: every ds_read_b128 phase group covers 32 distinct banks.
  hipLaunchKernelGGL(lds_pattern, dim3(1), dim3(64), 0, nullptr, 16, out);
  REQUIRE(hipGetLastError() == hipSuccess);
  CHECK(emu::last_launch_counters().lds_instructions == 2);
  CHECK(emu::last_launch_counters().lds_bank_conflict_cycles == 0);
  CHECK(out[5] == 20);
  // 128-byte stride: the 8 lanes of each phase hit the same 4 banks: 7 extra cycles x 8 phases.
  hipLaunchKernelGGL(lds_pattern, dim3(1), dim3(64), 0, nullptr, 128, out);
  CHECK(emu::last_launch_counters().lds_bank_conflict_cycles == 56);
  CHECK(out[5] == 5 * 32);
  // Every lane reads the same 16 bytes: a broadcast, no conflict.
  hipLaunchKernelGGL(lds_pattern, dim3(1), dim3(64), 0, nullptr, 0, out);
  CHECK(emu::last_launch_counters().lds_bank_conflict_cycles == 0);
  CHECK(out[63] == 0);
  hipFree(out);
}

TEST_CASE("buffer loads return 0 and stores drop past num_records; in-range bytes are counted", "[emu][counters]") {
  float *in, *out;
  REQUIRE(hipMalloc(&in, 256 * sizeof(float)) == hipSuccess);
  REQUIRE(hipMalloc(&out, 256 * sizeof(float)) == hipSuccess);
  for (int i = 0; i < 256; ++i) in[i] = float(i + 1), out[i] = -1.0f;
  // 64 lanes x 16 bytes; the source descriptor covers 150 floats (600 bytes), the destination 200.
  hipLaunchKernelGGL(buffer_copy, dim3(1), dim3(64), 0, nullptr, in, out, 150, 200);
  REQUIRE(hipGetLastError() == hipSuccess);
  for (int i = 0; i < 256; ++i) {
    INFO(i);
    CHECK(out[i] == (i >= 200 ? -1.0f : i < 150 ? float(i + 1) : 0.0f));
  }
  CHECK(emu::last_launch_counters().global_bytes_read == 600);
  CHECK(emu::last_launch_counters().global_bytes_read_distinct == 600);
  CHECK(emu::last_launch_counters().global_bytes_written == 800);
  // Reads are also counted by the allocation they came from; a buffer based inside one (40 floats
  // in, below) counts against the allocation, not the descriptor's base.
  CHECK(emu::last_launch_counters().bytes_read_from(in) == 600);
  CHECK(emu::last_launch_counters().bytes_read_from(out) == 0);
  float* second;
  REQUIRE(hipMalloc(&second, 256 * sizeof(float)) == hipSuccess);
  hipLaunchKernelGGL(buffer_copy, dim3(1), dim3(64), 0, nullptr, in + 40, second, 100, 256);
  CHECK(emu::last_launch_counters().bytes_read_from(in) == 400);
  hipLaunchKernelGGL(buffer_copy, dim3(1), dim3(64), 0, nullptr, second, out, 256, 256);
  CHECK(second[0] == 41.0f);
  CHECK(emu::last_launch_counters().bytes_read_from(second) == 1024);
  CHECK(emu::last_launch_counters().bytes_read_from(in) == 0);
  CHECK(emu::last_launch_counters().bytes_read_by_allocation.size() == 1);
  hipFree(in);
  hipFree(out);
  hipFree(second);
}

// Every block reads the same 16 floats, block b also the 4 floats at 64 + 2b (overlapping its
// neighbour's two) and the 2 bytes at 800 + 2b: distinct bytes count each byte once per launch.
__global__ void overlapping_reads(const float* in, float* out) {
  const auto src = __builtin_amdgcn_make_buffer_rsrc(const_cast<float*>(in), 0, 1024, 0x00020000);
  const int lane = int(threadIdx.x);
  float v = 0;
  if (lane < 16) v = __builtin_bit_cast(float, __builtin_amdgcn_raw_buffer_load_b32(src, 4 * lane, 0, 0));
  if (lane < 4)
    v += __builtin_bit_cast(float,
                            __builtin_amdgcn_raw_buffer_load_b32(src, 4 * (64 + 2 * int(blockIdx.x) + lane), 0, 0));
  if (lane == 0) v += float(__builtin_amdgcn_raw_buffer_load_b16(src, 800 + 2 * int(blockIdx.x), 0, 0) != 0);
  out[blockIdx.x * 64 + lane] = v;
}

TEST_CASE("distinct bytes read count each byte of an allocation once per launch", "[emu][counters]") {
  float *in, *out;
  REQUIRE(hipMalloc(&in, 256 * sizeof(float)) == hipSuccess);
  REQUIRE(hipMalloc(&out, 8 * 64 * sizeof(float)) == hipSuccess);
  for (int i = 0; i < 256; ++i) in[i] = float(i);
  hipLaunchKernelGGL(overlapping_reads, dim3(8), dim3(64), 0, nullptr, in, out);
  REQUIRE(hipGetLastError() == hipSuccess);
  const auto& c = emu::last_launch_counters();
  CHECK(c.global_bytes_read == 8 * ((16 + 4) * 4 + 2));
  // Floats 0-15, 64 .. 64 + 2 * 7 + 3 = 81 (18 more), and bytes 800-815.
  CHECK(c.global_bytes_read_distinct == (16 + 18) * 4 + 16);
  CHECK(out[7 * 64 + 1] == 1.0f + float(64 + 14 + 1));
  // A second launch starts afresh; accumulated counters sum the launches.
  emu::reset_counters();
  hipLaunchKernelGGL(overlapping_reads, dim3(8), dim3(64), 0, nullptr, in, out);
  hipLaunchKernelGGL(overlapping_reads, dim3(1), dim3(64), 0, nullptr, in, out);
  CHECK(emu::last_launch_counters().global_bytes_read_distinct == (16 + 4) * 4 + 2);
  CHECK(emu::accumulated_counters().global_bytes_read_distinct == (16 + 18) * 4 + 16 + (16 + 4) * 4 + 2);
  hipFree(in);
  hipFree(out);
}

TEST_CASE("a launch log holds each launch's own counters while it lives", "[emu][counters]") {
  float *in, *out;
  REQUIRE(hipMalloc(&in, 256 * sizeof(float)) == hipSuccess);
  REQUIRE(hipMalloc(&out, 8 * 64 * sizeof(float)) == hipSuccess);
  hipLaunchKernelGGL(overlapping_reads, dim3(1), dim3(64), 0, nullptr, in, out);  // before: not logged
  {
    emu::launch_log log;
    hipLaunchKernelGGL(overlapping_reads, dim3(8), dim3(64), 0, nullptr, in, out);
    {
      emu::launch_log inner;  // nested: the same log, not restarted
      hipLaunchKernelGGL(overlapping_reads, dim3(2), dim3(64), 0, nullptr, in, out);
      CHECK(inner.launches().size() == 2);
    }
    REQUIRE(log.launches().size() == 2);
    CHECK(log.launches()[0].blocks == 8);
    CHECK(log.launches()[0].global_bytes_read == 8 * ((16 + 4) * 4 + 2));
    CHECK(log.launches()[1].blocks == 2);
    CHECK(log.launches()[1].global_bytes_read_distinct == (16 + 6) * 4 + 4);
  }
  hipLaunchKernelGGL(overlapping_reads, dim3(1), dim3(64), 0, nullptr, in, out);  // after: not logged
  // A new log starts empty.
  emu::launch_log again;
  CHECK(again.launches().empty());
  hipFree(in);
  hipFree(out);
}

TEST_CASE("MFMA instructions are counted by kind, barriers per block", "[emu][counters]") {
  float* out;
  REQUIRE(hipMalloc(&out, 3 * 128 * sizeof(float)) == hipSuccess);
  hipLaunchKernelGGL(mfma_and_barriers, dim3(3), dim3(128), 0, nullptr, out);
  REQUIRE(hipGetLastError() == hipSuccess);
  const emu::launch_counters& c = emu::last_launch_counters();
  CHECK(c.mfma.at("v_mfma_f32_16x16x32_fp8_fp8") == 3 * 2 * 2);  // blocks x waves x instructions
  CHECK(c.mfma.at("v_mfma_f32_16x16x32_bf8_bf8") == 3 * 2);
  CHECK(c.mfma_total() == 18);
  CHECK(c.barriers == 3 * 2);
  CHECK(c.blocks == 3);
  CHECK(c.waves == 6);
  const std::string s = c.summary();
  CHECK_THAT(s, Catch::Contains("v_mfma_f32_16x16x32_fp8_fp8: 12") && Catch::Contains("barriers 6"));
  hipFree(out);
}
