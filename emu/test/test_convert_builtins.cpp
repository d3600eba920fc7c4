// fp8 conversion builtins on the emulated gfx942 (fnuz, MODE.FP16_OVFL = 0), against the
// examples and rules of docs/hardware.md 2.2.
#include <hip/hip_runtime.h>
#include <catch2/catch.hpp>

#include <cstdint>
#include <limits>

#include "wavekit/core/numeric_types.hpp"

using namespace wavekit;

TEST_CASE("cvt_pk_fp8_f32 packs a then b into the selected half and keeps the other", "[emu][convert]") {
  // 300.0f overflows e4m3fnuz: NaN 0x80 with FP16_OVFL = 0 (the example in docs/hardware.md 2.2).
  CHECK(__builtin_amdgcn_cvt_pk_fp8_f32(300.0f, 1.0f, 0x12345678, false) == 0x12344080);
  CHECK(static_cast<std::uint32_t>(__builtin_amdgcn_cvt_pk_fp8_f32(1.0f, -2.0f, 0x12345678, true)) == 0xC8405678u);
  CHECK((__builtin_amdgcn_cvt_pk_bf8_f32(1.0f, 57344.0f, 0, false) & 0xFFFF) == 0x7F40);
  CHECK((__builtin_amdgcn_cvt_pk_bf8_f32(1e9f, 0.0f, 0, false) & 0xFF) == 0x80);  // overflow: NaN
  CHECK((__builtin_amdgcn_cvt_pk_fp8_f32(std::numeric_limits<float>::quiet_NaN(), 0.0f, 0, false) & 0xFF) == 0x80);
  CHECK((__builtin_amdgcn_cvt_pk_fp8_f32(-1e-30f, 0.0f, 0, false) & 0xFF) == 0x00);  // no -0 in fnuz
}

TEST_CASE("cvt_f32_fp8 and cvt_pk_f32_fp8 select bytes and words", "[emu][convert]") {
  const int packed = 0x38404850;  // bytes: 0x50, 0x48, 0x40, 0x38
  for (int b = 0; b < 4; ++b)
    CHECK(__builtin_amdgcn_cvt_f32_fp8(packed, b) == to_float(fp8_e4m3fnuz::from_bits((packed >> (8 * b)) & 0xFF)));
  const auto lo = __builtin_amdgcn_cvt_pk_f32_fp8(packed, false), hi = __builtin_amdgcn_cvt_pk_f32_fp8(packed, true);
  CHECK(lo.x == to_float(fp8_e4m3fnuz{0x50}));
  CHECK(lo.y == to_float(fp8_e4m3fnuz{0x48}));
  CHECK(hi.x == to_float(fp8_e4m3fnuz{0x40}));
  CHECK(hi.y == to_float(fp8_e4m3fnuz{0x38}));
  CHECK(__builtin_amdgcn_cvt_f32_bf8(0x7F, 0) == 57344.0f);
  CHECK(std::isnan(__builtin_amdgcn_cvt_f32_fp8(0x80, 0)));
}

TEST_CASE("cvt_sr_fp8_f32 adds the random bits to the discarded ones and truncates", "[emu][convert]") {
  // 1.0 + 2^-5 lies between 1.0 (0x40) and 1.125 (0x41) in e4m3fnuz: 20 discarded bits hold
  // 0.25 of a step, so the top 20 random bits round up only when they are >= 0.75 of 2^20.
  const float x = 1.0f + 0x1p-5f;
  CHECK((__builtin_amdgcn_cvt_sr_fp8_f32(x, 0, 0, 0) & 0xFF) == 0x40);
  CHECK((__builtin_amdgcn_cvt_sr_fp8_f32(x, static_cast<int>(0xBFFFF000u), 0, 0) & 0xFF) == 0x40);
  CHECK((__builtin_amdgcn_cvt_sr_fp8_f32(x, static_cast<int>(0xC0000000u), 0, 0) & 0xFF) == 0x41);
  // Writes only the selected byte.
  CHECK(static_cast<std::uint32_t>(__builtin_amdgcn_cvt_sr_fp8_f32(1.0f, 0, 0x11223344, 2)) == 0x11403344u);
  // Overflow is decided after rounding: 250 truncates to 240 but rounds up to 256 (NaN).
  CHECK((__builtin_amdgcn_cvt_sr_fp8_f32(250.0f, 0, 0, 0) & 0xFF) == 0x7F);
  CHECK((__builtin_amdgcn_cvt_sr_fp8_f32(250.0f, -1, 0, 0) & 0xFF) == 0x80);
}
