// wavekit's GEMM + bias + activation: C = act(A x B^T + bias), A, B and bias bf16 or fp16, C bf16,
// fp16, fp32 or fp8, split-K kept (ops/gemm_bias_act/problem.hpp).
//
//   namespace gba = wavekit::ops::gemm_bias_act;
//   gba::problem p{{m, n, k, wavekit::layout::k_contiguous}, wavekit::activation::gelu_tanh};
//   using Args = gba::args<wavekit::bf16, wavekit::fp8_e4m3fnuz>;      // gfx942's fp8
//   std::size_t ws = wavekit::gemm_bias_act_workspace_bytes<Args>(p).value();
//   Args args{a, b, bias, c, out_scale, workspace, ws};
//   wavekit::status s = wavekit::gemm_bias_act(p, args, stream);
//
// The plan is gemm_half's for the GEMM (ops/gemm_half/plan.hpp); experts pick a config:
// gba::launch<wavekit::ops::gemm_half::config_medium>(p, args, splits, stream). Without HIP,
// gba::supports<Out>(p, target) answers whether a problem runs (ops/gemm_bias_act/supports.hpp).
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <hip/hip_runtime.h>

#include "wavekit/arch/device.hpp"
#include "wavekit/ops/gemm_bias_act/kernel.hpp"
#include "wavekit/ops/gemm_bias_act/supports.hpp"
#include "wavekit/ops/gemm_half/plan.hpp"

namespace wavekit {

namespace ops::gemm_bias_act {
// The tuned tables' element types for the GEMM: gemm_half's, with an fp8 C planned as a 16-bit one.
template <class T, class Out>
std::string tuning_dtypes_of(const args<T, Out>&) {
  return gemm_half::tuning_dtypes<T, std::conditional_t<is_fp8_e4m3_v<Out>, T, Out>>();
}
}  // namespace ops::gemm_bias_act

template <class Args>
result<std::size_t> gemm_bias_act_workspace_bytes(const ops::gemm_bias_act::problem& p) {
  return ops::gemm_half::workspace_bytes(p.gemm, arch::current_device_arch().kind,
                                         ops::gemm_bias_act::tuning_dtypes_of(Args{}));
}

// Validates, picks gemm_half's plan and launches. When `ran` is given it receives the plan that ran.
template <class T, class Out>
status gemm_bias_act(const ops::gemm_bias_act::problem& p, const ops::gemm_bias_act::args<T, Out>& args,
                     hipStream_t stream, ops::gemm_half::plan_info* ran = nullptr) {
  namespace gba = ops::gemm_bias_act;
  if (status s = gba::validate(p, args); !s.ok()) return s;
  const arch::device_arch& device = arch::current_device_arch();
  if (status s = arch::check_device_queried(device, "gemm_bias_act"); !s.ok()) return s;
  if (status s = gba::supports<Out>(p, device.kind); !s.ok()) return s;
  const result<ops::gemm_half::plan_info> plan = ops::gemm_half::select_plan(
      p.gemm, args.workspace ? args.workspace_bytes : 0, device.kind, gba::tuning_dtypes_of(args));
  if (!plan) return plan.error();
  const status s = ops::gemm_half::with_config(plan.value().plan.config, [&](auto cfg) {
    return gba::launch<decltype(cfg)>(p, args, plan.value().plan.splits, stream);
  });
  if (s.ok() && ran) *ran = plan.value();
  return s;
}

}  // namespace wavekit
