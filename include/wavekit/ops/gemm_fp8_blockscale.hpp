// wavekit's block-scaled fp8 GEMM, the API most users want:
//
//   namespace gb = wavekit::ops::gemm_fp8_blockscale;
//   gb::problem p{m, n, k, wavekit::layout::mn_contiguous};                   // order: no default
//   using Args = gb::args<wavekit::arch::gfx942::fp8>;
//   std::size_t ws = wavekit::gemm_fp8_blockscale_workspace_bytes<Args>(p).value();  // split-K partials
//   Args args{a, b, a_scale, b_scale, c, workspace, ws};
//   wavekit::status s = wavekit::gemm_fp8_blockscale(p, args, stream);
//   if (!s) std::puts(s.message().c_str());
//
// It validates everything before launching, picks a plan (ops/gemm_fp8_blockscale/plan.hpp)
// for any legal shape (with less workspace than the plan wants, one with fewer K splits: the
// optional last argument says which ran, and ops/gemm_fp8_blockscale/plan.hpp answers the same
// without launching), and checks that the fp8 format is the one the device's matrix cores read
// (fnuz on gfx942, OCP on gfx950). Experts pick a configuration themselves with
// gb::launch<Config>(problem, args, stream) (the config's own SplitK) or
// gb::launch<Config>(problem, args, splits, stream); docs/gemm-fp8-blockscale.md walks from this
// call down to the templates.
// Without HIP, ops::gemm_fp8_blockscale::supports<Fp8>(problem, target) answers whether the launch runs a problem on a
// target, or gives its status (ops/gemm_fp8_blockscale/supports.hpp; the README's support matrix is made from it).
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <hip/hip_runtime.h>

#include "wavekit/arch/device.hpp"
#include "wavekit/ops/gemm_fp8_blockscale/kernel.hpp"
#include "wavekit/ops/gemm_fp8_blockscale/plan.hpp"
#include "wavekit/ops/gemm_fp8_blockscale/supports.hpp"

namespace wavekit {

namespace ops::gemm_fp8_blockscale {
// The call's and the queries' format rule: Fp8 is the format the device's matrix cores read.
template <class Fp8>
status check_device_format(const args<Fp8>&, const arch::device_arch& device) {
  return arch::check_device_fp8_format<Fp8>(device, "gemm_fp8_blockscale");
}
}  // namespace ops::gemm_fp8_blockscale

// The plan queries for the current device and a call with arguments of type Args (gb::args<Fp8>;
// see ops/gemm_fp8_blockscale/plan.hpp). Fp8 must be the format the device reads (the call's status
// otherwise); C is bf16, so the plan depends on no other element type.
template <class Args>
result<std::size_t> gemm_fp8_blockscale_workspace_bytes(const ops::gemm_fp8_blockscale::problem& p) {
  const arch::device_arch& device = arch::current_device_arch();
  if (status s = ops::gemm_fp8_blockscale::check_device_format(Args{}, device); !s.ok()) return s;
  return ops::gemm_fp8_blockscale::workspace_bytes(p, device.kind);
}
template <class Args>
result<ops::gemm_fp8_blockscale::plan_info> gemm_fp8_blockscale_select_plan(const ops::gemm_fp8_blockscale::problem& p,
                                                                            std::size_t workspace_bytes) {
  const arch::device_arch& device = arch::current_device_arch();
  if (status s = ops::gemm_fp8_blockscale::check_device_format(Args{}, device); !s.ok()) return s;
  return ops::gemm_fp8_blockscale::select_plan(p, workspace_bytes, device.kind);
}

// Validates, picks the plan and launches. When `ran` is given it receives the plan that ran (its
// workspace_limited flag says a too-small workspace changed it); it is left alone on failure.
template <class Fp8>
status gemm_fp8_blockscale(const ops::gemm_fp8_blockscale::problem& p, const ops::gemm_fp8_blockscale::args<Fp8>& args,
                           hipStream_t stream, ops::gemm_fp8_blockscale::plan_info* ran = nullptr) {
  namespace gb = ops::gemm_fp8_blockscale;
  if (status s = gb::validate(p, args); !s.ok()) return s;
  const arch::device_arch& device = arch::current_device_arch();
  if (status s = gb::check_device_format(args, device); !s.ok()) return s;
  const result<gb::plan_info> plan = gb::select_plan(p, args.workspace ? args.workspace_bytes : 0, device.kind);
  if (!plan) return plan.error();
  const status s = gb::with_config(plan.value().plan.config, [&](auto cfg) {
    return gb::launch<decltype(cfg)>(p, args, plan.value().plan.splits, stream);
  });
  if (s.ok() && ran) *ran = plan.value();
  return s;
}

}  // namespace wavekit
