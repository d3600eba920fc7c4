// The MX GEMM's census (gfx950, the only target with scaled MFMAs): every config that can quantize
// its A tile, in the report's form (amd-mxfp4-mm's: bf16 A quantized to MXFP4 in the kernel, B
// MXFP4 in aiter's pre-shuffled layouts, bf16 C), on two N tiles of one M tile, four K steps.
#include "lds_census/census.hpp"
#include "support/gemm_mx_case.hpp"
#include "wavekit/ops/gemm_mx.hpp"

namespace wavekit::lds_census {

namespace {

void census_gemm_mx(entries& out) {
  namespace gx = ops::gemm_mx;
  if constexpr (arch::current_target == arch::target::gfx950) {
    for (gx::config_id id : gx::all_configs)
      gx::with_config(id, [&](auto cfg) {
        using C = decltype(cfg);
        if constexpr (gx::quantizes_a_config<C>) {
          const gx::problem p{C::block_m,           2 * C::block_n,      4 * gx::block_k_of<C>(gx::mx_format::mxfp4),
                              gx::mx_format::mxfp4, gx::a_storage::bf16, gx::b_layout::preshuffled};
          test::gemm_mx_quantizing_a_case<bf16, bf16> t(p, 1);
          measure(
              out, "gemm_mx", C::name(), p.str(), [&] { return gx::launch<C>(p, t.args(), 1, nullptr); },
              [&] { return t.check(1, C::name().c_str()); });
        }
        return 0;
      });
  }
}

const registration registered{"gemm_mx", "gemm_mx", census_gemm_mx};

}  // namespace

}  // namespace wavekit::lds_census
