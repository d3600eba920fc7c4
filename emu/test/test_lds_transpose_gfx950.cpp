// gfx950's ds_read_b64_tr_b16 on the emulator (arch::lds_load_transposed_b16) against the
// permutation of docs/hardware.md 4.3, written out here: dst[l][n] = src[(l & ~15) + ((l >> 2) & 3)
// + 4 n][l & 3]. Also the use it is for (a K-major tile read as MFMA operand rows) and its LDS
// accounting (one ds_read_b64 a call, bank conflicts as that instruction's).
#include <hip/hip_runtime.h>
#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "wavekit/arch/lds.hpp"

namespace {

// Each lane names the 8 bytes at halfword 4 * pick(lane) of a 256-halfword LDS array holding 0..255.
__global__ void transposed_reads(std::uint16_t* out, int pattern) {
  WAVEKIT_LDS_ARRAY(std::uint16_t, table, 256);
  const unsigned l = threadIdx.x;
  for (unsigned i = l; i < 256; i += 64) wavekit::arch::lds_store<4>(&table[i & ~1u], (i & ~1u) | ((i | 1u) << 16));
  __syncthreads();
  const unsigned pick = pattern == 0 ? l : (l * 37 + 11) % 64;
  const auto v = wavekit::arch::lds_load_transposed_b16(&table[4 * pick]);
  for (int n = 0; n < 4; ++n) out[4 * l + n] = static_cast<std::uint16_t>(v[n / 2] >> (16 * (n % 2)));
}

// A 16-column, 4-row-per-group K-major tile: lane 4 n + q of group g names row 4 g + n, columns
// 4 q .. 4 q + 3 of a [16][16] halfword tile holding 100 * row + column.
__global__ void operand_rows(std::uint16_t* out) {
  WAVEKIT_LDS_ARRAY(std::uint16_t, tile, 256);
  const unsigned l = threadIdx.x;
  for (unsigned i = l; i < 256; i += 64) {
    const unsigned e = i & ~1u;
    wavekit::arch::lds_store<4>(&tile[e], (100 * (e / 16) + e % 16) | ((100 * ((e + 1) / 16) + (e + 1) % 16) << 16));
  }
  __syncthreads();
  const unsigned g = l / 16, n = l % 16 / 4, q = l % 4;
  const auto v = wavekit::arch::lds_load_transposed_b16(&tile[16 * (4 * g + n) + 4 * q]);
  for (int k = 0; k < 4; ++k) out[4 * l + k] = static_cast<std::uint16_t>(v[k / 2] >> (16 * (k % 2)));
}

std::vector<std::uint16_t> run(void (*kernel)(std::uint16_t*, int), int pattern) {
  std::uint16_t* d;
  REQUIRE(hipMalloc(&d, 256 * 2) == hipSuccess);
  hipLaunchKernelGGL(kernel, dim3(1), dim3(64), 0, nullptr, d, pattern);
  std::vector<std::uint16_t> h(256);
  REQUIRE(hipMemcpy(h.data(), d, 256 * 2, hipMemcpyDeviceToHost) == hipSuccess);
  REQUIRE(hipFree(d) == hipSuccess);
  return h;
}

}  // namespace

TEST_CASE("ds_read_b64_tr_b16 exchanges halfwords within groups of 16 lanes as the ISA states", "[emu][lds]") {
  for (int pattern : {0, 1}) {
    const std::vector<std::uint16_t> got = run(transposed_reads, pattern);
    for (int l = 0; l < 64; ++l)
      for (int n = 0; n < 4; ++n) {
        const int src = (l & ~15) + ((l >> 2) & 3) + 4 * n;
        const int pick = pattern == 0 ? src : (src * 37 + 11) % 64;
        INFO("pattern " << pattern << ", lane " << l << ", halfword " << n);
        CHECK(got[4 * l + n] == 4 * pick + (l & 3));
      }
  }
}

TEST_CASE("ds_read_b64_tr_b16 reads a K-major tile as MFMA operand rows", "[emu][lds]") {
  std::uint16_t* d;
  REQUIRE(hipMalloc(&d, 256 * 2) == hipSuccess);
  hipLaunchKernelGGL(operand_rows, dim3(1), dim3(64), 0, nullptr, d);
  const auto c = wavekit::emu::last_launch_counters();
  std::vector<std::uint16_t> got(256);
  REQUIRE(hipMemcpy(got.data(), d, 256 * 2, hipMemcpyDeviceToHost) == hipSuccess);
  REQUIRE(hipFree(d) == hipSuccess);
  // Lane l: column l % 16 of rows 4 (l / 16) .. + 3.
  for (int l = 0; l < 64; ++l)
    for (int k = 0; k < 4; ++k) CHECK(got[4 * l + k] == 100 * (4 * (l / 16) + k) + l % 16);
  // Four stores and the one transposing read; 16 rows x 32 bytes over 64 banks: no conflicts.
  CHECK(c.lds_instructions == 5);
  CHECK(c.lds_bank_conflict_cycles == 0);
}
