// Host quantizers: fp8 with 1x128 / 128x128 fp32 block scales, and OCP MX (e8m0 1x32 scales).
// Known values, round-trip error bounds derived from each format's quantum, and every error path.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "wavekit/core/mx_rounding.hpp"
#include "wavekit/host/quantize_blockscale.hpp"
#include "wavekit/host/quantize_mx.hpp"

using namespace wavekit;
using namespace wavekit::host;

namespace {

std::vector<float> random_matrix(int rows, int cols, std::uint32_t seed, float spread = 3.0f) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> n(0.0f, 1.0f);
  std::uniform_real_distribution<float> e(-spread, spread);
  std::vector<float> x(std::size_t(rows) * cols);
  for (float& v : x) v = n(rng) * std::exp2(e(rng));
  return x;
}

// Largest rounding error of round-to-nearest into T at magnitude v (v within range):
// half the spacing of T's values at v's binade, or at the subnormal binade below min_normal.
template <class T>
double half_quantum(double v) {
  using F = typename T::format;
  const int emin = 1 - F::bias;
  const int e = v > 0 ? std::max(int(std::floor(std::log2(v))), emin) : emin;
  return std::ldexp(0.5, e - F::mantissa_bits);
}

}  // namespace

TEMPLATE_TEST_CASE("1x128 quantization: scales from amax, error within half a quantum", "[host][quantize]",
                   fp8_e4m3fnuz, fp8_e4m3fn) {
  using T = TestType;
  const int rows = 3, cols = 300;  // a ragged last block of 44 columns
  const std::vector<float> x = random_matrix(rows, cols, 7);
  const auto q = quantize_fp8_1x128<T>(x, rows, cols);
  REQUIRE(q.scale_rows() == 3);
  REQUIRE(q.scale_cols() == 3);
  for (int r = 0; r < rows; ++r)
    for (int b = 0; b < 3; ++b) {
      float amax = 0.0f;
      for (int c = b * 128; c < std::min(cols, b * 128 + 128); ++c) amax = std::max(amax, std::fabs(x[r * cols + c]));
      CHECK(q.scale_at(r, b * 128) == amax / element_limits<T>::max_finite);
    }
  const std::vector<float> back = dequantize(q);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) {
      const double scale = q.scale_at(r, c);
      const double v = std::fabs(double(x[r * cols + c]) / scale);
      INFO("(" << r << ", " << c << ") x = " << x[r * cols + c]);
      // The block's amax lands at max_finite up to fp32 rounding of x / scale.
      CHECK(std::fabs(double(back[r * cols + c]) - x[r * cols + c]) <=
            scale * (half_quantum<T>(v) + std::max(0.0, v - element_limits<T>::max_finite)) * (1 + 1e-6));
    }
}

TEMPLATE_TEST_CASE("128x128 quantization covers ragged blocks in both directions", "[host][quantize]", fp8_e4m3fnuz,
                   fp8_e4m3fn) {
  using T = TestType;
  const int rows = 130, cols = 256;
  const std::vector<float> x = random_matrix(rows, cols, 11);
  const auto q = quantize_fp8_128x128<T>(x, rows, cols);
  REQUIRE(q.scale_rows() == 2);
  REQUIRE(q.scale_cols() == 2);
  for (int br = 0; br < 2; ++br)
    for (int bc = 0; bc < 2; ++bc) {
      float amax = 0.0f;
      int amax_index = -1;
      for (int r = br * 128; r < std::min(rows, br * 128 + 128); ++r)
        for (int c = bc * 128; c < bc * 128 + 128; ++c)
          if (std::fabs(x[r * cols + c]) > amax) amax = std::fabs(x[r * cols + c]), amax_index = r * cols + c;
      CHECK(q.scale_at(br * 128, bc * 128) == amax / element_limits<T>::max_finite);
      // The largest element maps to the largest finite code.
      CHECK((q.data[amax_index].bits & 0x7F) == format_traits<typename T::format>::max_magnitude);
    }
}

TEST_CASE("an all-zero block gets scale 1 and zero codes", "[host][quantize]") {
  std::vector<float> x(2 * 128, 0.0f);
  x[128] = -2.0f;
  const auto q = quantize_fp8_1x128<fp8_e4m3fnuz>(x, 2, 128);
  CHECK(q.scales[0] == 1.0f);
  CHECK(q.data[5].bits == 0);
  CHECK(q.scales[1] == 2.0f / 240.0f);
  CHECK(to_float(q.data[128]) == -240.0f);
}

TEST_CASE("blockscale quantizer rejects bad input with a message", "[host][quantize]") {
  std::vector<float> x(10, 1.0f);
  CHECK_THROWS_WITH(quantize_fp8_1x128<fp8_e4m3fn>(x, 2, 4), Catch::Contains("expected rows * cols = 8"));
  CHECK_THROWS_WITH(quantize_fp8_1x128<fp8_e4m3fn>(x, 0, 10), Catch::Contains("must be positive"));
  CHECK_THROWS_WITH(quantize_blockscale<fp8_e4m3fn>(x, 1, 10, 0, 128), Catch::Contains("block sizes"));
  x[7] = std::numeric_limits<float>::infinity();
  CHECK_THROWS_WITH(quantize_fp8_1x128<fp8_e4m3fn>(x, 2, 5), Catch::Contains("non-finite input at (1, 2)"));
}

TEST_CASE("MX scale exponent follows the reference quantizer's amax rounding", "[host][quantize][mx]") {
  // fp4 (max 6 = 1.5 * 2^2): amax mantissas below 1.75 keep their binade, 1.75 and above carry.
  CHECK(mx_scale_exponent<fp4_e2m1>(6.0f) == 0);
  CHECK(mx_scale_exponent<fp4_e2m1>(6.99f) == 0);
  CHECK(mx_scale_exponent<fp4_e2m1>(7.0f) == 1);
  CHECK(mx_scale_exponent<fp4_e2m1>(1.0f) == -2);
  CHECK(mx_scale_exponent<fp4_e2m1>(0.0f) == -127);
  CHECK(mx_scale_exponent<fp4_e2m1>(std::numeric_limits<float>::denorm_min() * 1000) == -127);  // subnormal amax
  CHECK(mx_scale_exponent<fp4_e2m1>(std::numeric_limits<float>::max()) == 127);
  // e4m3fn (max 448 = 1.75 * 2^8) and e5m2 (max 57344 = 1.75 * 2^15).
  CHECK(mx_scale_exponent<fp8_e4m3fn>(448.0f) == 1);
  CHECK(mx_scale_exponent<fp8_e4m3fn>(1.0f) == -8);
  CHECK(mx_scale_exponent<bf8_e5m2>(1.0f) == -15);
  CHECK(mx_scale_exponent<fp8_e4m3fn>(std::ldexp(1.0f, -126)) == -127);  // clamped
}

TEST_CASE("MXFP4 quantization of known blocks", "[host][quantize][mx]") {
  std::vector<float> x(64);
  for (int i = 0; i < 32; ++i) x[i] = 0.0f;
  x[0] = 7.0f, x[1] = -5.0f, x[2] = 0.75f, x[3] = 0.25f, x[4] = -0.0f;  // block 0: exponent 1
  for (int i = 32; i < 64; ++i) x[i] = 0.0f;                            // block 1: all zero
  const auto q = quantize_mx<fp4_e2m1>(x, 1, 64);
  REQUIRE(q.data.size() == 32);
  CHECK(q.scales[0].bits == 128);
  CHECK(q.scales[1].bits == 0);                  // 2^-127
  CHECK(to_float(q.element_at(0, 0)) == 4.0f);   // 3.5 ties to even: 4
  CHECK(to_float(q.element_at(0, 1)) == -2.0f);  // -2.5 ties to even: -2
  CHECK(to_float(q.element_at(0, 2)) == 0.5f);   // 0.375 rounds to 0.5
  CHECK(to_float(q.element_at(0, 3)) == 0.0f);   // 0.125 rounds to 0
  CHECK(q.element_at(0, 4).bits == 0x8);         // -0 keeps its sign
  CHECK(q.data[0].bits == ((q.element_at(0, 1).bits << 4) | q.element_at(0, 0).bits));
  CHECK(q.value_at(0, 0) == 8.0f);
  CHECK(q.value_at(0, 40) == 0.0f);
}

TEST_CASE("MXFP4 element ties under both roundings", "[host][quantize][mx]") {
  // One block of scale 2^0 (amax 6): every midpoint of e2m1's grid, both signs, and values just
  // beside the midpoints, which round alike under both rules.
  const float ties[] = {0.25f, 0.75f, 1.25f, 1.75f, 2.5f, 3.5f, 5.0f};
  const float even[] = {0.0f, 1.0f, 1.0f, 2.0f, 2.0f, 4.0f, 4.0f};
  const float away[] = {0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f};
  std::vector<float> x(64, 0.0f);
  x[0] = 6.0f;
  for (int i = 0; i < 7; ++i) x[1 + i] = ties[i], x[8 + i] = -ties[i];
  for (int i = 0; i < 7; ++i) x[15 + i] = std::nextafter(ties[i], 0.0f), x[22 + i] = -std::nextafter(ties[i], 10.0f);
  x[29] = -0.0f;
  for (int i = 32; i < 64; ++i) x[i] = std::ldexp(x[i - 32], -40);  // the same at scale 2^-40
  const auto qe = quantize_mx<fp4_e2m1>(x, 1, 64, mx_rounding::nearest_even);
  const auto qa = quantize_mx<fp4_e2m1>(x, 1, 64, mx_rounding::ties_away_from_zero);
  const auto qd = quantize_mx<fp4_e2m1>(x, 1, 64);  // the default: nearest even
  CHECK(qd.data == qe.data);
  for (int b = 0; b < 2; ++b) {
    const int o = 32 * b;
    CHECK(qe.scales[b].exponent() == -40 * b);
    CHECK(qa.scales[b] == qe.scales[b]);
    for (int i = 0; i < 7; ++i) {
      INFO("tie " << ties[i] << " in block " << b);
      CHECK(to_float(qe.element_at(0, o + 1 + i)) == even[i]);
      CHECK(to_float(qa.element_at(0, o + 1 + i)) == away[i]);
      CHECK(to_float(qe.element_at(0, o + 8 + i)) == -even[i]);
      CHECK(to_float(qa.element_at(0, o + 8 + i)) == -away[i]);
      // Just below a midpoint rounds down, just above (in magnitude) up, under both.
      CHECK(qa.element_at(0, o + 15 + i) == qe.element_at(0, o + 15 + i));
      CHECK(qa.element_at(0, o + 22 + i) == qe.element_at(0, o + 22 + i));
      CHECK(std::fabs(to_float(qa.element_at(0, o + 22 + i))) == away[i]);
    }
    CHECK(qe.element_at(0, o + 8).bits == 0x8);   // -0.25 to -0 under nearest even
    CHECK(qa.element_at(0, o + 29).bits == 0x8);  // -0 stays -0
  }
  CHECK(std::string(to_string(mx_rounding::ties_away_from_zero)) == "ties_away_from_zero");
}

TEST_CASE("MXFP8 element ties under both roundings", "[host][quantize][mx]") {
  // e4m3fn, scale 2^0 (amax 400): midpoints of normals (1 + 1/16: even 1, away 1.125; 1 + 3/16:
  // 1.25 under both; 13.5 between 13 and 14: even 14, away 14) and of subnormals (2.5 * 2^-9: even
  // 2 * 2^-9, away 3 * 2^-9; 0.5 * 2^-9: 0 or 2^-9), and e5m2 (scale 2^0 with amax 40000).
  std::vector<float> x(32, 0.0f);
  x[0] = 400.0f, x[1] = 1.0625f, x[2] = -1.1875f, x[3] = 13.5f, x[4] = std::ldexp(-2.5f, -9),
  x[5] = std::ldexp(0.5f, -9);
  const auto e8 = quantize_mx<fp8_e4m3fn>(x, 1, 32, mx_rounding::nearest_even);
  const auto a8 = quantize_mx<fp8_e4m3fn>(x, 1, 32, mx_rounding::ties_away_from_zero);
  REQUIRE(e8.scales[0].exponent() == 0);
  CHECK(to_float(e8.element_at(0, 1)) == 1.0f);
  CHECK(to_float(a8.element_at(0, 1)) == 1.125f);
  CHECK(to_float(e8.element_at(0, 2)) == -1.25f);
  CHECK(to_float(a8.element_at(0, 2)) == -1.25f);
  CHECK(to_float(e8.element_at(0, 3)) == 14.0f);
  CHECK(to_float(a8.element_at(0, 3)) == 14.0f);
  CHECK(to_float(e8.element_at(0, 4)) == std::ldexp(-2.0f, -9));
  CHECK(to_float(a8.element_at(0, 4)) == std::ldexp(-3.0f, -9));
  CHECK(to_float(e8.element_at(0, 5)) == 0.0f);
  CHECK(to_float(a8.element_at(0, 5)) == std::ldexp(1.0f, -9));
  x[0] = 40000.0f, x[1] = 1.125f, x[2] = -2.25f;  // e5m2: midpoints of 1 and 1.25, of 2 and 2.5
  const auto e5 = quantize_mx<bf8_e5m2>(x, 1, 32, mx_rounding::nearest_even);
  const auto a5 = quantize_mx<bf8_e5m2>(x, 1, 32, mx_rounding::ties_away_from_zero);
  REQUIRE(e5.scales[0].exponent() == 0);
  CHECK(to_float(e5.element_at(0, 1)) == 1.0f);
  CHECK(to_float(a5.element_at(0, 1)) == 1.25f);
  CHECK(to_float(e5.element_at(0, 2)) == -2.0f);
  CHECK(to_float(a5.element_at(0, 2)) == -2.5f);
}

TEMPLATE_TEST_CASE("round_to_grid_ties_away is the ties-away encoding, as an fp32", "[host][quantize][mx]", fp4_e2m1,
                   fp8_e4m3fn) {
  // Every bf16 value (every midpoint of the grid is one), its fp32 neighbours, and every 97th fp32
  // bit pattern, of both signs (NaN excepted): the value it gives, encoded with nearest even (exact,
  // being on the grid), equals the direct ties-away encoding, saturating.
  using T = TestType;
  using F = typename T::format;
  int failures = 0;
  auto check_one = [&](std::uint32_t bits) {
    const float y = __builtin_bit_cast(float, bits);
    if (std::isnan(y)) return;
    const float g = round_to_grid_ties_away<T>(y);
    const std::uint32_t want = encode_float<F>(y, overflow_policy::saturate, wavekit::detail::round_half_away{});
    if ((encode_float<F>(g, overflow_policy::saturate) != want || std::signbit(g) != std::signbit(y)) && failures++ < 5)
      FAIL_CHECK("y = " << y << " (bits " << bits << "): grid value " << g);
  };
  for (std::uint32_t hi = 0; hi <= 0xFFFF; ++hi)
    for (std::uint32_t lo : {0x0000u, 0x0001u, 0xFFFFu}) check_one(hi << 16 | lo);
  for (std::uint64_t bits = 0; bits <= 0xFFFFFFFFu; bits += 97) check_one(static_cast<std::uint32_t>(bits));
  CHECK(failures == 0);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  CHECK(std::isnan(round_to_grid_ties_away<T>(nan)));
  CHECK(std::isnan(round_to_grid_ties_away<T>(__builtin_bit_cast(float, 0xFF800001u))));  // low payload
  CHECK(round_to_grid_ties_away<T>(std::numeric_limits<float>::infinity()) == std::numeric_limits<float>::infinity());
  CHECK(std::signbit(round_to_grid_ties_away<T>(-0.0f)));
}

TEMPLATE_TEST_CASE("MX round trip stays within half a quantum of the scaled value", "[host][quantize][mx]", fp8_e4m3fn,
                   bf8_e5m2, fp4_e2m1) {
  using T = TestType;
  const int rows = 5, cols = 96;
  const std::vector<float> x = random_matrix(rows, cols, 3, 6.0f);
  const auto q = quantize_mx<T>(x, rows, cols);
  const std::vector<float> back = dequantize(q);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) {
      const double scale = to_float(q.scale_at(r, c));
      const double v = std::fabs(double(x[r * cols + c])) / scale;
      INFO("(" << r << ", " << c << ") x = " << x[r * cols + c] << " scale " << scale);
      CHECK(v < 2 * element_limits<T>::max_finite);
      CHECK(std::fabs(double(back[r * cols + c]) - x[r * cols + c]) <=
            scale * (half_quantum<T>(v) + std::max(0.0, v - element_limits<T>::max_finite)));
    }
}

TEST_CASE("MX quantizer rejects bad input with a message", "[host][quantize][mx]") {
  std::vector<float> x(48, 1.0f);
  CHECK_THROWS_WITH(quantize_mx<fp4_e2m1>(x, 1, 48), Catch::Contains("multiple of 32"));
  CHECK_THROWS_WITH(quantize_mx<fp8_e4m3fn>(x, 2, 32), Catch::Contains("expected rows * cols = 64"));
  x[3] = std::numeric_limits<float>::quiet_NaN();
  CHECK_THROWS_WITH(quantize_mx<fp8_e4m3fn>(std::span<const float>(x.data(), 32), 1, 32),
                    Catch::Contains("non-finite input at (0, 3)"));
}
