// wavekit's scaled fp8 GEMM (the serving engines' standard one): C = (A x B^T) * a_scale * b_scale
// with fp8 A and B, fp32 accumulation, per-tensor or per-row (A) / per-column (B) fp32 scales,
// C bf16 or fp16, both storage orders, split-K.
//
//   namespace gs = wavekit::ops::gemm_fp8_scaled;
//   gs::problem p{m, n, k, wavekit::layout::k_contiguous, gs::scale_granularity::channel,
//                 gs::scale_granularity::tensor};
//   std::size_t ws = wavekit::gemm_fp8_scaled_workspace_bytes(p).value();
//   gs::args<wavekit::arch::gfx942::fp8, wavekit::bf16> args{a, b, a_scale, b_scale, c, workspace, ws};
//   wavekit::status s = wavekit::gemm_fp8_scaled(p, args, stream);
//
// It validates everything before launching, checks that the fp8 format is the device's (fnuz on
// gfx942, OCP on gfx950) and picks a plan (ops/gemm_fp8_scaled/plan.hpp answers the same without
// HIP). Experts pick a config: gs::launch<gs::config_medium>(p, args, splits, stream).
// Without HIP, ops::gemm_fp8_scaled::supports<Fp8>(problem, target) answers whether the launch runs a problem on a
// target, or gives its status (ops/gemm_fp8_scaled/supports.hpp; the README's support matrix is made from it).
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <hip/hip_runtime.h>

#include "wavekit/arch/device.hpp"
#include "wavekit/ops/gemm_fp8_scaled/kernel.hpp"
#include "wavekit/ops/gemm_fp8_scaled/plan.hpp"
#include "wavekit/ops/gemm_fp8_scaled/supports.hpp"

namespace wavekit {

inline result<std::size_t> gemm_fp8_scaled_workspace_bytes(const ops::gemm_fp8_scaled::problem& p) {
  return ops::gemm_fp8_scaled::workspace_bytes(p, arch::current_device_arch().kind);
}
inline result<ops::gemm_fp8_scaled::plan_info> gemm_fp8_scaled_select_plan(const ops::gemm_fp8_scaled::problem& p,
                                                                           std::size_t workspace_bytes) {
  return ops::gemm_fp8_scaled::select_plan(p, workspace_bytes, arch::current_device_arch().kind);
}

// Validates, picks the plan and launches. When `ran` is given it receives the plan that ran.
template <class Fp8, class Out>
status gemm_fp8_scaled(const ops::gemm_fp8_scaled::problem& p, const ops::gemm_fp8_scaled::args<Fp8, Out>& args,
                       hipStream_t stream, ops::gemm_fp8_scaled::plan_info* ran = nullptr) {
  namespace gs = ops::gemm_fp8_scaled;
  if (status s = gs::validate(p, args); !s.ok()) return s;
  const arch::device_arch device = arch::current_device_arch();
  if (status s = arch::check_device_fp8_format<Fp8>(device, "gemm_fp8_scaled"); !s.ok()) return s;
  const result<gs::plan_info> plan =
      gs::select_plan(p, args.workspace ? args.workspace_bytes : 0, device.kind, gs::tuning_dtypes<Out>(device.kind));
  if (!plan) return plan.error();
  const status s = gs::with_config(plan.value().plan.config, [&](auto cfg) {
    return gs::launch<decltype(cfg)>(p, args, plan.value().plan.splits, device.kind, stream);
  });
  if (s.ok() && ran) *ran = plan.value();
  return s;
}

}  // namespace wavekit
