// block/quantize_1x128: the device's 1x128 activation quantizer against host::quantize_fp8_1x128,
// bit for bit, with the fp8 format the target reads: bf16 and fp16 rows whose 128-column blocks
// span magnitudes (all zeros, values that land on fp8 subnormals, fp16's largest), a row table
// that skips rows (their bytes untouched), a NaN element (NaN in its own byte, the block's scale
// from the others), and the traffic (each input byte read once, each output written once).
#include <hip/hip_runtime.h>
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "support/device_fp8.hpp"
#include "wavekit/block/quantize_1x128.hpp"
#include "wavekit/host/quantize_blockscale.hpp"

using namespace wavekit;

namespace {

template <class T, class Fp8>
__global__ void quantize_kernel(block::quantize_1x128_args<T, Fp8> a) {
  block::quantize_1x128_item(a, static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x));
}

// rows x cols values of T, block b of row r scaled by 2^(spread * (b - r)): blocks from tiny to large.
template <class T>
std::vector<T> spread_rows(int rows, int cols, int spread, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<T> x(std::size_t(rows) * cols);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c)
      x[std::size_t(r) * cols + c] = saturate_cast<T>(std::ldexp(u(rng), spread * (c / 128 - r)));
  return x;
}

template <class T, class Fp8>
void check_rows(const std::vector<T>& x, int rows, int cols, const std::vector<int>& rows_in_use) {
  T* d_x;
  Fp8* q;
  float* scale;
  int* in_use = nullptr;
  hipMallocManaged(&d_x, x.size() * sizeof(T)), hipMallocManaged(&q, x.size()),
      hipMallocManaged(&scale, x.size() / 128 * 4);
  std::memcpy(d_x, x.data(), x.size() * sizeof(T));
  std::memset(q, 0xAB, x.size()), std::memset(scale, 0xAB, x.size() / 128 * 4);
  if (!rows_in_use.empty()) {
    hipMallocManaged(&in_use, rows * sizeof(int));
    std::memcpy(in_use, rows_in_use.data(), rows * sizeof(int));
  }
  const block::quantize_1x128_args<T, Fp8> a{d_x, q, scale, in_use, rows, cols};
#if defined(WAVEKIT_EMULATOR)
  emu::reset_counters();
#endif
  hipLaunchKernelGGL((quantize_kernel<T, Fp8>), dim3((a.items() + 255) / 256), dim3(256), 0, nullptr, a);
  REQUIRE(hipGetLastError() == hipSuccess);
  REQUIRE(hipDeviceSynchronize() == hipSuccess);
  int quantized_rows = 0;
  for (int r = 0; r < rows; ++r) {
    INFO("row " << r);
    const bool used = rows_in_use.empty() || rows_in_use[r] >= 0;
    quantized_rows += used;
    std::vector<float> f(cols);
    std::vector<int> nan_at;
    for (int c = 0; c < cols; ++c) {
      f[c] = widen_to_float(x[std::size_t(r) * cols + c]);
      if (std::isnan(f[c])) nan_at.push_back(c), f[c] = 0.0f;  // the host quantizer takes finite values
    }
    const auto h = host::quantize_fp8_1x128<Fp8>(f, 1, cols);
    for (int c = 0; c < cols; ++c) {
      const std::uint8_t got = q[std::size_t(r) * cols + c].bits;
      if (!used) {
        REQUIRE(got == 0xAB);
      } else if (std::find(nan_at.begin(), nan_at.end(), c) != nan_at.end()) {
        REQUIRE(std::isnan(to_float(Fp8::from_bits(got))));
      } else {
        INFO("column " << c << ": " << f[c]);
        REQUIRE(got == h.data[c].bits);
      }
    }
    for (int b = 0; b < cols / 128; ++b) {
      const float s = scale[std::size_t(r) * (cols / 128) + b];
      if (used)
        REQUIRE(std::memcmp(&s, &h.scales[b], 4) == 0);
      else
        REQUIRE(std::memcmp(&s, "\xAB\xAB\xAB\xAB", 4) == 0);
    }
  }
#if defined(WAVEKIT_EMULATOR)
  const auto& n = emu::last_launch_counters();
  CHECK(n.global_bytes_read == std::uint64_t(quantized_rows) * cols * sizeof(T));
  CHECK(n.global_bytes_written == std::uint64_t(quantized_rows) * (cols + cols / 128 * 4));
#endif
  hipFree(d_x), hipFree(q), hipFree(scale);
  if (in_use) hipFree(in_use);
}

}  // namespace

TEST_CASE("quantize_1x128 matches the host quantizer bit for bit", "[emu][block]") {
  test::with_device_fp8([&](auto fp8_format) {
    using fp8 = decltype(fp8_format);
    // bf16: blocks from 2^-24 to 2^8 of each other (fp8 subnormals after scaling where a block's
    // values differ widely); one all-zero block.
    auto b = spread_rows<bf16>(6, 512, 6, 1);
    for (int c = 128; c < 256; ++c) b[2 * 512 + c] = bf16{};
    check_rows<bf16, fp8>(b, 6, 512, {});
    // fp16 up to its largest finite value.
    auto h = spread_rows<fp16>(3, 256, 4, 2);
    h[5] = saturate_cast<fp16>(65504.0f), h[300] = saturate_cast<fp16>(-65504.0f);
    check_rows<fp16, fp8>(h, 3, 256, {});
    // A row table: rows 1 and 3 are skipped (their bytes stay as they were).
    check_rows<bf16, fp8>(spread_rows<bf16>(4, 128, 0, 3), 4, 128, {0, -1, 7, -1});
    // A NaN element: NaN in its own byte, the rest of its block scaled by the others' amax.
    auto n = spread_rows<bf16>(2, 256, 0, 4);
    n[130] = bf16::from_bits(0x7FC0);
    check_rows<bf16, fp8>(n, 2, 256, {});
  });
}
