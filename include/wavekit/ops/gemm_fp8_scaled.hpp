// wavekit's scaled fp8 GEMM (the serving engines' standard one): C = (A x B^T) * a_scale * b_scale
// with fp8 A and B, fp32 accumulation, per-tensor or per-row (A) / per-column (B) fp32 scales,
// C bf16 or fp16, both storage orders, split-K.
//
//   namespace gs = wavekit::ops::gemm_fp8_scaled;
//   gs::problem p{m, n, k, wavekit::layout::k_contiguous, gs::scale_granularity::row,
//                 gs::scale_granularity::tensor};
//   using Args = gs::args<wavekit::arch::gfx942::fp8, wavekit::bf16>;
//   std::size_t ws = wavekit::gemm_fp8_scaled_workspace_bytes<Args>(p).value();
//   Args args{a, b, a_scale, b_scale, c, workspace, ws};
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

namespace ops::gemm_fp8_scaled {
// The call's and the queries' format rule: Fp8 is the format the device's matrix cores read.
template <class Fp8, class Out>
status check_device_format(const args<Fp8, Out>&, const arch::device_arch& device) {
  return arch::check_device_fp8_format<Fp8>(device, "gemm_fp8_scaled");
}
}  // namespace ops::gemm_fp8_scaled

// The plan queries for the current device and a call with arguments of type Args
// (gs::args<Fp8, Out>): the tuned tables key on the output type, and Fp8 must be the format the
// device reads (the call's status otherwise). With the workspace this query gives, the call runs
// its preferred plan.
template <class Args>
result<std::size_t> gemm_fp8_scaled_workspace_bytes(const ops::gemm_fp8_scaled::problem& p) {
  const arch::device_arch& device = arch::current_device_arch();
  if (status s = ops::gemm_fp8_scaled::check_device_format(Args{}, device); !s.ok()) return s;
  return ops::gemm_fp8_scaled::workspace_bytes(p, device.kind,
                                               ops::gemm_fp8_scaled::tuning_dtypes_of(Args{}, device.kind));
}
template <class Args>
result<ops::gemm_fp8_scaled::plan_info> gemm_fp8_scaled_select_plan(const ops::gemm_fp8_scaled::problem& p,
                                                                    std::size_t workspace_bytes) {
  const arch::device_arch& device = arch::current_device_arch();
  if (status s = ops::gemm_fp8_scaled::check_device_format(Args{}, device); !s.ok()) return s;
  return ops::gemm_fp8_scaled::select_plan(p, workspace_bytes, device.kind,
                                           ops::gemm_fp8_scaled::tuning_dtypes_of(Args{}, device.kind));
}

// Validates, picks the plan and launches. When `ran` is given it receives the plan that ran.
template <class Fp8, class Out>
status gemm_fp8_scaled(const ops::gemm_fp8_scaled::problem& p, const ops::gemm_fp8_scaled::args<Fp8, Out>& args,
                       hipStream_t stream, ops::gemm_fp8_scaled::plan_info* ran = nullptr) {
  namespace gs = ops::gemm_fp8_scaled;
  if (status s = gs::validate(p, args); !s.ok()) return s;
  const arch::device_arch& device = arch::current_device_arch();
  if (status s = gs::check_device_format(args, device); !s.ok()) return s;
  const result<gs::plan_info> plan = gs::select_plan(p, args.workspace ? args.workspace_bytes : 0, device.kind,
                                                     gs::tuning_dtypes_of(args, device.kind));
  if (!plan) return plan.error();
  const status s = gs::with_config(plan.value().plan.config, [&](auto cfg) {
    return gs::launch<decltype(cfg)>(p, args, plan.value().plan.splits, device.kind, stream);
  });
  if (s.ok() && ran) *ran = plan.value();
  return s;
}

}  // namespace wavekit
