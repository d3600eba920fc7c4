// block/quantize_1x32_mx: gfx950's MX activation quantizer against host::quantize_mx, bit for bit
// (elements and e8m0 scales), MXFP4 and MXFP8: bf16 and fp16 rows whose 32-column blocks span magnitudes
// from fp32's subnormals to fp16's and bf16's largest, all-zero blocks, amaxes at the rounding's
// edges (a mantissa just below and at 0.75 of the next power), values on e2m1's and e4m3fn's
// rounding ties and past their saturation, rows of 32 columns and of many blocks; and the traffic: each input byte read
// once, each output byte written once. Under both element roundings (core/mx_rounding.hpp): ties
// away from zero on blocks full of exact ties (bf16 values on the midpoints of e2m1's and e4m3fn's
// grids after the scale) and on random ones, where it must differ from nearest even; NaN and Inf
// become the same codes under both.
#include <hip/hip_runtime.h>
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "wavekit/block/quantize_1x32_mx.hpp"
#include "wavekit/host/quantize_mx.hpp"

using namespace wavekit;

namespace {

// Runs the kernel over x and compares with the host quantizer; returns the mismatches (the first
// few printed).
template <class T, class Elem = fp4_e2m1, mx_rounding R = mx_rounding::nearest_even>
int check(const std::vector<T>& x, int rows, int cols) {
  T* d_x;
  std::uint8_t *q, *scale;
  const std::size_t n = x.size(), bytes = n / host::mx_tensor<Elem>::elements_per_byte;
  hipMallocManaged(&d_x, n * sizeof(T)), hipMallocManaged(&q, bytes), hipMallocManaged(&scale, n / 32);
  std::memcpy(d_x, x.data(), n * sizeof(T));
  std::memset(q, 0xAB, bytes), std::memset(scale, 0xAB, n / 32);
  const block::quantize_1x32_mx_args<T, Elem> a{d_x, q, scale, rows, cols};
#if defined(WAVEKIT_EMULATOR)
  emu::reset_counters();
#endif
  hipLaunchKernelGGL((block::quantize_1x32_mx_kernel<T, Elem, R>), dim3((a.items() + 255) / 256), dim3(256), 0, nullptr,
                     a);
  REQUIRE(hipGetLastError() == hipSuccess);
  REQUIRE(hipDeviceSynchronize() == hipSuccess);
#if defined(WAVEKIT_EMULATOR)
  const emu::launch_counters c = emu::accumulated_counters();
  CHECK(c.global_bytes_read == n * sizeof(T));
  CHECK(c.global_bytes_written == bytes + n / 32);
#endif
  std::vector<float> xf(n);
  for (std::size_t i = 0; i < n; ++i) xf[i] = widen_to_float(x[i]);
  const host::mx_tensor<Elem> want = host::quantize_mx<Elem>(xf, rows, cols, R);
  const std::size_t per_byte = n / bytes;
  int bad = 0;
  for (std::size_t i = 0; i < bytes; ++i)
    if (q[i] != want.data[i].bits && bad++ < 5)
      UNSCOPED_INFO("byte " << i << " (row " << i * per_byte / cols << ", column " << i * per_byte % cols
                            << "): " << int(q[i]) << ", host " << int(want.data[i].bits));
  for (std::size_t i = 0; i < n / 32; ++i)
    if (scale[i] != want.scales[i].bits && bad++ < 5)
      UNSCOPED_INFO("scale " << i << ": " << int(scale[i]) << ", host " << int(want.scales[i].bits));
  hipFree(d_x), hipFree(q), hipFree(scale);
  return bad;
}

// rows x cols values, block b of row r scaled by 2^(spread * (b - r) + shift).
template <class T>
std::vector<T> spread_rows(int rows, int cols, int spread, int shift, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<T> x(std::size_t(rows) * cols);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c)
      x[std::size_t(r) * cols + c] = saturate_cast<T>(std::ldexp(u(rng), spread * (c / 32 - r) + shift));
  return x;
}

// The device's element bytes for x ([1][cols]) under rounding R.
template <class Elem, mx_rounding R>
std::vector<std::uint8_t> device_bytes(const std::vector<bf16>& x) {
  const int cols = static_cast<int>(x.size());
  bf16* d_x;
  std::uint8_t *q, *scale;
  const std::size_t bytes = x.size() / host::mx_tensor<Elem>::elements_per_byte;
  hipMallocManaged(&d_x, x.size() * sizeof(bf16)), hipMallocManaged(&q, bytes), hipMallocManaged(&scale, x.size() / 32);
  std::memcpy(d_x, x.data(), x.size() * sizeof(bf16));
  const block::quantize_1x32_mx_args<bf16, Elem> a{d_x, q, scale, 1, cols};
  hipLaunchKernelGGL((block::quantize_1x32_mx_kernel<bf16, Elem, R>), dim3(1), dim3(256), 0, nullptr, a);
  REQUIRE(hipDeviceSynchronize() == hipSuccess);
  std::vector<std::uint8_t> out(q, q + bytes);
  hipFree(d_x), hipFree(q), hipFree(scale);
  return out;
}

// Blocks of exact ties: each 32-column block has one amax `top` * 2^e (its scale 2^e, e from -30 to
// 30) and, elsewhere, the grid's midpoints `ties` * 2^e with random signs, some 0.3 * 2^e and -0.
template <class T>
std::vector<T> tie_rows(int rows, int cols, float top, const std::vector<float>& ties, std::uint32_t seed) {
  std::mt19937 rng(seed);
  const int n = static_cast<int>(ties.size());
  std::uniform_int_distribution<int> pick(0, n + 1), exponent(-30, 30);
  std::vector<T> x(std::size_t(rows) * cols);
  for (int r = 0; r < rows; ++r)
    for (int b = 0; b < cols / 32; ++b) {
      const int e = exponent(rng);
      for (int i = 0; i < 32; ++i) {
        const int k = pick(rng);
        float v = k < n ? ties[k] : (k == n ? 0.3f : -0.0f);
        if (rng() % 2) v = -v;
        x[std::size_t(r) * cols + b * 32 + i] = saturate_cast<T>(std::ldexp(i == (b * 7 + r) % 32 ? top : v, e));
      }
    }
  return x;
}

// Element bytes that differ between the two roundings of x on the host.
template <class Elem, class T>
int rounding_differences(const std::vector<T>& x, int rows, int cols) {
  std::vector<float> xf(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) xf[i] = widen_to_float(x[i]);
  const auto even = host::quantize_mx<Elem>(xf, rows, cols, mx_rounding::nearest_even);
  const auto away = host::quantize_mx<Elem>(xf, rows, cols, mx_rounding::ties_away_from_zero);
  int n = 0;
  for (std::size_t i = 0; i < even.data.size(); ++i) n += even.data[i].bits != away.data[i].bits;
  return n;
}

}  // namespace

TEST_CASE("quantize_1x32_mx: bit for bit the host's MXFP4 quantizer", "[emu][quantize][mx]") {
  SECTION("bf16 blocks from tiny to large") {
    CHECK(check(spread_rows<bf16>(7, 320, 9, -40, 1), 7, 320) == 0);
    CHECK(check(spread_rows<bf16>(3, 512, 30, -120, 2), 3, 512) == 0);  // fp32 subnormals to 2^100
  }
  SECTION("fp16 blocks, up to fp16's largest") {
    CHECK(check(spread_rows<fp16>(5, 256, 2, 0, 3), 5, 256) == 0);
    std::vector<fp16> big(64, saturate_cast<fp16>(65504.0f));
    big[1] = saturate_cast<fp16>(-65504.0f);
    CHECK(check(big, 2, 32) == 0);
  }
  SECTION("amax at the rounding's edges, e2m1 ties and saturation, zeros") {
    // Block 0: amax 1.4999 (stays in its binade), block 1: 1.5 (carries: exponent one up), block
    // 2: all zeros, block 3: values on ties of e2m1 (0.25, 0.75, 1.25, 2.5, 3.5, 5 at exponent 0).
    std::vector<float> v(128, 0.0f);
    for (int i = 0; i < 32; ++i) v[i] = (i % 2 ? -1.0f : 1.0f) * (0.05f * static_cast<float>(i));
    v[7] = 1.49f;
    for (int i = 32; i < 64; ++i) v[i] = 0.02f * static_cast<float>(i - 32);
    v[40] = -1.5f;
    const float ties[] = {0.25f, 0.75f, 1.25f, 1.75f, 2.5f, 3.5f, 5.0f, 6.0f};
    for (int i = 96; i < 128; ++i) v[i] = ties[i % 8] * (i % 3 ? 1.0f : -1.0f);
    std::vector<bf16> x(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) x[i] = saturate_cast<bf16>(v[i]);
    CHECK(check(x, 1, 128) == 0);
  }
  SECTION("one row of one block; many rows") {
    CHECK(check(spread_rows<bf16>(1, 32, 0, 3, 4), 1, 32) == 0);
    CHECK(check(spread_rows<bf16>(100, 64, 1, 0, 5), 100, 64) == 0);
  }
}

TEST_CASE("quantize_1x32_mx: bit for bit the host's MXFP8 quantizer", "[emu][quantize][mx]") {
  SECTION("bf16 and fp16 blocks from tiny to large") {
    CHECK(check<bf16, fp8_e4m3fn>(spread_rows<bf16>(7, 320, 9, -40, 11), 7, 320) == 0);
    CHECK(check<bf16, fp8_e4m3fn>(spread_rows<bf16>(3, 512, 30, -120, 12), 3, 512) == 0);
    CHECK(check<fp16, fp8_e4m3fn>(spread_rows<fp16>(5, 256, 2, 0, 13), 5, 256) == 0);
  }
  SECTION("amax at the rounding's edges, e4m3fn ties and saturation, zeros") {
    // Block 0: amax 447 (2^8 * 1.746: stays in its binade, so values reach e4m3fn's 448 and
    // saturate there); block 1: amax 0.75 * 2^9 (carries); block 2: zeros; block 3: values on
    // e4m3fn's ties (1 + 1/16, 1 + 3/16 at exponent 0).
    std::vector<float> v(128, 0.0f);
    for (int i = 0; i < 32; ++i) v[i] = (i % 2 ? -1.0f : 1.0f) * 14.0f * static_cast<float>(i);
    v[5] = 447.0f;
    for (int i = 32; i < 64; ++i) v[i] = 3.0f * static_cast<float>(i - 32);
    v[40] = -384.0f;
    const float ties[] = {1.0625f, 1.1875f, 1.3125f, 1.4375f, 1.5625f, 1.6875f, 1.8125f, 1.9375f};
    for (int i = 96; i < 128; ++i) v[i] = ties[i % 8] * (i % 3 ? 1.0f : -1.0f);
    std::vector<bf16> x(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) x[i] = saturate_cast<bf16>(v[i]);
    CHECK(check<bf16, fp8_e4m3fn>(x, 1, 128) == 0);
  }
}

TEST_CASE("quantize_1x32_mx: ties away from zero, bit for bit the host's", "[emu][quantize][mx]") {
  constexpr auto away = mx_rounding::ties_away_from_zero;
  SECTION("MXFP4: blocks of e2m1 ties (0.25, 0.75, 1.25, 1.75, 2.5, 3.5, 5) and values past 6") {
    const std::vector<float> ties = {0.25f, 0.75f, 1.25f, 1.75f, 2.5f, 3.5f, 5.0f, 0.125f, 6.5f};
    const std::vector<bf16> x = tie_rows<bf16>(9, 256, 6.0f, ties, 21);
    CHECK(rounding_differences<fp4_e2m1>(x, 9, 256) > 9 * 256 / 4);  // the data is mostly ties
    CHECK(check<bf16, fp4_e2m1, away>(x, 9, 256) == 0);
    const std::vector<fp16> h = tie_rows<fp16>(4, 64, 4.0f, ties, 22);
    CHECK(rounding_differences<fp4_e2m1>(h, 4, 64) > 0);
    CHECK(check<fp16, fp4_e2m1, away>(h, 4, 64) == 0);
  }
  SECTION("MXFP8: blocks of e4m3fn ties, normal and subnormal") {
    // amax 400 (1.5625 * 2^8: scale 2^e); midpoints between normals at several binades and between
    // subnormals ((k + 1/2) * 2^-9), and 464, between 448 and the NaN code (saturates).
    const std::vector<float> ties = {1.0625f, 1.1875f, 13.5f, 0.0322265625f, 3.0f / 1024, 5.0f / 1024, 464.0f};
    const std::vector<bf16> x = tie_rows<bf16>(6, 128, 400.0f, ties, 23);
    CHECK(rounding_differences<fp8_e4m3fn>(x, 6, 128) > 6 * 128 / 8);  // half the midpoints round alike
    CHECK(check<bf16, fp8_e4m3fn, away>(x, 6, 128) == 0);
  }
  SECTION("random blocks from tiny to large, where the two rules differ") {
    const std::vector<bf16> x = spread_rows<bf16>(7, 320, 9, -40, 24);
    CHECK(rounding_differences<fp4_e2m1>(x, 7, 320) > 0);
    CHECK(check<bf16, fp4_e2m1, away>(x, 7, 320) == 0);
    CHECK(check<bf16, fp4_e2m1, away>(spread_rows<bf16>(3, 512, 30, -120, 25), 3, 512) == 0);  // fp32 subnormals
    CHECK(check<fp16, fp4_e2m1, away>(spread_rows<fp16>(5, 256, 2, 0, 26), 5, 256) == 0);
    CHECK(check<bf16, fp8_e4m3fn, away>(x, 7, 320) == 0);
    CHECK(check<bf16, fp8_e4m3fn, away>(spread_rows<bf16>(3, 512, 30, -120, 27), 3, 512) == 0);
    std::vector<fp16> big(64, saturate_cast<fp16>(65504.0f));  // fp16's largest
    big[1] = saturate_cast<fp16>(-65504.0f);
    CHECK(check<fp16, fp4_e2m1, away>(big, 2, 32) == 0);
    std::vector<bf16> huge(32, bf16::from_bits(0x7F7F));                   // bf16's largest: the scale 2^127
    huge[5] = bf16::from_bits(0x7E00), huge[6] = bf16::from_bits(0x7E40);  // 0.25 and 0.375 times it
    CHECK(check<bf16, fp4_e2m1, away>(huge, 1, 32) == 0);
  }
  SECTION("NaN and Inf become the same codes under both rules") {
    std::vector<bf16> x = tie_rows<bf16>(1, 128, 6.0f, {0.25f, 2.5f}, 28);
    x[3] = bf16::from_bits(0x7FC0), x[4] = bf16::from_bits(0xFF81);    // NaNs, one with a low payload
    x[40] = bf16::from_bits(0x7F80), x[41] = bf16::from_bits(0xFF80);  // +-Inf: that block's scale is 2^127
    x[70] = bf16::from_bits(0x7F81);
    const auto even4 = device_bytes<fp4_e2m1, mx_rounding::nearest_even>(x);
    const auto away4 = device_bytes<fp4_e2m1, away>(x);
    for (int i : {3, 4, 40, 41, 70})
      CHECK(((even4[i / 2] >> (4 * (i % 2))) & 0xF) == ((away4[i / 2] >> (4 * (i % 2))) & 0xF));
    CHECK((away4[20] & 0xF) == 0x7);  // +Inf saturates to 6
    CHECK((away4[20] >> 4) == 0xF);   // -Inf to -6
    const auto even8 = device_bytes<fp8_e4m3fn, mx_rounding::nearest_even>(x);
    const auto away8 = device_bytes<fp8_e4m3fn, away>(x);
    for (int i : {3, 4, 40, 41, 70}) CHECK(even8[i] == away8[i]);
  }
}
