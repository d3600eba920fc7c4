// ops_once's layers on gfx942: MLA decode, MoE routing and the MoE layer (ops_once.cpp says what is
// checked).
#include <hip/hip_runtime.h>

#include "wavekit/arch/target.hpp"

#if !WAVEKIT_TARGET_GFX950
#include <random>
#include <vector>

#include "ops_once.hpp"
#include "support/device_upload.hpp"
#include "support/mla_case.hpp"
#include "support/moe_case.hpp"
#include "wavekit/host/reference_moe_routing.hpp"
#include "wavekit/ops/mla_decode.hpp"
#include "wavekit/ops/moe.hpp"

using namespace wavekit;

namespace ops_once {

// Several splits (the decode and the reduce kernel), and the absent lse (allowed).
void run_mla_decode() {
  namespace mla = ops::mla_decode;
  test::mla_case<bf16> t(16, {70, 1, 0, 33}, {1, 1, 1, 1}, 0, 5);
  const mla::split_plan plan{32, 3};
  mla::args<bf16, bf16> a = t.args(plan);
  const status s = wavekit::mla_decode(t.p, t.view(), a, plan, nullptr);
  report("mla_decode", s, s.ok() ? t.check("mla_decode") : 0);
  a.lse = nullptr;
  report("mla_decode (no lse)", wavekit::mla_decode(t.p, t.view(), a, plan, nullptr));
}

// Routing on the device, its ids checked against the reference, then the layer over those ids.
void run_moe() {
  namespace moe = ops::moe;
  const moe::routing_problem rp{37, 8, 2};
  std::mt19937 rng(6);
  std::normal_distribution<float> n(0.0f, 2.0f);
  std::vector<float> logits(std::size_t(rp.tokens) * rp.experts);
  for (float& v : logits) v = n(rng);
  float *d_logits = test::upload(logits), *d_weights = nullptr;
  int* d_ids = nullptr;
  hipMalloc(&d_ids, std::size_t(rp.tokens) * rp.top_k * sizeof(int));
  hipMalloc(&d_weights, std::size_t(rp.tokens) * rp.top_k * sizeof(float));
  const status routed =
      wavekit::moe_route(rp, moe::softmax_topk{}, moe::routing_args<float>{d_logits, d_ids, d_weights}, nullptr);
  std::vector<int> ids(std::size_t(rp.tokens) * rp.top_k);
  hipMemcpy(ids.data(), d_ids, ids.size() * sizeof(int), hipMemcpyDeviceToHost);
  report("moe_route", routed, routed.ok() && ids != host::reference_route(logits, rp, moe::softmax_topk{}).ids);
  hipFree(d_logits), hipFree(d_ids), hipFree(d_weights);

  const moe::problem p{rp.tokens, 256, 96, rp.experts, rp.top_k, 0, rp.experts, layout::mn_contiguous};
  test::moe_case<bf16> t(p, ids, 7, moe::workspace_bytes(p).value());
  const status s = wavekit::moe(p, t.args(), nullptr);
  report("moe", s, s.ok() ? t.check("moe") : 0);
}

}  // namespace ops_once

#endif
