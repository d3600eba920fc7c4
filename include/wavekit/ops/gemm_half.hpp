// wavekit's half-precision GEMM: C = A x B^T with bf16 or fp16 A and B, fp32 accumulation, C in
// bf16, fp16 or fp32, both storage orders, split-K.
//
//   namespace gh = wavekit::ops::gemm_half;
//   gh::problem p{m, n, k, wavekit::layout::k_contiguous};              // order: no default
//   using Args = gh::args<wavekit::bf16, wavekit::bf16>;
//   std::size_t ws = wavekit::gemm_half_workspace_bytes<Args>(p).value();  // fp32 split-K partials, this device
//   Args args{a, b, c, workspace, ws};
//   wavekit::status s = wavekit::gemm_half(p, args, stream);
//
// It validates everything before launching and picks a plan (ops/gemm_half/plan.hpp, which answers
// the same without HIP for any target). Experts pick a config themselves:
// gh::launch<gh::config_medium>(p, args, splits, stream).
// Without HIP, ops::gemm_half::supports(problem, target) answers whether the launch runs a problem on a target, or
// gives its status (ops/gemm_half/supports.hpp; the README's support matrix is made from it).
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <hip/hip_runtime.h>

#include "wavekit/arch/device.hpp"
#include "wavekit/ops/gemm_half/kernel.hpp"
#include "wavekit/ops/gemm_half/plan.hpp"
#include "wavekit/ops/gemm_half/supports.hpp"

namespace wavekit {

// The plan queries for the current device and a call with arguments of type Args (gh::args<T, Out>):
// the tuned tables key on the element types, so an fp16 -> fp32 call can plan more K splits, and
// need more workspace, than a bf16 one. With the workspace this query gives, the call runs its
// preferred plan.
template <class Args>
result<std::size_t> gemm_half_workspace_bytes(const ops::gemm_half::problem& p) {
  return ops::gemm_half::workspace_bytes(p, arch::current_device_arch().kind, ops::gemm_half::tuning_dtypes_of(Args{}));
}
template <class Args>
result<ops::gemm_half::plan_info> gemm_half_select_plan(const ops::gemm_half::problem& p, std::size_t workspace_bytes) {
  return ops::gemm_half::select_plan(p, workspace_bytes, arch::current_device_arch().kind,
                                     ops::gemm_half::tuning_dtypes_of(Args{}));
}

// Validates, picks the plan and launches. When `ran` is given it receives the plan that ran.
template <class T, class Out>
status gemm_half(const ops::gemm_half::problem& p, const ops::gemm_half::args<T, Out>& args, hipStream_t stream,
                 ops::gemm_half::plan_info* ran = nullptr) {
  namespace gh = ops::gemm_half;
  if (status s = gh::validate(p, args); !s.ok()) return s;
  const arch::device_arch& device = arch::current_device_arch();
  if (status s = arch::check_device_queried(device, "gemm_half"); !s.ok()) return s;
  const result<gh::plan_info> plan =
      gh::select_plan(p, args.workspace ? args.workspace_bytes : 0, device.kind, gh::tuning_dtypes_of(args));
  if (!plan) return plan.error();
  const status s = gh::with_config(plan.value().plan.config, [&](auto cfg) {
    return gh::launch<decltype(cfg)>(p, args, plan.value().plan.splits, stream);
  });
  if (s.ok() && ran) *ran = plan.value();
  return s;
}

}  // namespace wavekit
