// The MoE layer's census over fp8 block-scaled weights: every shipped config in the report's form
// (DeepSeek-V3's: bf16 x quantized 1x128 inside, the device's fp8 weights K-contiguous with
// 128x128 scales), the whole pipeline (sort, quantize x, gate, gated up, quantize h, weighted down,
// combine) on a small layer with a shared expert.
#include "lds_census/census.hpp"
#include "support/moe_blockscale_case.hpp"
#include "support/moe_routing_ids.hpp"
#include "wavekit/ops/moe.hpp"

namespace wavekit::lds_census {

namespace {

void census_moe_fp8(entries& out) {
  namespace moe = ops::moe;
  // As census_moe_half: hidden two 128-K scale groups, expert dim one.
  const int tokens = 32, routed = 7, top_k = 2;
  const moe::problem p{tokens, 256, 128, routed + 1, top_k + 1, 0, routed + 1, layout::k_contiguous};
  const std::vector<int> ids = test::random_ids_with_shared(tokens, top_k, routed, 1);
  arch::with_device_fp8([&](auto fp8_format) {
    using fp8 = decltype(fp8_format);
    for (moe::blockscale::config_id id : moe::blockscale::all_configs)
      moe::blockscale::with_config(id, [&](auto cfg) {
        using C = decltype(cfg);
        test::moe_blockscale_case<bf16, fp8> t(p, ids, 1, moe::blockscale_workspace_bytes_for<C, bf16>(p));
        measure(
            out, "moe", C::name(), p.str() + ", bf16 x, " + type_name<fp8>() + " weights",
            [&] { return moe::launch<C>(p, t.args(), nullptr); },
            [&] { return t.check_standard(C::block_m, C::name().c_str()); });
        return 0;
      });
  });
}

const registration registered{"moe", "moe_fp8", census_moe_fp8};

}  // namespace

}  // namespace wavekit::lds_census
