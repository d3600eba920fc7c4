// wavekit's Mixture-of-Experts layer (bf16 / fp16 activations; bf16 / fp16, fp8 block-scaled,
// MXFP4 or MXFP8 expert weights): routing, then the experts, on the device with no host synchronisation (the
// whole pipeline can be captured in a HIP graph).
//
//   namespace moe = wavekit::ops::moe;
//   // 1. Routing (or ids and weights from elsewhere): softmax top-k, or DeepSeek's grouped sigmoid.
//   moe::routing_problem rp{tokens, experts, top_k};
//   wavekit::moe_route(rp, moe::softmax_topk{}, moe::routing_args<float>{logits, ids, weights}, stream);
//   // 2. The experts: sort, gate, SiLU(gate) * up, down times the routing weight, combine.
//   moe::problem p{tokens, hidden, expert_dim, experts, top_k, 0, experts, wavekit::layout::mn_contiguous};
//   std::size_t ws = wavekit::moe_workspace_bytes<moe::args<wavekit::fp16>>(p).value();  // this device
//   moe::args<wavekit::fp16> a{x, ids, weights, gate_table, up_table, down_table, out, workspace, ws};
//   wavekit::status s = wavekit::moe(p, a, stream);
//
//   // fp8 block-scaled weights (DeepSeek-V3's 128x128 scales; x quantized 1x128 inside):
//   std::size_t ws8 = wavekit::moe_workspace_bytes<moe::blockscale_args<wavekit::bf16, Fp8>>(p).value();
//   moe::blockscale_args<wavekit::bf16, Fp8> b{x, ids, weights, gate8, up8, down8,
//                                               gate_scales, up_scales, down_scales, out, workspace, ws8};
//   s = wavekit::moe(p, b, stream);
//
//   // MXFP4 weights on gfx950 (amd-moe-mxfp4; x and the gated product quantized to MXFP4 inside;
//   // k_contiguous weights, plain or pre-shuffled; MXFP8 likewise with moe::mxfp8_args, plain):
//   std::size_t ws4 = wavekit::moe_workspace_bytes<moe::mxfp4_args<wavekit::bf16>>(p).value();
//   moe::mxfp4_args<wavekit::bf16> c{.x = x, .ids = ids, .weights = weights, .gate = gate4, .up = up4,
//                                    .down = down4, .gate_scale = gate_e8m0, .up_scale = up_e8m0,
//                                    .down_scale = down_e8m0, .out = out, .workspace = workspace,
//                                    .workspace_bytes = ws4, .weight_layout = moe::b_layout::preshuffled};
//   // The extents the weights are stored at (amd-moe-mxfp4's: padded to 256) and the bytes behind
//   // each pointer (ops/moe/mx_storage.hpp; gate and up may be entries of one fused [gate; up]):
//   const int hp = hidden_pad, ep = expert_dim_pad;
//   c.hidden_pad = hp, c.expert_dim_pad = ep;
//   c.gate_bytes = c.up_bytes = moe::mx_weight_bytes<wavekit::fp4_e2m1>(ep, hp);
//   c.down_bytes = moe::mx_weight_bytes<wavekit::fp4_e2m1>(hp, ep);
//   c.gate_scale_bytes = c.up_scale_bytes = moe::mx_scale_bytes(ep, hp, moe::b_layout::preshuffled);
//   c.down_scale_bytes = moe::mx_scale_bytes(hp, ep, moe::b_layout::preshuffled);
//   s = wavekit::moe(p, c, stream);
//
// Statuses come before any launch (ops/moe/problem.hpp, routing.hpp, sort.hpp name the rules).
// Experts: moe::launch<moe::config_medium>(p, a, stream) runs one config.
// Without HIP, ops::moe::supports<Args>(problem, target) answers whether the launch runs a problem on a target, or
// gives its status (ops/moe/supports.hpp; the README's support matrix is made from it).
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <hip/hip_runtime.h>

#include <string>

#include "wavekit/arch/device.hpp"
#include "wavekit/ops/moe/batched.hpp"
#include "wavekit/ops/moe/kernel.hpp"
#include "wavekit/ops/moe/kernel_mx.hpp"
#include "wavekit/ops/moe/plan.hpp"
#include "wavekit/ops/moe/routing_kernel.hpp"
#include "wavekit/ops/moe/supports.hpp"

namespace wavekit {

// The plan wavekit::moe runs on the current device for a call with arguments of type Args
// (moe::args<T>, blockscale_args<T, Fp8> or mx_args<T, Elem>) and `workspace_bytes` of workspace:
// its config (the tuned tables key on T and the weights' format), name, M tile and workspace, as the
// GEMMs' gemm_<op>_select_plan answer. The call's rules come first (moe::supports: the shape, the
// fp8 format or MX target, the sort at the config's M tile), as its status.
template <class Args>
result<ops::moe::plan_info> moe_select_plan(const ops::moe::problem& p, std::size_t workspace_bytes) {
  namespace m = ops::moe;
  using form = m::detail::form_of<Args>;
  static_assert(!form::batched, "moe_select_plan: batched arguments go with moe::choose_batched_config");
  using T = typename form::activation;
  static_assert(sizeof(T) == 2, "moe: the plan sizes bf16 / fp16 activations");
  const arch::device_arch& device = arch::current_device_arch();
  if (status s = arch::check_device_queried(device, "moe"); !s.ok()) return s;
  if (status s = m::supports<Args>(p, device.kind); !s.ok()) return s;
  return m::describe_plan(p, form::weights, device.kind, workspace_bytes,
                          m::tuning_dtypes<T>(form::weights, device.kind));
}

// The workspace wavekit::moe needs on the current device for a call with arguments of type Args:
// what the plan chosen with unlimited workspace uses, so with this many bytes the call runs its
// preferred config.
template <class Args>
result<std::size_t> moe_workspace_bytes(const ops::moe::problem& p) {
  const result<ops::moe::plan_info> plan = moe_select_plan<Args>(p, ops::moe::unlimited_workspace);
  if (!plan) return plan.error();
  return plan.value().preferred_workspace_bytes;
}

template <class Rule, class Logit>
status moe_route(const ops::moe::routing_problem& p, const Rule& rule, const ops::moe::routing_args<Logit>& a,
                 hipStream_t stream) {
  return ops::moe::route(p, rule, a, stream);
}

// Validates, picks the config for the device within the call's workspace (ops/moe/plan.hpp) and
// launches the pipeline. When `ran` is given it receives the plan that ran (moe_select_plan's answer
// for the call's workspace), as the GEMMs' one-call APIs do.
template <class T>
status moe(const ops::moe::problem& p, const ops::moe::args<T>& a, hipStream_t stream,
           ops::moe::plan_info* ran = nullptr) {
  namespace m = ops::moe;
  if (status s = m::validate_shape(p); !s.ok()) return s;
  const arch::target device = arch::current_device_arch().kind;
  const m::config_id id = m::choose_config(p, m::weight_format::half, device, a.workspace_bytes,
                                           m::tuning_dtypes<T>(m::weight_format::half, device));
  const status s = m::with_config(id, [&](auto cfg) { return m::launch<decltype(cfg)>(p, a, stream); });
  if (s.ok() && ran)
    *ran = m::describe_plan(p, m::weight_format::half, device, a.workspace_bytes,
                            m::tuning_dtypes<T>(m::weight_format::half, device));
  return s;
}

// fp8 block-scaled expert weights (ops/moe/problem.hpp's blockscale_args): the same pipeline with
// the activations quantized 1x128 inside it. Fp8 must be the format the device reads.
template <class T, class Fp8>
status moe(const ops::moe::problem& p, const ops::moe::blockscale_args<T, Fp8>& a, hipStream_t stream,
           ops::moe::plan_info* ran = nullptr) {
  namespace m = ops::moe;
  if (status s = m::validate_blockscale_shape(p); !s.ok()) return s;
  const arch::device_arch& device = arch::current_device_arch();
  if (status s = arch::check_device_fp8_format<Fp8>(device, "moe"); !s.ok()) return s;
  const m::blockscale::config_id id = m::choose_blockscale_config(
      p, device.kind, a.workspace_bytes, m::tuning_dtypes<T>(m::weight_format::fp8_blockscale, device.kind));
  const status s = m::blockscale::with_config(id, [&](auto cfg) { return m::launch<decltype(cfg)>(p, a, stream); });
  if (s.ok() && ran)
    *ran = m::describe_plan(p, m::weight_format::fp8_blockscale, device.kind, a.workspace_bytes,
                            m::tuning_dtypes<T>(m::weight_format::fp8_blockscale, device.kind));
  return s;
}

// The batched expert-parallel layout (ops/moe/batched.hpp): validates, picks the config whose M tile
// divides max_tokens, launches.
// MX expert weights (gfx950; MXFP4 or MXFP8): the config of the same M tile among gemm_mx's.
template <class T, class Elem>
status moe(const ops::moe::problem& p, const ops::moe::mx_args<T, Elem>& a, hipStream_t stream,
           ops::moe::plan_info* ran = nullptr) {
  namespace m = ops::moe;
  if (status s = m::validate_mx_shape(p); !s.ok()) return s;
  const arch::target device = arch::current_device_arch().kind;
  const m::config_id id = m::choose_config(p, m::mx_weight_format<Elem>, device, a.workspace_bytes,
                                           m::tuning_dtypes<T>(m::mx_weight_format<Elem>, device));
  const status s = m::with_mx_config(id, [&](auto cfg) { return m::launch<decltype(cfg)>(p, a, device, stream); });
  if (s.ok() && ran)
    *ran = m::describe_plan(p, m::mx_weight_format<Elem>, device, a.workspace_bytes,
                            m::tuning_dtypes<T>(m::mx_weight_format<Elem>, device));
  return s;
}

template <class T>
status moe_batched(const ops::moe::batched_problem& p, const ops::moe::batched_args<T>& a, hipStream_t stream) {
  namespace m = ops::moe;
  if (status s = m::validate_batched_shape(p); !s.ok()) return s;
  return m::with_config(m::choose_batched_config(p),
                        [&](auto cfg) { return m::launch_batched<decltype(cfg)>(p, a, stream); });
}
template <class T, class Fp8>
status moe_batched(const ops::moe::batched_problem& p, const ops::moe::batched_blockscale_args<T, Fp8>& a,
                   hipStream_t stream) {
  namespace m = ops::moe;
  if (status s = m::validate_batched_blockscale_shape(p); !s.ok()) return s;
  if (status s = arch::check_device_fp8_format<Fp8>(arch::current_device_arch(), "moe (batched)"); !s.ok()) return s;
  const m::blockscale::config_id id = m::blockscale_config_of(m::choose_batched_config(p));
  return m::blockscale::with_config(id, [&](auto cfg) { return m::launch_batched<decltype(cfg)>(p, a, stream); });
}

}  // namespace wavekit
