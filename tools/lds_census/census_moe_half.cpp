// The MoE layer's census over half-precision weights: every shipped config in the report's form
// (fp16 activations and weights, M/N-contiguous weights, amd-mixture-of-experts'), the whole
// pipeline (sort, gate, gated up, weighted down, combine) on a small layer with a shared expert.
#include "lds_census/census.hpp"
#include "support/moe_case.hpp"
#include "support/moe_routing_ids.hpp"
#include "wavekit/ops/moe.hpp"

namespace wavekit::lds_census {

namespace {

void census_moe_half(entries& out) {
  namespace moe = ops::moe;
  // 32 tokens, top 2 of 7 routed experts plus the shared one; hidden 4 K steps of the gate and up
  // projections, expert dim 2 of the down projection.
  const int tokens = 32, routed = 7, top_k = 2;
  const moe::problem p{tokens, 256, 128, routed + 1, top_k + 1, 0, routed + 1, layout::mn_contiguous};
  const std::vector<int> ids = test::random_ids_with_shared(tokens, top_k, routed, 1);
  for (moe::config_id id : moe::all_configs)
    moe::with_config(id, [&](auto cfg) {
      using C = decltype(cfg);
      test::moe_case<fp16> t(p, ids, 1, moe::workspace_bytes_for<C, fp16>(p));
      measure(
          out, "moe", C::name(), p.str() + ", fp16", [&] { return moe::launch<C>(p, t.args(), nullptr); },
          [&] { return t.check(C::name().c_str()); });
      return 0;
    });
}

const registration registered{"moe", "moe_half", census_moe_half};

}  // namespace

}  // namespace wavekit::lds_census
