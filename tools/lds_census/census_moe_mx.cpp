// The MoE layer's census over MXFP4 weights (gfx950): the gemm_mx config each MoE config runs, in
// the report's form (amd-moe-mxfp4's: bf16 x quantized to MXFP4 inside, a fused [gate; up] and
// the scales in aiter's pre-shuffled layouts), the whole pipeline (sort, quantize x, gate, gated
// up, quantize h, weighted down, combine) on a small layer with a shared expert.
#include "lds_census/census.hpp"
#include "support/moe_mx_case.hpp"
#include "support/moe_routing_ids.hpp"
#include "wavekit/ops/moe.hpp"

namespace wavekit::lds_census {

namespace {

void census_moe_mx(entries& out) {
  namespace moe = ops::moe;
  if constexpr (arch::current_target == arch::target::gfx950) {
    // As census_moe_half with MXFP4's 256-K steps: hidden two of them, expert dim one.
    const int tokens = 32, routed = 7, top_k = 2;
    const moe::problem p{tokens, 512, 256, routed + 1, top_k + 1, 0, routed + 1, layout::k_contiguous};
    const std::vector<int> ids = test::random_ids_with_shared(tokens, top_k, routed, 1);
    for (moe::config_id id : moe::all_configs)
      moe::with_mx_config(id, [&](auto cfg) {
        using C = decltype(cfg);
        const std::size_t workspace = moe::plan_workspace(p, C::block_m, sizeof(bf16), moe::weight_format::mxfp4).bytes;
        test::moe_mx_case<bf16> t(p, ids, 1, workspace, /*preshuffled=*/true);
        measure(
            out, "moe", C::name(), p.str() + ", bf16 x, MXFP4 weights pre-shuffled",
            [&] { return moe::launch<C>(p, t.args(), arch::current_target, nullptr); },
            [&] { return t.check(C::block_m, C::name().c_str()); });
        return 0;
      });
  }
}

const registration registered{"moe", "moe_mx", census_moe_mx};

}  // namespace

}  // namespace wavekit::lds_census
