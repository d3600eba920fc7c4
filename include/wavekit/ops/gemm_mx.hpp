// wavekit's MX GEMM (gfx950): C = A x B^T with OCP MXFP8 or MXFP4 operands (an e8m0 scale per 32
// K of each row), fp32 accumulation, the scales applied inside gfx950's scaled MFMAs, C bf16 or
// fp16, split-K.
//
//   namespace gx = wavekit::ops::gemm_mx;
//   gx::problem p{m, n, k, gx::mx_format::mxfp4, gx::a_storage::mx, gx::b_layout::plain};
//   using Args = gx::args<wavekit::fp4_e2m1, wavekit::bf16>;
//   std::size_t ws = wavekit::gemm_mx_workspace_bytes<Args>(p).value();
//   Args args{a, b, a_scale, b_scale, c, workspace, ws};
//   wavekit::status s = wavekit::gemm_mx(p, args, stream);
//
// MXFP4 with A in bf16 / fp16, quantized as the kernel loads it (amd-mxfp4-mm):
//   gx::problem p{m, n, k, gx::mx_format::mxfp4, gx::a_storage::bf16, gx::b_layout::plain};
//   gx::args_quantizing_a<wavekit::bf16, wavekit::bf16> args{a, b, b_scale, c, workspace, ws};
//   wavekit::status s = wavekit::gemm_mx(p, args, stream);
//
// It validates everything before launching, refuses a device without scaled MFMAs (gfx942) and
// picks a plan (ops/gemm_mx/plan.hpp answers the same without HIP). Experts pick a config:
// gx::launch<gx::config_medium>(p, args, splits, stream).
// Without HIP, ops::gemm_mx::supports(problem, target) answers whether the launch runs a problem on a target, or
// gives its status (ops/gemm_mx/supports.hpp; the README's support matrix is made from it).
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <hip/hip_runtime.h>

#include <type_traits>

#include "wavekit/arch/device.hpp"
#include "wavekit/ops/gemm_mx/kernel.hpp"
#include "wavekit/ops/gemm_mx/plan.hpp"
#include "wavekit/ops/gemm_mx/supports.hpp"

namespace wavekit {

namespace ops::gemm_mx {
// The element types of a call with arguments of type Args (the problem says A's and B's).
template <class Args>
  requires(is_args_v<Args>)
std::string tuning_dtypes_of(const problem& p) {
  return tuning_dtypes<std::remove_cvref_t<decltype(*Args{}.c)>>(p);
}
}  // namespace ops::gemm_mx

// The plan queries for the current device and a call with arguments of type Args (gx::args<Elem,
// Out> or gx::args_quantizing_a<T, Out>): the tuned tables key on the output type. With the
// workspace this query gives, the call runs its preferred plan.
template <class Args>
  requires(ops::gemm_mx::is_args_v<Args>)
result<std::size_t> gemm_mx_workspace_bytes(const ops::gemm_mx::problem& p) {
  return ops::gemm_mx::workspace_bytes(p, arch::current_device_arch().kind, ops::gemm_mx::tuning_dtypes_of<Args>(p));
}
template <class Args>
  requires(ops::gemm_mx::is_args_v<Args>)
result<ops::gemm_mx::plan_info> gemm_mx_select_plan(const ops::gemm_mx::problem& p, std::size_t workspace_bytes) {
  return ops::gemm_mx::select_plan(p, workspace_bytes, arch::current_device_arch().kind,
                                   ops::gemm_mx::tuning_dtypes_of<Args>(p));
}

// Validates, picks the plan and launches: both MX operands (args), or MXFP4 with a 16-bit A
// quantized in the kernel (args_quantizing_a, the problem's a_storage bf16 / fp16). When `ran` is
// given it receives the plan that ran.
template <class Args>
  requires(ops::gemm_mx::is_args_v<Args>)
status gemm_mx(const ops::gemm_mx::problem& p, const Args& args, hipStream_t stream,
               ops::gemm_mx::plan_info* ran = nullptr) {
  namespace gx = ops::gemm_mx;
  if (status s = gx::validate(p, args); !s.ok()) return s;
  const arch::device_arch& device = arch::current_device_arch();
  const result<gx::plan_info> plan =
      gx::select_plan(p, args.workspace ? args.workspace_bytes : 0, device.kind, gx::tuning_dtypes_of<Args>(p));
  if (!plan) return plan.error();
  const status s = gx::launch_plan(p, args, plan.value().plan, device.kind, stream);
  if (s.ok() && ran) *ran = plan.value();
  return s;
}

}  // namespace wavekit
