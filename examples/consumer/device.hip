// The consumer's real device build: wavekit's MoE layer, its router and the fp8 GEMM compiled
// for gfx942 as HIP (host and device passes) with wavekit's headers as system headers and
// -Wall -Wextra -Werror, as a project that treats warnings as errors builds them. Compiled, not
// run (no GPU here): test/package checks that it builds.
#include <hip/hip_runtime.h>

#include <wavekit/ops/gemm_fp8_direct.hpp>
#include <wavekit/ops/moe.hpp>

namespace moe = wavekit::ops::moe;

// One decode step of a bf16 MoE layer whose last expert is a shared one: route the router's
// logits over the others (the shared expert appended to every token's choices), then the layer.
wavekit::status consumer_moe_step(const moe::problem& p, const float* logits, const wavekit::bf16* x, int* ids,
                                  float* weights, wavekit::bf16* const* gate, wavekit::bf16* const* up,
                                  wavekit::bf16* const* down, wavekit::bf16* out, void* workspace,
                                  std::size_t workspace_bytes, hipStream_t stream) {
  const int routed = p.experts - 1;
  const moe::routing_problem rp{p.tokens, routed, p.top_k - 1};
  wavekit::status s =
      wavekit::moe_route(rp, moe::softmax_topk{}, moe::routing_args<float>{logits, ids, weights, routed}, stream);
  if (!s.ok()) return s;
  return wavekit::moe(p, moe::args<wavekit::bf16>{x, ids, weights, gate, up, down, out, workspace, workspace_bytes},
                      stream);
}

wavekit::status consumer_fp8_gemm(const wavekit::fp8_e4m3fnuz* a, const wavekit::fp8_e4m3fnuz* b, float* c, int m,
                                  int n, int k, hipStream_t stream) {
  return wavekit::ops::gemm_fp8_direct::launch<wavekit::fp8_e4m3fnuz>({a, b, c, m, n, k}, stream);
}

// The same layer with fp8 weights and 128x128 block scales (DeepSeek-V3's), activations
// quantized 1x128 inside.
wavekit::status consumer_moe_fp8(const moe::problem& p,
                                 const moe::blockscale_args<wavekit::bf16, wavekit::fp8_e4m3fnuz>& a,
                                 hipStream_t stream) {
  return wavekit::moe(p, a, stream);
}
