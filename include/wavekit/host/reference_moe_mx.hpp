// Host reference of the MoE layer over MX expert weights (ops/moe/problem.hpp's mx_args), in
// the two halves of the fp8 block-scaled layer's reference (host/reference_moe_blockscale.hpp) and
// for the same reason: the gated product is quantized to MXFP4 between them, so a check hands the
// second half the device's own quantized gated product.
//
//   reference_moe_mx_up:   x's MX form (host::quantize_mx, the rule the device's quantizer follows
//       bit for bit) and each expert's dequantized gate and up weights: h = T(SiLU(g) * u);
//   reference_moe_mx_down: from each slot's MX gated product, each choice's weight * y summed in
//       choice order and rounded once.
// (host/reference_moe_mx_fused.hpp is the end-to-end model of aiter's fused a4w4 path.)
//
// Elem: fp4_e2m1 (MXFP4) or fp8_e4m3fn (MXFP8). Weights in the plain layout ([rows][K] elements,
// two e2m1 a byte; [rows][K/32] e8m0); MX values times their power-of-two scales are exact in
// double.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <vector>

#include "wavekit/core/numeric_types.hpp"
#include "wavekit/host/quantize_mx.hpp"
#include "wavekit/host/reference_moe_blockscale.hpp"
#include "wavekit/ops/moe/problem.hpp"

namespace wavekit::host {

template <class Elem = fp4_e2m1>
struct moe_mx_weights {
  std::vector<mx_tensor<Elem>> gate, up, down;  // [local expert]; empty where unused
};

namespace detail {
template <class Elem>
std::vector<std::vector<double>> dequantize_experts(const std::vector<mx_tensor<Elem>>& tensors) {
  std::vector<std::vector<double>> out(tensors.size());
  for (std::size_t e = 0; e < tensors.size(); ++e)
    if (!tensors[e].data.empty()) {
      const std::vector<float> v = dequantize(tensors[e]);
      out[e].assign(v.begin(), v.end());
    }
  return out;
}
}  // namespace detail

// x_q: x's MX form ([tokens][hidden]).
template <class T, class Elem>
moe_blockscale_up_result reference_moe_mx_up(const ops::moe::problem& p, const mx_tensor<Elem>& x_q,
                                             const std::vector<int>& ids, const moe_mx_weights<Elem>& w) {
  const std::vector<float> x = dequantize(x_q);
  return reference_moe_up_dequantized<T>(
      p,
      [&](int t, std::vector<double>& xv) {
        for (int k = 0; k < p.hidden; ++k) xv[k] = x[std::size_t(t) * p.hidden + k];
      },
      ids, detail::dequantize_experts(w.gate), detail::dequantize_experts(w.up));
}

// h_q[s]: slot s's MX gated product (1 x expert_dim), empty for slots without a local expert.
template <class T, class Elem>
moe_reference_result reference_moe_mx_down(const ops::moe::problem& p, const std::vector<mx_tensor<Elem>>& h_q,
                                           const std::vector<int>& ids, const std::vector<float>& weights,
                                           const moe_mx_weights<Elem>& w) {
  std::vector<std::vector<float>> h(h_q.size());
  for (std::size_t s = 0; s < h_q.size(); ++s)
    if (!h_q[s].data.empty()) h[s] = dequantize(h_q[s]);
  return reference_moe_down_dequantized<T>(
      p, [&](std::size_t s, int d) { return double(h[s][d]); }, ids, weights, detail::dequantize_experts(w.down));
}

}  // namespace wavekit::host
