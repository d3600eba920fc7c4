// The scaled fp8 GEMM's census: every shipped config in the report's form (the device's fp8,
// K-contiguous, per-tensor scales, bf16 C) on two N tiles of one M tile, four of the target's K
// steps.
#include "lds_census/census.hpp"
#include "support/gemm_fp8_scaled_case.hpp"
#include "wavekit/ops/gemm_fp8_scaled.hpp"

namespace wavekit::lds_census {

namespace {

void census_gemm_fp8_scaled(entries& out) {
  namespace gs = ops::gemm_fp8_scaled;
  using gs::scale_granularity;
  arch::with_device_fp8([&](auto fp8_format) {
    using fp8 = decltype(fp8_format);
    for (gs::config_id id : gs::all_configs)
      gs::with_config(id, [&](auto cfg) {
        using C = decltype(cfg);
        const int step = gs::block_k_on<C>(arch::current_target);
        const gs::problem p{C::block_m,
                            2 * C::block_n,
                            4 * step,
                            layout::k_contiguous,
                            scale_granularity::tensor,
                            scale_granularity::tensor};
        test::gemm_fp8_scaled_case<fp8, bf16> t(p, 1);
        measure(
            out, "gemm_fp8_scaled", C::name(), p.str() + ", " + type_name<fp8>() + " -> bf16",
            [&] { return gs::launch<C>(p, t.args(), 1, nullptr); },
            [&] { return t.check(1, C::name().c_str(), C::row_pairs); });
        return 0;
      });
  });
}

const registration registered{"gemm_fp8_scaled", "gemm_fp8_scaled", census_gemm_fp8_scaled};

}  // namespace

}  // namespace wavekit::lds_census
