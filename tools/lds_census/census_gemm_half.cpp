// The half-precision GEMM's census: every shipped config in the report's form (bf16 A, B and C,
// K-contiguous) on two N tiles of one M tile, four K steps.
#include "lds_census/census.hpp"
#include "support/gemm_half_case.hpp"
#include "wavekit/ops/gemm_half.hpp"

namespace wavekit::lds_census {

namespace {

void census_gemm_half(entries& out) {
  namespace gh = ops::gemm_half;
  for (gh::config_id id : gh::all_configs)
    gh::with_config(id, [&](auto cfg) {
      using C = decltype(cfg);
      const gh::problem p{C::block_m, 2 * C::block_n, 4 * C::block_k, layout::k_contiguous};
      test::gemm_half_case<bf16, bf16> t(p, 1);
      measure(
          out, "gemm_half", C::name(), p.str() + ", bf16", [&] { return gh::launch<C>(p, t.args(), 1, nullptr); },
          [&] { return t.check(1, C::name().c_str()); });
      return 0;
    });
}

const registration registered{"gemm_half", "gemm_half", census_gemm_half};

}  // namespace

}  // namespace wavekit::lds_census
