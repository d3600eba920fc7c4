// gfx950's scaled conversion builtins (clang's names; newer than clang-19) for emulator builds,
// per docs/hardware.md 2.3. The scale is an fp32 of which only the exponent field is
// used (an e8m0 exponent e): narrowing encodes x / 2^(e - 127), scaled exactly, rounded to
// nearest even; widening returns value * 2^(e - 127). fp4 saturates at +-6. For OCP fp8 the
// sources disagree on overflow (HIP's reference saturates, AMD's emulator follows FP16_OVFL);
// the emulator saturates, as HIP's reference does. A NaN scale (e = 255) gives NaN (fp4: +0).
#pragma once

#include <bit>
#include <cstdint>

#include "wavekit/arch/target.hpp"
#include "wavekit/core/float_codec.hpp"
#include "wavekit/core/numeric_types.hpp"
#include "wavekit/core/vector.hpp"
#include "wavekit/emu/builtins_convert.hpp"

#if WAVEKIT_TARGET_GFX950

namespace wavekit::emu {

using short2_t = short __attribute__((ext_vector_type(2)));

inline int scale_exponent_of(float scale) {
  return static_cast<int>((std::bit_cast<std::uint32_t>(scale) >> 23) & 0xFF) - 127;
}

template <class T>
std::uint32_t narrow_scaled(float x, float scale) {
  if (scale_exponent_of(scale) == 128)
    return encode_float<typename T::format>(__builtin_nanf(""), overflow_policy::saturate);
  return encode_float<typename T::format>(x, overflow_policy::saturate, wavekit::detail::round_nearest_even{},
                                          scale_exponent_of(scale));
}

// Two values narrowed into the selected 16-bit word of `old` (a in the low byte).
template <class T>
short2_t narrow_pair_scaled(short2_t old, float a, float b, float scale, bool word_sel) {
  old[word_sel ? 1 : 0] = static_cast<short>(narrow_scaled<T>(a, scale) | (narrow_scaled<T>(b, scale) << 8));
  return old;
}

template <class T>
float widen_scaled(std::uint32_t code, float scale) {
  const int e = scale_exponent_of(scale);
  if (e == 128) return __builtin_nanf("");
  return to_float(T::from_bits(code)) * decode_e8m0(static_cast<std::uint32_t>(e + 127));
}

// The two bytes of the selected 16-bit word of src, widened.
template <class T>
float2_t widen_pair_scaled(unsigned src, float scale, bool word_sel) {
  const unsigned w = word_sel ? src >> 16 : src;
  return {widen_scaled<T>(w & 0xFF, scale), widen_scaled<T>((w >> 8) & 0xFF, scale)};
}

}  // namespace wavekit::emu

inline unsigned __builtin_amdgcn_cvt_scalef32_pk_fp4_f32(unsigned old, float a, float b, float scale, int byte_sel) {
  using wavekit::fp4_e2m1;
  const unsigned pair =
      wavekit::emu::narrow_scaled<fp4_e2m1>(a, scale) | (wavekit::emu::narrow_scaled<fp4_e2m1>(b, scale) << 4);
  const int shift = 8 * (byte_sel & 3);
  return (old & ~(0xFFu << shift)) | (pair << shift);
}
inline wavekit::emu::short2_t __builtin_amdgcn_cvt_scalef32_pk_fp8_f32(wavekit::emu::short2_t old, float a, float b,
                                                                       float scale, bool word_sel) {
  return wavekit::emu::narrow_pair_scaled<wavekit::fp8_e4m3fn>(old, a, b, scale, word_sel);
}
inline wavekit::emu::short2_t __builtin_amdgcn_cvt_scalef32_pk_bf8_f32(wavekit::emu::short2_t old, float a, float b,
                                                                       float scale, bool word_sel) {
  return wavekit::emu::narrow_pair_scaled<wavekit::bf8_e5m2>(old, a, b, scale, word_sel);
}
inline float __builtin_amdgcn_cvt_scalef32_f32_fp8(unsigned src, float scale, int byte_sel) {
  return wavekit::emu::widen_scaled<wavekit::fp8_e4m3fn>((src >> (8 * (byte_sel & 3))) & 0xFF, scale);
}
inline float __builtin_amdgcn_cvt_scalef32_f32_bf8(unsigned src, float scale, int byte_sel) {
  return wavekit::emu::widen_scaled<wavekit::bf8_e5m2>((src >> (8 * (byte_sel & 3))) & 0xFF, scale);
}
inline wavekit::emu::float2_t __builtin_amdgcn_cvt_scalef32_pk_f32_fp8(unsigned src, float scale, bool word_sel) {
  return wavekit::emu::widen_pair_scaled<wavekit::fp8_e4m3fn>(src, scale, word_sel);
}
inline wavekit::emu::float2_t __builtin_amdgcn_cvt_scalef32_pk_f32_bf8(unsigned src, float scale, bool word_sel) {
  return wavekit::emu::widen_pair_scaled<wavekit::bf8_e5m2>(src, scale, word_sel);
}
// The bf16 form: the pair widened as above, each rounded to bf16 (exact unless the scale takes it
// past bf16's range, fp32's: an e4m3 value has 4 significant bits), the first in the low half.
inline wavekit::bf16x2 __builtin_amdgcn_cvt_scalef32_pk_bf16_fp8(unsigned src, float scale, bool word_sel) {
  const wavekit::emu::float2_t v = wavekit::emu::widen_pair_scaled<wavekit::fp8_e4m3fn>(src, scale, word_sel);
  const std::uint32_t bits = wavekit::bf16_bits_rne(v[0]) | wavekit::bf16_bits_rne(v[1]) << 16;
  return std::bit_cast<wavekit::bf16x2>(bits);
}
// The fp4 pair of byte byte_sel (the low nibble first), widened as above and rounded to bf16
// (exact unless the scale takes it past bf16's range: an e2m1 value has 2 significant bits).
inline wavekit::bf16x2 __builtin_amdgcn_cvt_scalef32_pk_bf16_fp4(unsigned src, float scale, int byte_sel) {
  const unsigned byte = (src >> (8 * (byte_sel & 3))) & 0xFF;
  const std::uint32_t bits = wavekit::bf16_bits_rne(wavekit::emu::widen_scaled<wavekit::fp4_e2m1>(byte & 0xF, scale)) |
                             wavekit::bf16_bits_rne(wavekit::emu::widen_scaled<wavekit::fp4_e2m1>(byte >> 4, scale))
                                 << 16;
  return std::bit_cast<wavekit::bf16x2>(bits);
}
inline wavekit::emu::float2_t __builtin_amdgcn_cvt_scalef32_pk_f32_fp4(unsigned src, float scale, int byte_sel) {
  const unsigned byte = (src >> (8 * (byte_sel & 3))) & 0xFF;
  return {wavekit::emu::widen_scaled<wavekit::fp4_e2m1>(byte & 0xF, scale),
          wavekit::emu::widen_scaled<wavekit::fp4_e2m1>(byte >> 4, scale)};
}

#endif  // WAVEKIT_TARGET_GFX950
