// wavekit's block-scaled fp8 GEMM, the API most users want:
//
//   wavekit::gemm_fp8_blockscale_problem p{m, n, k, wavekit::layout::mn_contiguous};  // order: no default
//   std::size_t ws = wavekit::gemm_fp8_blockscale_workspace_bytes(p).value();   // fp32 split-K partials, this device
//   wavekit::gemm_fp8_blockscale_args<wavekit::arch::gfx942::fp8> args{a, b, a_scale, b_scale, c, workspace, ws};
//   wavekit::status s = wavekit::gemm_fp8_blockscale(p, args, stream);
//   if (!s) std::puts(s.message().c_str());
//
// It validates everything before launching, picks a plan (config/gemm_fp8_blockscale_dispatch.hpp)
// for any legal shape (with less workspace than the plan wants, one with fewer K splits: the
// optional last argument says which ran, and config/gemm_fp8_blockscale_plan.hpp answers the same
// without launching), and checks that the fp8 format is the one the device's matrix cores read
// (fnuz on gfx942, OCP on gfx950). Experts pick a configuration themselves with
// ops::launch_gemm_fp8_blockscale<Config>(problem, args, stream) (the config's own SplitK) or
// ops::launch_gemm_fp8_blockscale<Config>(problem, args, splits, stream); docs/gemm-fp8-blockscale.md
// walks from this call down to the templates.
#pragma once

#include <hip/hip_runtime.h>

#include <string>

#include "wavekit/arch/device.hpp"
#include "wavekit/config/gemm_fp8_blockscale_plan.hpp"
#include "wavekit/ops/gemm/gemm_fp8_blockscale_kernel.hpp"

namespace wavekit {

using ops::gemm_fp8_blockscale_args;

// The plan queries for the current device's target (see config/gemm_fp8_blockscale_plan.hpp).
inline result<std::size_t> gemm_fp8_blockscale_workspace_bytes(const gemm_fp8_blockscale_problem& p) {
  return gemm_fp8_blockscale_workspace_bytes(p, arch::current_device_arch().kind);
}
inline result<gemm_fp8_blockscale_plan_info> gemm_fp8_blockscale_select_plan(const gemm_fp8_blockscale_problem& p,
                                                                             std::size_t workspace_bytes) {
  return gemm_fp8_blockscale_select_plan(p, workspace_bytes, arch::current_device_arch().kind);
}

// The fp8 format the device's matrix cores read must be Fp8's (arch/matrix_formats.hpp).
template <class Fp8>
status check_device_fp8_format(const arch::device_arch& device) {
  return arch::check_device_fp8_format<Fp8>(device, "gemm_fp8_blockscale");
}

// Validates, picks the plan and launches. When `ran` is given it receives the plan that ran (its
// workspace_limited flag says a too-small workspace changed it); it is left alone on failure.
template <class Fp8>
status gemm_fp8_blockscale(const gemm_fp8_blockscale_problem& p, const gemm_fp8_blockscale_args<Fp8>& args,
                           hipStream_t stream, gemm_fp8_blockscale_plan_info* ran = nullptr) {
  if (status s = ops::validate_blockscale(p, args); !s.ok()) return s;
  const arch::device_arch device = arch::current_device_arch();
  if (status s = check_device_fp8_format<Fp8>(device); !s.ok()) return s;
  const result<gemm_fp8_blockscale_plan_info> plan =
      gemm_fp8_blockscale_select_plan(p, args.workspace ? args.workspace_bytes : 0, device.kind);
  if (!plan) return plan.error();
  const status s = config::with_blockscale_config(plan.value().plan.config, [&](auto cfg) {
    return ops::launch_gemm_fp8_blockscale<decltype(cfg)>(p, args, plan.value().plan.splits, stream);
  });
  if (s.ok() && ran) *ran = plan.value();
  return s;
}

}  // namespace wavekit
