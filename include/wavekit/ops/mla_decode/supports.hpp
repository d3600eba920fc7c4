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

// KV: the cache's element type (bf16 or the device's fp8); Q: the queries' (likewise).
template <class KV, class Q = KV>
status supports(const problem& p, arch::target t, float kv_scale = 1.0f, float q_scale = 1.0f) {
  if (status s = validate_shape(p); !s.ok()) return s;
  if constexpr (!std::is_same_v<KV, bf16>)
    if (status s = arch::check_fp8_format<KV>(t, "mla_decode"); !s.ok()) return s;
  if constexpr (!std::is_same_v<Q, bf16>)
    if (status s = arch::check_fp8_format<Q>(t, "mla_decode (argument q)"); !s.ok()) return s;
  if (status s = check_scales<KV, Q>(p, kv_scale, q_scale); !s.ok()) return s;
  return arch::check_kernel_target(lazy([&] { return "mla_decode " + p.str(); }), t);
}

// The same with the split plan the call will pass (a device of target t: its CUs and name).
template <class KV, class Q = KV>
status supports(const problem& p, arch::target t, const split_plan& plan, float kv_scale = 1.0f, float q_scale = 1.0f) {
  if (status s = validate_shape(p); !s.ok()) return s;
  if constexpr (!std::is_same_v<KV, bf16>)
    if (status s = arch::check_fp8_format<KV>(t, "mla_decode"); !s.ok()) return s;
  if constexpr (!std::is_same_v<Q, bf16>)
    if (status s = arch::check_fp8_format<Q>(t, "mla_decode (argument q)"); !s.ok()) return s;
  if (status s = check_plan_device(p, plan, arch::facts_for(t), std::string(arch::to_string(t)) + " device"); !s.ok())
    return s;
  if (status s = check_scales<KV, Q>(p, kv_scale, q_scale); !s.ok()) return s;
  if (status s = check_plan(p, plan, static_cast<int>(sizeof(KV))); !s.ok()) return s;
  return arch::check_kernel_target(lazy([&] { return "mla_decode " + p.str(); }), t);
}

}  // namespace wavekit::ops::mla_decode
