// MoE routing kernels (the rules: ops/moe/routing.hpp): one wave per token, the token's scores in
// registers (expert i * 64 + lane in slot i of lane `lane`), the selections by warp::wave_candidates.
// Launch: blocks of 4 waves, one token a wave; PerLane = ceil(experts / 64) chosen at launch.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <hip/hip_runtime.h>

#include <cmath>
#include <cstdint>

#include "wavekit/arch/buffer.hpp"
#include "wavekit/arch/codegen_targets.hpp"
#include "wavekit/arch/device_math.hpp"
#include "wavekit/core/half_convert.hpp"
#include "wavekit/core/math.hpp"
#include "wavekit/core/platform.hpp"
#include "wavekit/ops/moe/routing.hpp"
#include "wavekit/warp/warp_topk.hpp"

namespace wavekit::ops::moe {

inline constexpr int routing_waves_per_block = 4;

namespace detail {

// The token's logits as fp32, slot i of this lane holding expert i * 64 + lane (-Inf past the end).
// A NaN logit becomes -Inf here, the one place every rule reads (routing.hpp's rule for NaN).
template <int PerLane, class Logit>
WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void load_logits(const routing_problem& p, const Logit* logits, int token, int lane,
                                                    float (&v)[PerLane]) {
  const Logit* row = logits + std::size_t(token) * static_cast<std::size_t>(p.row_stride());
#pragma unroll
  for (int i = 0; i < PerLane; ++i) {
    const int e = i * 64 + lane;
    const float x = e < p.experts ? widen_to_float(row[e]) : -__builtin_inff();
    v[i] = x == x ? x : -__builtin_inff();
  }
}

// Lane j < top_k writes selection j; lanes top_k .. top_k + n_shared - 1 the shared experts.
template <class Logit>
WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void write_selection(const routing_problem& p, const routing_args<Logit>& a,
                                                        int token, int lane, int id, float weight) {
  const std::size_t at = std::size_t(token) * a.row_length(p.top_k) + lane;
  if (lane < p.top_k)
    a.ids[at] = id, a.weights[at] = weight;
  else if (lane < a.row_length(p.top_k))
    a.ids[at] = a.shared_expert + (lane - p.top_k), a.weights[at] = 1.0f;
}

template <int PerLane, class Logit>
WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void route_token(const routing_problem& p, const softmax_topk& rule,
                                                    const routing_args<Logit>& a, int token, int lane) {
  float v[PerLane];
  load_logits(p, a.logits, token, lane, v);
  float top = -__builtin_inff();
#pragma unroll
  for (int i = 0; i < PerLane; ++i) top = v[i] > top ? v[i] : top;
  top = warp::wave_max(top);
  if (!(top > -__builtin_inff() && top < __builtin_inff())) {
    // The limit of softmax (routing.hpp): the experts at the infinite maximum share p equally.
#pragma unroll
    for (int i = 0; i < PerLane; ++i) v[i] = v[i] == top ? 0.0f : -__builtin_inff();
    top = 0.0f;
  }
  warp::wave_candidates<PerLane> c;
  float sum = 0.0f;
#pragma unroll
  for (int i = 0; i < PerLane; ++i) {
    c.value[i] = i * 64 + lane < p.experts ? arch::device_expf(v[i] - top) : 0.0f;
    sum += c.value[i];
  }
  sum = warp::wave_sum(sum);
#pragma unroll
  for (int i = 0; i < PerLane; ++i) c.value[i] /= sum;
  c.limit(p.experts, lane);
  int my_id = 0;
  float my_weight = 0.0f, chosen_sum = 0.0f;
  for (int j = 0; j < p.top_k; ++j) {
    const warp::scored best = c.take_best(lane);
    chosen_sum += best.value;
    if (lane == j) my_id = best.id, my_weight = best.value;
  }
  if (rule.renormalize) my_weight /= chosen_sum;
  write_selection(p, a, token, lane, my_id, my_weight);
}

template <int PerLane, class Logit>
WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void route_token(const routing_problem& p, const grouped_sigmoid_topk& rule,
                                                    const routing_args<Logit>& a, int token, int lane) {
  float v[PerLane], s[PerLane];
  load_logits(p, a.logits, token, lane, v);
  warp::wave_candidates<PerLane> c;
#pragma unroll
  for (int i = 0; i < PerLane; ++i) {
    const int e = i * 64 + lane;
    s[i] = 1.0f / (1.0f + arch::device_expf(-v[i]));
    c.value[i] = s[i] + (rule.correction_bias && e < p.experts ? rule.correction_bias[e] : 0.0f);
  }
  c.limit(p.experts, lane);
  if (rule.n_group > 1) {
    // Group g's score ends up in lane g: the sum of its two best choice values with a correction
    // bias, its best without one (DeepSeek-V3's two cases).
    const int group_size = p.experts / rule.n_group;
    const bool top2 = rule.correction_bias != nullptr;
    float group_score = -__builtin_inff();
    for (int g = 0; g < rule.n_group; ++g) {
      warp::wave_candidates<PerLane> in_group = c;
#pragma unroll
      for (int i = 0; i < PerLane; ++i)
        if ((i * 64 + lane) / group_size != g) in_group.strike(i);
      const float first = in_group.take_best(lane).value;
      const float score = top2 ? first + in_group.take_best(lane).value : first;
      if (lane == g) group_score = score;
    }
    warp::wave_candidates<1> groups;
    groups.value[0] = group_score;
    groups.limit(rule.n_group, lane);
    std::uint64_t kept = 0;
    for (int j = 0; j < rule.topk_group; ++j) kept |= std::uint64_t{1} << groups.take_best(lane).id;
#pragma unroll
    for (int i = 0; i < PerLane; ++i)
      if (!(kept >> ((i * 64 + lane) / group_size % 64) & 1u)) c.strike(i);
  }
  int my_id = 0;
  float my_weight = 0.0f, chosen_sum = 0.0f;
  for (int j = 0; j < p.top_k; ++j) {
    const warp::scored best = c.take_best(lane);
    // The winner's own sigmoid score, from its lane.
    const float weight = __shfl(warp::select_slot(s, best.id / 64), best.id % 64);
    chosen_sum += weight;
    if (lane == j) my_id = best.id, my_weight = weight;
  }
  if (rule.renormalize && chosen_sum > 0.0f) my_weight /= chosen_sum;  // a zero sum keeps weights 0
  my_weight *= rule.routed_scaling_factor;
  write_selection(p, a, token, lane, my_id, my_weight);
}

}  // namespace detail

template <int PerLane, class Rule, class Logit>
__global__ __launch_bounds__(64 * routing_waves_per_block) void moe_routing_kernel(routing_problem p, Rule rule,
                                                                                   routing_args<Logit> a) {
  // No LDS of its own (the compiler may place a small per-lane array there), full occupancy.
  arch::declare_codegen_targets<1024, 8>();
  const int lane = static_cast<int>(threadIdx.x) % 64;
  const int token = static_cast<int>(blockIdx.x) * routing_waves_per_block +
                    __builtin_amdgcn_readfirstlane(static_cast<int>(threadIdx.x) / 64);
  if (token >= p.tokens) return;  // the whole wave
  detail::route_token<PerLane>(p, rule, a, token, lane);
}

// Validates, then launches one wave per token on `stream`. No host synchronisation.
template <class Rule, class Logit>
status route(const routing_problem& p, const Rule& rule, const routing_args<Logit>& a, hipStream_t stream) {
  if (status s = validate_routing(p, rule, a); !s.ok()) return s;
  if constexpr (requires { rule.correction_bias; })
    if (reinterpret_cast<std::uintptr_t>(rule.correction_bias) % 4)
      return {status_code::bad_alignment, "moe routing " + p.str() +
                                              ": argument correction_bias must be 4-byte "
                                              "aligned (fp32)"};
  if (p.tokens == 0) return status::success();
  const dim3 grid(static_cast<unsigned>(ceil_div(p.tokens, routing_waves_per_block)));
  const dim3 block(64 * routing_waves_per_block);
  const int per_lane = ceil_div(p.experts, 64);
  auto launch = [&]<int PerLane>() {
    hipLaunchKernelGGL((moe_routing_kernel<PerLane, Rule, Logit>), grid, block, 0, stream, p, rule, a);
  };
  if (per_lane <= 1)
    launch.template operator()<1>();
  else if (per_lane <= 2)
    launch.template operator()<2>();
  else if (per_lane <= 4)
    launch.template operator()<4>();
  else
    launch.template operator()<8>();
  if (hipError_t e = hipGetLastError(); e != hipSuccess)
    return {status_code::launch_failed, "moe routing " + p.str() + ": " + hipGetErrorString(e)};
  return status::success();
}

}  // namespace wavekit::ops::moe
