// Whether mla_decode runs a problem on a target, without HIP: success, or the status the launch
// (wavekit::mla_decode, and wavekit::mla_decode_plan before it) returns for it with valid
// sequences' tables, pointers and scales, same code, same text.
//
//   namespace mla = wavekit::ops::mla_decode;
//   wavekit::status s = mla::supports<wavekit::fp8_e4m3fn, wavekit::bf16>(p, wavekit::arch::target::gfx950);
//
//   s = mla::supports<wavekit::fp8_e4m3fn, wavekit::bf16>(p, t, /*kv_scale=*/0.02f);
//   s = mla::supports<wavekit::fp8_e4m3fn>(p, t, plan);  // with the split plan the call will pass
//
// The rules are the launch's own functions, in its order: the problem's (validate_shape, which
// validate_sequences runs first); for an fp8 cache or fp8 queries, the fp8 format the target's
// matrix cores read; the per-tensor scales the call will pass (args::kv_scale, args::q_scale:
// finite and positive for fp8, 1 for bf16; the defaults are the defaults of args). With a split
// plan, also the plan's rules (check_plan_device after the fp8 formats, check_plan after the
// scales: whole KV tiles, the splits, and a chosen plan's cache type, heads and device's CUs).
// The tables' values (lengths, pages, whether the plan covers them) are data, checked per call.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <string>
#include <type_traits>

#include "wavekit/arch/target_checks.hpp"
#include "wavekit/ops/mla_decode/plan.hpp"
#include "wavekit/ops/mla_decode/problem.hpp"

namespace wavekit::ops::mla_decode {

// The cache's type on target t: an fp8 cache in the format t's matrix cores read; an MXFP4 one on
// gfx950, whose scaled conversions widen it.
template <class KV>
status check_cache_type(const problem& p, arch::target t) {
  if constexpr (std::is_same_v<KV, fp4x2_e2m1>) {
    if (status s = arch::check_kernel_target(lazy([&] { return "mla_decode " + p.str(); }), t); !s.ok()) return s;
    if (t != arch::target::gfx950)
      return {status_code::unsupported_target, "mla_decode " + p.str() +
                                                   ": an MXFP4 cache is widened by gfx950's scaled conversions; " +
                                                   arch::to_string(t) + " has none"};
  } else if constexpr (!std::is_same_v<KV, bf16>) {
    return arch::check_fp8_format<KV>(t, "mla_decode");
  }
  return status::success();
}

// KV: the cache's element type (bf16, the device's fp8 or fp4x2_e2m1 for MXFP4); Q: the queries'
// (bf16 or the device's fp8).
template <class KV, class Q = std::conditional_t<std::is_same_v<KV, fp4x2_e2m1>, bf16, KV>>
status supports(const problem& p, arch::target t, float kv_scale = 1.0f, float q_scale = 1.0f) {
  if (status s = validate_shape(p); !s.ok()) return s;
  if (status s = check_cache_type<KV>(p, t); !s.ok()) return s;
  if constexpr (!std::is_same_v<Q, bf16>)
    if (status s = arch::check_fp8_format<Q>(t, "mla_decode (argument q)"); !s.ok()) return s;
  if (status s = check_scales<KV, Q>(p, kv_scale, q_scale); !s.ok()) return s;
  return arch::check_kernel_target(lazy([&] { return "mla_decode " + p.str(); }), t);
}

// The same with the split plan the call will pass (a device of target t: its CUs and name).
template <class KV, class Q = std::conditional_t<std::is_same_v<KV, fp4x2_e2m1>, bf16, KV>>
status supports(const problem& p, arch::target t, const split_plan& plan, float kv_scale = 1.0f, float q_scale = 1.0f) {
  if (status s = validate_shape(p); !s.ok()) return s;
  if (status s = check_cache_type<KV>(p, t); !s.ok()) return s;
  if constexpr (!std::is_same_v<Q, bf16>)
    if (status s = arch::check_fp8_format<Q>(t, "mla_decode (argument q)"); !s.ok()) return s;
  if (status s = check_plan_device(p, plan, arch::facts_for(t), std::string(arch::to_string(t)) + " device"); !s.ok())
    return s;
  if (status s = check_scales<KV, Q>(p, kv_scale, q_scale); !s.ok()) return s;
  if (status s = check_plan(p, plan, kv_bits_of<KV>); !s.ok()) return s;
  return arch::check_kernel_target(lazy([&] { return "mla_decode " + p.str(); }), t);
}

}  // namespace wavekit::ops::mla_decode
