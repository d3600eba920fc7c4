// The gfx9 fp8 conversion builtins (clang names) for emulator builds, per docs/hardware.md 2.2
// and 2.3: fnuz formats on gfx942, OCP on gfx950, MODE.FP16_OVFL = 0 (the compiler default),
// so overflow and Inf give NaN (fnuz, e4m3) or Inf (e5m2) unless the code clamps first.
// All are per lane: no cross-lane rendezvous.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "wavekit/arch/target.hpp"
#include "wavekit/core/numeric_types.hpp"

namespace wavekit::emu {

using float2_t = float __attribute__((ext_vector_type(2)));

template <bool Bf8>
using target_fp8_t =
    std::conditional_t<arch::current_target == arch::target::gfx950, std::conditional_t<Bf8, bf8_e5m2, fp8_e4m3fn>,
                       std::conditional_t<Bf8, bf8_e5m2fnuz, fp8_e4m3fnuz>>;

// Stochastic rounding of v_cvt_sr_*: the top bits of the 32-bit random value are added to the
// bits the conversion discards, then the result is truncated (docs/hardware.md 2.2).
struct round_stochastic {
  std::uint32_t random;
  constexpr std::uint64_t operator()(std::uint64_t sig, int shift) const {
    const std::uint64_t noise =
        shift <= 32 ? (std::uint64_t{random} >> (32 - shift)) : (std::uint64_t{random} << (shift - 32));
    return shift >= 63 ? 0 : (sig + noise) >> shift;
  }
};

template <bool Bf8>
std::uint32_t convert_byte(float x) {
  return hardware_cast<target_fp8_t<Bf8>>(x).bits;
}

template <bool Bf8>
int convert_packed(float a, float b, int old, bool word_sel) {
  const std::uint32_t pair = convert_byte<Bf8>(a) | (convert_byte<Bf8>(b) << 8);
  const int shift = word_sel ? 16 : 0;
  const std::uint32_t keep = ~(0xFFFFu << shift);
  return static_cast<int>((static_cast<std::uint32_t>(old) & keep) | (pair << shift));
}

template <bool Bf8>
int convert_stochastic(float a, int random, int old, int byte_sel) {
  using T = target_fp8_t<Bf8>;
  const std::uint32_t code = encode_float<typename T::format>(a, overflow_policy::hardware,
                                                              round_stochastic{static_cast<std::uint32_t>(random)});
  const int shift = 8 * (byte_sel & 3);
  return static_cast<int>((static_cast<std::uint32_t>(old) & ~(0xFFu << shift)) | (code << shift));
}

template <bool Bf8>
float widen_byte(int src, int byte_sel) {
  return to_float(target_fp8_t<Bf8>::from_bits((static_cast<std::uint32_t>(src) >> (8 * (byte_sel & 3))) & 0xFF));
}

}  // namespace wavekit::emu

inline int __builtin_amdgcn_cvt_pk_fp8_f32(float a, float b, int old, bool word_sel) {
  return wavekit::emu::convert_packed<false>(a, b, old, word_sel);
}
inline int __builtin_amdgcn_cvt_pk_bf8_f32(float a, float b, int old, bool word_sel) {
  return wavekit::emu::convert_packed<true>(a, b, old, word_sel);
}
inline int __builtin_amdgcn_cvt_sr_fp8_f32(float a, int random, int old, int byte_sel) {
  return wavekit::emu::convert_stochastic<false>(a, random, old, byte_sel);
}
inline int __builtin_amdgcn_cvt_sr_bf8_f32(float a, int random, int old, int byte_sel) {
  return wavekit::emu::convert_stochastic<true>(a, random, old, byte_sel);
}
inline float __builtin_amdgcn_cvt_f32_fp8(int src, int byte_sel) {
  return wavekit::emu::widen_byte<false>(src, byte_sel);
}
inline float __builtin_amdgcn_cvt_f32_bf8(int src, int byte_sel) {
  return wavekit::emu::widen_byte<true>(src, byte_sel);
}
inline wavekit::emu::float2_t __builtin_amdgcn_cvt_pk_f32_fp8(int src, bool word_sel) {
  const int b = word_sel ? 2 : 0;
  return {wavekit::emu::widen_byte<false>(src, b), wavekit::emu::widen_byte<false>(src, b + 1)};
}
inline wavekit::emu::float2_t __builtin_amdgcn_cvt_pk_f32_bf8(int src, bool word_sel) {
  const int b = word_sel ? 2 : 0;
  return {wavekit::emu::widen_byte<true>(src, b), wavekit::emu::widen_byte<true>(src, b + 1)};
}
