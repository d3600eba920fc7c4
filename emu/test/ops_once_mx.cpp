// ops_once's MX ops on gfx950: the MX GEMM and the MoE layer over pre-shuffled MXFP4 weights
// (ops_once.cpp says what is checked).
#include <hip/hip_runtime.h>

#include "wavekit/arch/target.hpp"

#if WAVEKIT_TARGET_GFX950
#include "ops_once.hpp"
#include "support/gemm_mx_case.hpp"
#include "support/moe_mx_case.hpp"
#include "support/moe_routing_ids.hpp"
#include "wavekit/ops/gemm_mx.hpp"
#include "wavekit/ops/moe.hpp"

using namespace wavekit;

namespace ops_once {

void run_gemm_mx() {
  namespace gx = ops::gemm_mx;
  test::gemm_mx_case<fp4_e2m1, bf16> t(
      gx::problem{40, 80, 512, gx::mx_format::mxfp4, gx::a_storage::mx, gx::b_layout::plain}, 1);
  gx::plan_info ran;
  const status s = wavekit::gemm_mx(t.p, t.args(), nullptr, &ran);
  report("gemm_mx", s, s.ok() ? t.check(ran.plan.splits, "gemm_mx") : 0);
}

// The MoE layer over pre-shuffled MXFP4 weights (x and the gated product quantized inside).
void run_moe_mxfp4() {
  namespace moe = ops::moe;
  using cfg = ops::gemm_mx::config_decode;
  const moe::problem p{37, 512, 256, 7, 3, 0, 7, layout::k_contiguous};
  const std::size_t ws = moe::plan_workspace(p, cfg::block_m, sizeof(bf16), moe::weight_format::mxfp4).bytes;
  test::moe_mx_case<bf16> t(p, test::random_ids_with_shared(p.tokens, 2, 6, 11), 1, ws, true);
  const status s = moe::launch<cfg>(p, t.args(), arch::target::gfx950, nullptr);
  report("moe (MXFP4 weights)", s, s.ok() ? t.check(cfg::block_m, "moe mxfp4") : 0);
}

}  // namespace ops_once

#endif
