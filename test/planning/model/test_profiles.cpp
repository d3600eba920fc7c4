// Every shipped config a GEMM's dispatch can choose has its codegen profile on every target it
// plans for, so the model never predicts without the compiler's figures.
#include <catch2/catch.hpp>

#include "wavekit/ops/gemm_fp8_blockscale/plan.hpp"
#include "wavekit/ops/gemm_fp8_scaled/plan.hpp"
#include "wavekit/ops/gemm_half/plan.hpp"
#include "wavekit/ops/gemm_mx/plan.hpp"
#include "wavekit/planning/model/profiles.hpp"

using namespace wavekit;
using arch::target;

TEST_CASE("every shipped GEMM config has a codegen profile on both targets and in both orders", "[perf]") {
  for (target t : {target::gfx942, target::gfx950})
    for (layout order : {layout::k_contiguous, layout::mn_contiguous}) {
      for (auto id : ops::gemm_fp8_blockscale::all_configs) {
        INFO(ops::gemm_fp8_blockscale::codegen_instance(id, order) << " " << to_string(t));
        CHECK(planning::find_profile(t, ops::gemm_fp8_blockscale::codegen_instance(id, order)) != nullptr);
      }
      for (auto id : ops::gemm_fp8_scaled::all_configs) {
        INFO(ops::gemm_fp8_scaled::codegen_instance(id, order) << " " << to_string(t));
        CHECK(planning::find_profile(t, ops::gemm_fp8_scaled::codegen_instance(id, order)) != nullptr);
      }
      for (auto id : ops::gemm_half::all_configs) {
        INFO(ops::gemm_half::codegen_instance(id, order) << " " << to_string(t));
        CHECK(planning::find_profile(t, ops::gemm_half::codegen_instance(id, order)) != nullptr);
      }
    }
  for (target t : {target::gfx942, target::gfx950}) CHECK(planning::splitk_reduce_profile(t) != nullptr);
}

TEST_CASE("every MX plan the dispatch makes for the benchmark's forms has a profile", "[perf]") {
  namespace gx = ops::gemm_mx;
  for (gx::mx_format f : {gx::mx_format::mxfp4, gx::mx_format::mxfp8})
    for (auto id : gx::all_configs) {
      const gx::problem p{64, 1024, 1024, f, gx::a_storage::mx, gx::b_layout::plain};
      INFO(gx::plan_name({id, 1}));
      CHECK(gx::model_profile(p, {id, 1}) != nullptr);
    }
  for (int rows : {1, 2, 4, 8, 16}) {
    const gx::problem p{rows, 1024, 1024, gx::mx_format::mxfp8, gx::a_storage::mx, gx::b_layout::plain};
    CHECK(gx::model_profile(p, {gx::config_id::decode, 1, rows}) != nullptr);
  }
  // The quantizing-A form (amd-mxfp4-mm's): the configs that can quantize A, pre-shuffled B.
  for (auto id : gx::all_configs) {
    if (!gx::quantizes_a(id)) continue;
    const gx::problem p{64, 1024, 1024, gx::mx_format::mxfp4, gx::a_storage::bf16, gx::b_layout::preshuffled};
    INFO(gx::plan_name({id, 1}));
    CHECK(gx::model_profile(p, {id, 1}) != nullptr);
  }
}
