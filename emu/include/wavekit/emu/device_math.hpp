// The device's f32 math for emulated kernels: the hardware's transcendental instructions and the
// instruction sequences that expf, logf, exp2f, log2f and rsqrtf compile to for gfx942 and
// gfx950 (clang-19 with ROCm device-libs 5.2, the toolchain of wavekit's codegen report), so that an
// emulated kernel rounds as the compiled one does.
//
// The instructions. AMD's ISA manuals give V_EXP_F32 (2^x), V_LOG_F32 (log2 x), V_RCP_F32,
// V_RSQ_F32 and V_SQRT_F32 as "1ULP accuracy, denormals are flushed" and publish no bits. The
// model: a denormal input counts as a zero of its sign, the result is the f32 value nearest to the
// exact one (computed in double: well within that accuracy), and a denormal result is flushed to a
// zero of its sign; special values as the manuals' examples (log2 and rsq of a negative number,
// sqrt of -Inf: the NaN 0xFFC00000; log2 of +-0: -Inf; rsq of +-0: +-Inf). The hardware's own
// answer may differ from the model by an ulp: that is what stays approximate.
//
// The sequences, read from the compiled assembly and written here one instruction per statement
// (v_fma_f32 as std::fma): exp and log split their argument's product with log2(e) or ln(2) into
// a head and an exact tail with a fused multiply-add (LLVM's AMDGPU lowering of llvm.exp.f32 and
// llvm.log.f32, after the device library's scaling of subnormal log arguments), and exp2, log2 and
// rsqrt scale arguments the instruction would flush or return flushed. Where the two targets'
// compilers write a step differently (a multiply by 2^32 on gfx942, v_ldexp_f32 by 32 on gfx950)
// the results are the same. f32 division and sqrtf need nothing here: their sequences
// (v_div_scale / v_rcp_f32 / v_div_fmas / v_div_fixup, and v_sqrt_f32 with a correction) are
// correctly rounded, as the host's `/` and std::sqrt are. NaN results are NaN; their payload bits
// are not modelled. emu/test/test_device_math.cpp checks the models against double precision.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

// Each statement below is one instruction of the device's sequence: nothing is fused but the
// explicit std::fma (emulated builds contract a * b + c, cmake/wavekitEmulator.cmake).
#if defined(__clang__)
#pragma float_control(push)
#pragma clang fp contract(off)
#endif

namespace wavekit::emu::device_math {

namespace detail {

inline constexpr float f32_bits(std::uint32_t bits) { return std::bit_cast<float>(bits); }
inline constexpr float infinity = std::numeric_limits<float>::infinity();
inline constexpr float smallest_normal = std::numeric_limits<float>::min();  // 2^-126
inline constexpr float invalid = f32_bits(0xFFC00000u);                      // the ISA's NaN of log2(-1)

inline bool is_denormal(float x) { return x != 0.0f && std::fabs(x) < smallest_normal; }
inline float flush(float x) { return is_denormal(x) ? std::copysign(0.0f, x) : x; }
inline float quiet(float nan) { return std::bit_cast<float>(std::bit_cast<std::uint32_t>(nan) | 0x00400000u); }

// v_cvt_i32_f32: toward zero, saturating, NaN to 0.
inline std::int32_t cvt_i32(float x) {
  if (std::isnan(x)) return 0;
  if (x >= 0x1p31f) return std::numeric_limits<std::int32_t>::max();
  if (x <= -0x1p31f) return std::numeric_limits<std::int32_t>::min();
  return static_cast<std::int32_t>(x);
}

}  // namespace detail

// ---- The instructions ---------------------------------------------------------------------------

inline float v_exp_f32(float x) {  // 2^x
  x = detail::flush(x);
  if (std::isnan(x)) return detail::quiet(x);
  return detail::flush(static_cast<float>(std::exp2(static_cast<double>(x))));
}

inline float v_log_f32(float x) {  // log2 x
  x = detail::flush(x);
  if (std::isnan(x)) return detail::quiet(x);
  if (x == 0.0f) return -detail::infinity;
  if (x < 0.0f) return detail::invalid;
  return static_cast<float>(std::log2(static_cast<double>(x)));
}

inline float v_rcp_f32(float x) {  // 1 / x
  x = detail::flush(x);
  if (std::isnan(x)) return detail::quiet(x);
  return detail::flush(static_cast<float>(1.0 / static_cast<double>(x)));
}

inline float v_rsq_f32(float x) {  // 1 / sqrt(x)
  x = detail::flush(x);
  if (std::isnan(x)) return detail::quiet(x);
  if (x == 0.0f) return std::copysign(detail::infinity, x);
  if (x < 0.0f) return detail::invalid;
  return static_cast<float>(1.0 / std::sqrt(static_cast<double>(x)));
}

inline float v_sqrt_f32(float x) {  // sqrt(x)
  x = detail::flush(x);
  if (std::isnan(x)) return detail::quiet(x);
  if (x < 0.0f) return detail::invalid;
  return static_cast<float>(std::sqrt(static_cast<double>(x)));
}

// ---- The library's sequences --------------------------------------------------------------------

// e^x: n = round(x log2 e) comes out by v_ldexp_f32, v_exp_f32 takes the rest (|rest| <= ~0.5),
// with x log2 e carried as head + tail (log2 e in two f32 parts, the head's product error by an
// fma). Below ln(2^-149) (the smallest subnormal) the result is +0, above ln(FLT_MAX) +Inf.
inline float expf(float x) {
  const float log2e_head = detail::f32_bits(0x3FB8AA3Bu), log2e_tail = detail::f32_bits(0x32A5705Fu);
  const float head = x * log2e_head;
  const float whole = std::nearbyint(head);  // v_rndne_f32
  const float fraction = head - whole;
  float tail = std::fma(x, log2e_head, -head);
  tail = std::fma(x, log2e_tail, tail);
  const float rest = fraction + tail;
  float r = std::ldexp(v_exp_f32(rest), detail::cvt_i32(whole));
  if (x < detail::f32_bits(0xC2CE8ED0u)) r = 0.0f;              // -103.27893
  if (x > detail::f32_bits(0x42B17218u)) r = detail::infinity;  // 88.72284
  return r;
}

// ln x: a subnormal x scaled by 2^32 first (the device library's step, taken back as 32 ln 2 at
// the end), then the backend's own scaling below 2^-126 (reached here only by x <= 0), v_log_f32,
// and log2 x times ln 2 as head + tail; +-Inf and NaN from v_log_f32 pass through.
inline float logf(float x) {
  const float two_32 = 0x1p32f, ln2_head = detail::f32_bits(0x3F317217u), ln2_tail = detail::f32_bits(0x3377D1CFu);
  const bool subnormal = detail::is_denormal(x);
  float y = (subnormal ? two_32 : 1.0f) * x;
  const bool small = y < detail::smallest_normal;
  y = y * (small ? two_32 : 1.0f);
  const float l = v_log_f32(y) - (small ? 32.0f : 0.0f);
  const float head = l * ln2_head;
  float tail = std::fma(l, ln2_head, -head);
  tail = std::fma(l, ln2_tail, tail);
  float r = head + tail;
  if (!(std::fabs(l) < detail::infinity)) r = l;                  // v_cmp_nlg_f32 |l|, +Inf
  return r - (subnormal ? detail::f32_bits(0x41B17218u) : 0.0f);  // 32 ln 2
}

// 2^x: below -126 the argument is raised by 64 and the result scaled by 2^-64, so that results in
// the subnormal range are not flushed.
inline float exp2f(float x) {
  const bool small = x < -126.0f;
  const float r = v_exp_f32(x + (small ? 64.0f : 0.0f));
  return r * (small ? 0x1p-64f : 1.0f);
}

// log2 x: the scalings of logf, both taken back as 32 each.
inline float log2f(float x) {
  const float two_32 = 0x1p32f;
  const bool subnormal = detail::is_denormal(x);
  float y = (subnormal ? two_32 : 1.0f) * x;
  const bool small = y < detail::smallest_normal;
  y = y * (small ? two_32 : 1.0f);
  const float l = v_log_f32(y) - (small ? 32.0f : 0.0f);
  return l - (subnormal ? 32.0f : 0.0f);
}

// 1 / sqrt(x): an approximation (v_rsq_f32's accuracy); arguments below 2^-100 scaled by 2^100
// and the result by 2^50.
inline float rsqrtf(float x) {
  const bool small = x < 0x1p-100f;
  const float r = v_rsq_f32(x * (small ? 0x1p100f : 1.0f));
  return r * (small ? 0x1p50f : 1.0f);
}

}  // namespace wavekit::emu::device_math

#if defined(__clang__)
#pragma float_control(pop)
#endif
