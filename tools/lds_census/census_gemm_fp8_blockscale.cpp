// The block-scaled fp8 GEMM's census: every shipped config in the report's form (the device's fp8,
// M/N-contiguous, amd-fp8-mm's order) on two N tiles of one M tile and K of four 128-K scale
// groups (four K steps or more on either target).
#include "lds_census/census.hpp"
#include "support/blockscale_case.hpp"
#include "wavekit/ops/gemm_fp8_blockscale.hpp"

namespace wavekit::lds_census {

namespace {

void census_gemm_fp8_blockscale(entries& out) {
  namespace gb = ops::gemm_fp8_blockscale;
  arch::with_device_fp8([&](auto fp8_format) {
    using fp8 = decltype(fp8_format);
    for (gb::config_id id : gb::all_configs)
      gb::with_config(id, [&](auto cfg) {
        using C = decltype(cfg);
        const gb::problem p{C::block_m, 2 * C::block_n, 4 * 128, layout::mn_contiguous};
        test::blockscale_case<fp8> t(p, 1);
        measure(
            out, "gemm_fp8_blockscale", C::name(), p.str() + ", " + type_name<fp8>(),
            [&] { return gb::launch<C>(p, t.args(), 1, nullptr); },
            [&] { return t.check(t.reference(), 1, C::name().c_str()); });
        return 0;
      });
  });
}

const registration registered{"gemm_fp8_blockscale", "gemm_fp8_blockscale", census_gemm_fp8_blockscale};

}  // namespace

}  // namespace wavekit::lds_census
