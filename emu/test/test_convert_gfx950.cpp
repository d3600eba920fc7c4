// gfx950 scaled conversions on the emulator (docs/hardware.md 2.3): only the scale's
// exponent counts, narrowing rounds x / scale to nearest even exactly, fp4 saturates, widening
// multiplies by the scale. Also the unscaled converters read and write OCP fp8 on gfx950.
#include <hip/hip_runtime.h>
#include <catch2/catch.hpp>

#include <bit>
#include <cmath>
#include <cstdint>
#include <string>

#include "support/lds_kernels.hpp"
#include "wavekit/arch/fp4_convert.hpp"
#include "wavekit/arch/lds.hpp"
#include "wavekit/core/numeric_types.hpp"

using namespace wavekit;

TEST_CASE("cvt_scalef32_pk_fp4_f32 scales by the exponent of the scale, rounds, saturates", "[emu][convert][gfx950]") {
  CHECK(__builtin_amdgcn_cvt_scalef32_pk_fp4_f32(0, 1.0f, -6.0f, 1.0f, 0) == 0xF2u);
  // scale 2: 1 -> 0.5 (code 1), 7 -> 3.5, a tie, to even 4 (code 6)
  CHECK(__builtin_amdgcn_cvt_scalef32_pk_fp4_f32(0, 1.0f, 7.0f, 2.0f, 0) == 0x61u);
  // the mantissa of the scale is ignored: 3.0 scales like 2.0
  CHECK(__builtin_amdgcn_cvt_scalef32_pk_fp4_f32(0, 1.0f, 7.0f, 3.0f, 0) == 0x61u);
  // saturation at 6, and the other bytes of `old` are kept
  CHECK(__builtin_amdgcn_cvt_scalef32_pk_fp4_f32(0xAABBCCDDu, 100.0f, -100.0f, 1.0f, 2) == 0xAAF7CCDDu);
  // exact scaling: 2^-130 with scale 2^-131 is 2.0, although 2^-130 is an fp32 subnormal
  CHECK(__builtin_amdgcn_cvt_scalef32_pk_fp4_f32(0, std::ldexp(1.0f, -130), 0.0f, std::ldexp(1.0f, -126), 0) ==
        encode_float<format::e2m1>(std::ldexp(1.0f, -4), overflow_policy::saturate));
}

TEST_CASE("cvt_scalef32 fp8 narrowing and widening", "[emu][convert][gfx950]") {
  emu::short2_t old = {0x1111, 0x2222};
  const emu::short2_t r = __builtin_amdgcn_cvt_scalef32_pk_fp8_f32(old, 1792.0f, -0.5f, 4.0f, true);
  CHECK(static_cast<std::uint16_t>(r[0]) == 0x1111);
  CHECK(static_cast<std::uint16_t>(r[1]) == ((saturate_cast<fp8_e4m3fn>(-0.125f).bits << 8) | 0x7E));  // 1792/4 = 448
  const emu::short2_t big = __builtin_amdgcn_cvt_scalef32_pk_fp8_f32(old, 1e9f, 0.0f, 1.0f, false);
  CHECK((big[0] & 0xFF) == 0x7E);                                          // saturates (HIP's reference behaviour)
  CHECK(__builtin_amdgcn_cvt_scalef32_f32_fp8(0x3800u, 8.0f, 1) == 8.0f);  // byte 1 = 0x38 = 1.0
  CHECK(__builtin_amdgcn_cvt_scalef32_f32_bf8(0x3C000000u, 0.25f, 3) == 0.25f);  // 0x3C = 1.0 in e5m2
  const auto pair = __builtin_amdgcn_cvt_scalef32_pk_f32_fp4(0x00F20000u, 0.5f, 2);
  CHECK(pair.x == 0.5f);
  CHECK(pair.y == -3.0f);
  CHECK(std::isnan(__builtin_amdgcn_cvt_scalef32_f32_fp8(0x38u, __builtin_nanf(""), 0)));
}

TEST_CASE("cvt_scalef32_pk_bf16_fp8 widens e4m3 pairs to bf16 exactly, the first in the low half",
          "[emu][convert][gfx950]") {
  for (std::uint32_t code = 0; code < 256; ++code) {
    const float v = to_float(fp8_e4m3fn::from_bits(code));
    const std::uint32_t src = 0x3800u | code << 16 | 0xB8u << 24;  // word 0: (0x00, 0x38); word 1: (code, 0xB8)
    const std::uint32_t one = std::bit_cast<std::uint32_t>(__builtin_amdgcn_cvt_scalef32_pk_bf16_fp8(src, 1.0f, true));
    const std::uint32_t low = one & 0xFFFF, high = one >> 16;
    INFO("code " << code);
    if (std::isnan(v))
      CHECK((low & 0x7FFF) > 0x7F80);
    else
      CHECK(low == std::bit_cast<std::uint32_t>(v) >> 16);  // exact: e4m3 fits bf16
    CHECK(high == 0xBF80u);                                 // -1.0
  }
  CHECK(std::bit_cast<std::uint32_t>(__builtin_amdgcn_cvt_scalef32_pk_bf16_fp8(0x3800u, 1.0f, false)) == 0x3F800000u);
  // The scale's exponent multiplies (4.0 and 7.0 both scale by 4): 1.0 -> 4.0
  CHECK(std::bit_cast<std::uint32_t>(__builtin_amdgcn_cvt_scalef32_pk_bf16_fp8(0x38u, 7.0f, false)) == 0x4080u);
}

TEST_CASE("cvt_scalef32_pk_bf16_fp4 widens an e2m1 pair times its e8m0 scale to bf16 exactly",
          "[emu][convert][gfx950]") {
  // Every code in both nibbles of every byte, at scales 2^-127 (code 0), 2^-10, 1 and 2^100.
  for (std::uint32_t scale_code : {0u, 117u, 127u, 227u}) {
    const float scale = arch::e8m0_scale_operand(scale_code);
    for (std::uint32_t code = 0; code < 16; ++code)
      for (int byte = 0; byte < 4; ++byte) {
        const std::uint32_t src = (code | (15u - code) << 4) << (8 * byte) | 0x5Au << (8 * ((byte + 1) % 4));
        const std::uint32_t bits =
            std::bit_cast<std::uint32_t>(byte == 0   ? __builtin_amdgcn_cvt_scalef32_pk_bf16_fp4(src, scale, 0)
                                         : byte == 1 ? __builtin_amdgcn_cvt_scalef32_pk_bf16_fp4(src, scale, 1)
                                         : byte == 2 ? __builtin_amdgcn_cvt_scalef32_pk_bf16_fp4(src, scale, 2)
                                                     : __builtin_amdgcn_cvt_scalef32_pk_bf16_fp4(src, scale, 3));
        const float low = to_float(fp4_e2m1::from_bits(code)) * decode_e8m0(scale_code);
        const float high = to_float(fp4_e2m1::from_bits(15u - code)) * decode_e8m0(scale_code);
        INFO("code " << code << ", byte " << byte << ", scale code " << scale_code);
        CHECK((bits & 0xFFFF) == std::bit_cast<std::uint32_t>(low) >> 16);  // exact: e2m1 x 2^k fits bf16
        CHECK((bits >> 16) == std::bit_cast<std::uint32_t>(high) >> 16);
      }
  }
}

TEST_CASE("widen_fp4x8_to_bf16: four bytes of e2m1 pairs to eight bf16 values in order", "[emu][convert][gfx950]") {
  // Bytes 0x21 0x43 0x65 0x87: codes 1, 2, 3, 4, 5, 6, 7, 8 (0.5, 1, 1.5, 2, 3, 4, 6, -0) at scale 2.
  const arch::u32x4 w = arch::widen_fp4x8_to_bf16(0x87654321u, arch::e8m0_scale_operand(128));
  const std::uint32_t expected[8] = {0x3F80u, 0x4000u, 0x4040u, 0x4080u, 0x40C0u, 0x4100u, 0x4140u, 0x8000u};
  for (int i = 0; i < 8; ++i) CHECK(((w[i / 2] >> (16 * (i % 2))) & 0xFFFF) == expected[i]);
}

TEST_CASE("unscaled fp8 converters use OCP formats on gfx950", "[emu][convert][gfx950]") {
  CHECK((__builtin_amdgcn_cvt_pk_fp8_f32(1.0f, 480.0f, 0, false) & 0xFFFF) == 0x7F38);  // 480: NaN 0x7F
  CHECK((__builtin_amdgcn_cvt_pk_bf8_f32(1e9f, 0.0f, 0, false) & 0xFF) == 0x7C);        // Inf
  CHECK(__builtin_amdgcn_cvt_f32_fp8(0x38, 0) == 1.0f);
}

TEST_CASE("gfx950: 160 KiB of LDS per block, target macros and properties", "[emu][gfx950]") {
#if !defined(__gfx950__) || defined(__gfx942__)
  FAIL("gfx950 target macros missing");
#endif
  hipDeviceProp_t prop;
  REQUIRE(hipGetDeviceProperties(&prop, 0) == hipSuccess);
  CHECK(std::string(prop.gcnArchName).rfind("gfx950", 0) == 0);
  int* out;
  REQUIRE(hipMalloc(&out, 256 * sizeof(int)) == hipSuccess);
  hipLaunchKernelGGL(wavekit::test::lds_user<40960>, dim3(1), dim3(256), 0, nullptr, out);  // 160 KiB: fits
  CHECK(hipGetLastError() == hipSuccess);
  hipLaunchKernelGGL(wavekit::test::lds_user<40964>, dim3(1), dim3(256), 0, nullptr, out);  // 160 KiB + 16 B
  CHECK(hipGetLastError() == hipErrorLaunchFailure);
  CHECK_THAT(emu::last_error_message(), Catch::Contains("gfx950 has 163840"));
  hipFree(out);
}
