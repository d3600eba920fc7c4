// Codegen instance: the MoE pipeline's kernels around the grouped GEMMs: routing (softmax top-k
// and DeepSeek's grouped sigmoid top-k, fp32 logits, up to 256 experts), the token sort and the
// combine and the unreduced scatter (bf16), and the batched layout's tables.
// wavekit-codegen-archs: gfx942 gfx950
#include "wavekit/ops/moe/batched.hpp"
#include "wavekit/ops/moe/kernel.hpp"
#include "wavekit/ops/moe/routing_kernel.hpp"

namespace moe = wavekit::ops::moe;
template __global__ void moe::moe_routing_kernel<4, moe::softmax_topk, float>(moe::routing_problem, moe::softmax_topk,
                                                                              moe::routing_args<float>);
template __global__ void moe::moe_routing_kernel<4, moe::grouped_sigmoid_topk, float>(moe::routing_problem,
                                                                                      moe::grouped_sigmoid_topk,
                                                                                      moe::routing_args<float>);
template __global__ void moe::moe_combine_kernel<wavekit::bf16>(const float*, const int*, int, int, int, wavekit::bf16*,
                                                                int);
template __global__ void moe::moe_sort_kernel<moe::sort_waves>(moe::sort_problem, moe::sort_capacity, const int*,
                                                               moe::sort_outputs);
template __global__ void moe::moe_unreduced_kernel<wavekit::bf16>(const float*, const int*, int, int, wavekit::bf16*);
template __global__ void moe::moe_batched_layout_kernel<256>(moe::batched_problem, int, const int*, int*, int*);
