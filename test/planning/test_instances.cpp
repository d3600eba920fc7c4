// The one list of codegen instances (planning/instances.hpp) against the profiles the reports gave
// (model/codegen_profiles.hpp) and the names the ops build from it.
#include <catch2/catch.hpp>

#include <string>
#include <string_view>

#include "wavekit/ops/gemm_fp8_blockscale/plan.hpp"
#include "wavekit/ops/gemm_half/plan.hpp"
#include "wavekit/ops/gemm_mx/plan.hpp"
#include "wavekit/ops/moe/plan.hpp"
#include "wavekit/planning/instances.hpp"
#include "wavekit/planning/model/profiles.hpp"

using namespace wavekit;

TEST_CASE("every profile belongs to a listed family, and every listed family has a profile", "[planning]") {
  for (const planning::kernel_profile& p : planning::codegen_profiles) {
    bool listed = false;
    for (const planning::instance_family& f : planning::instance_families)
      listed = listed || planning::in_family(p.instance, f);
    INFO(p.instance);
    CHECK(listed);
  }
  for (const planning::instance_family& f : planning::instance_families) {
    bool profiled = false;
    for (const planning::kernel_profile& p : planning::codegen_profiles)
      profiled = profiled || planning::in_family(p.instance, f);
    INFO(f.name);
    CHECK(profiled);
  }
}

TEST_CASE("family names are unique and ops name their families", "[planning]") {
  for (const planning::instance_family& a : planning::instance_families) {
    int same = 0;
    for (const planning::instance_family& b : planning::instance_families) same += a.name == b.name;
    INFO(a.name);
    CHECK(same == 1);
    CHECK(planning::listed_op(a.op));
    // A config-list family says its variants; a hand-written one is a single name.
    CHECK(a.configs.empty() == a.variants.empty());
  }
  CHECK_FALSE(planning::listed_op("gemm_nonexistent"));
  static_assert(&planning::family_named("mla_decode") != &planning::family_named("mla_decode_reduce"));
}

// The seam's concept holds for every op's descriptor and refuses a type that lacks its members.
struct lacks_members {
  using problem = int;
  using plan = int;
};
static_assert(planning::descriptor<ops::gemm_half::plan_descriptor>);
static_assert(planning::descriptor<ops::gemm_fp8_blockscale::plan_descriptor>);
static_assert(planning::descriptor<ops::gemm_mx::plan_descriptor>);
static_assert(planning::descriptor<ops::moe::plan_descriptor>);
static_assert(!planning::descriptor<lacks_members>);

TEST_CASE("instance names join family, config and variant; hand-written families are one name", "[planning]") {
  CHECK(planning::instance_name(planning::family_named("gemm_half"), "large", "k_contiguous") ==
        "gemm_half_large_k_contiguous");
  CHECK(planning::instance_name(planning::family_named("mla_decode")) == "mla_decode");
  CHECK(planning::in_family("gemm_half_large_k_contiguous", planning::family_named("gemm_half")));
  CHECK_FALSE(planning::in_family("gemm_half", planning::family_named("gemm_half")));
  CHECK_FALSE(planning::in_family("mla_decode_reduce", planning::family_named("mla_decode")));
  // The ops' names are their families' ops: tables, queries and the report say the same word.
  CHECK(ops::gemm_half::plan_queries::tuning_op == "gemm_half");
  CHECK(ops::gemm_fp8_blockscale::plan_queries::tuning_op == "gemm_fp8_blockscale");
  CHECK(ops::gemm_mx::plan_queries::tuning_op == "gemm_mx");
  CHECK(ops::moe::tuning_op == "moe");
  CHECK(ops::gemm_half::codegen_instance(ops::gemm_half::config_id::large, layout::mn_contiguous) ==
        "gemm_half_large_mn_contiguous");
}
