// Each op's keys and values (each op's plan descriptor, ops/<op>/plan.hpp): every plan survives the trip through a
// table value, the dtypes and layout words are the documented ones, and M is bucketed.
#include <catch2/catch.hpp>

#include "wavekit/ops/gemm_fp8_blockscale/plan.hpp"
#include "wavekit/ops/gemm_fp8_scaled/plan.hpp"
#include "wavekit/ops/gemm_half/plan.hpp"
#include "wavekit/ops/gemm_mx/plan.hpp"
#include "wavekit/ops/moe/plan.hpp"

namespace planning = wavekit::planning;
using wavekit::bf16;
using wavekit::fp16;
using wavekit::layout;
using wavekit::arch::target;

namespace {

// tuned_plan(tuning_value(plan)) is the plan, for every config and splits 1..16.
template <class Plan, class Id, std::size_t N, class ToValue, class FromValue>
void check_round_trip(const Id (&all)[N], ToValue&& to_value, FromValue&& from_value) {
  for (Id id : all)
    for (int splits = 1; splits <= 16; splits *= 2) {
      const planning::value v = to_value(Plan{id, splits});
      CHECK(v.config == config_id_name(id));
      CHECK(v.splits == splits);
      const std::optional<Plan> back = from_value(v);
      REQUIRE(back);
      CHECK(back->config == id);
      CHECK(back->splits == splits);
    }
  CHECK_FALSE(from_value(planning::value{"no_such_config", 1}));
}

}  // namespace

TEST_CASE("gemm_fp8_blockscale: key and values", "[tuning]") {
  namespace gb = wavekit::ops::gemm_fp8_blockscale;
  check_round_trip<gb::plan>(gb::all_configs, gb::plan_queries::tuning_value, gb::plan_queries::tuned_plan);
  CHECK(gb::tuning_dtypes(target::gfx942) == "e4m3fnuz,e4m3fnuz,bf16");
  CHECK(gb::tuning_dtypes(target::gfx950) == "e4m3fn,e4m3fn,bf16");
  const planning::key k =
      gb::plan_queries::tuning_key(gb::problem{6144, 512, 7168, layout::mn_contiguous}, target::gfx942, 304);
  CHECK(planning::to_string(k) ==
        "op=gemm_fp8_blockscale arch=gfx942 cus=304 dtypes=e4m3fnuz,e4m3fnuz,bf16 layout=mn_contiguous "
        "m_bucket=8192 n=512 k=7168 e_local=0 top_k=0");
}

TEST_CASE("gemm_half: key and values", "[tuning]") {
  namespace gh = wavekit::ops::gemm_half;
  check_round_trip<gh::plan>(gh::all_configs, gh::plan_queries::tuning_value, gh::plan_queries::tuned_plan);
  CHECK(gh::tuning_dtypes<bf16, bf16>() == "bf16,bf16,bf16");
  CHECK(gh::tuning_dtypes<fp16, float>() == "fp16,fp16,fp32");
  const planning::key k = gh::plan_queries::tuning_key(gh::problem{3, 4096, 1024, layout::k_contiguous}, target::gfx950,
                                                       256, gh::tuning_dtypes<bf16, float>());
  CHECK(planning::to_string(k) ==
        "op=gemm_half arch=gfx950 cus=256 dtypes=bf16,bf16,fp32 layout=k_contiguous m_bucket=4 n=4096 k=1024 e_local=0 "
        "top_k=0");
}

TEST_CASE("gemm_fp8_scaled: key and values", "[tuning]") {
  namespace gs = wavekit::ops::gemm_fp8_scaled;
  check_round_trip<gs::plan>(gs::all_configs, gs::plan_queries::tuning_value, gs::plan_queries::tuned_plan);
  CHECK(gs::tuning_dtypes<bf16>(target::gfx942) == "e4m3fnuz,e4m3fnuz,bf16");
  CHECK(gs::tuning_dtypes<fp16>(target::gfx950) == "e4m3fn,e4m3fn,fp16");
  // The scale granularities are not in the key.
  using gs::scale_granularity;
  const gs::problem tensor{8, 2304, 16384, layout::k_contiguous, scale_granularity::tensor, scale_granularity::tensor};
  const gs::problem row{8, 2304, 16384, layout::k_contiguous, scale_granularity::row, scale_granularity::row};
  const std::string d = gs::tuning_dtypes<bf16>(target::gfx942);
  CHECK(gs::plan_queries::tuning_key(tensor, target::gfx942, 304, d) ==
        gs::plan_queries::tuning_key(row, target::gfx942, 304, d));
  CHECK(gs::plan_queries::tuning_key(tensor, target::gfx942, 304, d).m_bucket == 8);
}

TEST_CASE("gemm_mx: key and values, the GEMV's among them", "[tuning]") {
  namespace gx = wavekit::ops::gemm_mx;
  check_round_trip<gx::plan>(gx::all_configs, gx::plan_queries::tuning_value, gx::plan_queries::tuned_plan);
  for (int rows : gx::gemv_row_counts) {
    const gx::plan gemv{gx::config_id::decode, 4, rows};
    const planning::value v = gx::plan_queries::tuning_value(gemv);
    CHECK(v == planning::value{"gemv" + std::to_string(rows), 4});
    const std::optional<gx::plan> back = gx::plan_queries::tuned_plan(v);
    REQUIRE(back);
    CHECK(back->gemv_rows == rows);
    CHECK(back->splits == 4);
    CHECK(back->config == gx::config_id::decode);
  }
  CHECK_FALSE(gx::plan_queries::tuned_plan({"gemv3", 1}));
  const gx::problem fp4{1, 7168, 2048, gx::mx_format::mxfp4, gx::a_storage::mx, gx::b_layout::plain};
  const gx::problem fp8{1, 7168, 2048, gx::mx_format::mxfp8, gx::a_storage::mx, gx::b_layout::plain};
  const gx::problem quantizing{1, 7168, 2048, gx::mx_format::mxfp4, gx::a_storage::bf16, gx::b_layout::preshuffled};
  CHECK(gx::tuning_dtypes<bf16>(fp4) == "mxfp4,mxfp4,bf16");
  CHECK(gx::tuning_dtypes<fp16>(fp8) == "mxfp8,mxfp8,fp16");
  CHECK(gx::tuning_dtypes<bf16>(quantizing) == "bf16,mxfp4,bf16");
  CHECK(gx::plan_queries::tuning_key(fp4, target::gfx950, 256, "mxfp4,mxfp4,bf16").layout == "k_contiguous");
  CHECK(gx::plan_queries::tuning_key(quantizing, target::gfx950, 256, "bf16,mxfp4,bf16").layout ==
        "k_contiguous_b_preshuffled");
}

TEST_CASE("moe: key and values", "[tuning]") {
  namespace moe = wavekit::ops::moe;
  for (moe::config_id id : moe::all_configs) {
    CHECK(moe::tuning_value(id) == planning::value{moe::config_id_name(id), 1});
    CHECK(moe::tuned_config(moe::tuning_value(id)) == id);
  }
  CHECK_FALSE(moe::tuned_config({"large", 1}));
  CHECK(moe::tuning_dtypes<bf16>(moe::weight_format::half, target::gfx942) == "bf16,bf16");
  CHECK(moe::tuning_dtypes<bf16>(moe::weight_format::fp8_blockscale, target::gfx942) == "e4m3fnuz,bf16");
  CHECK(moe::tuning_dtypes<fp16>(moe::weight_format::fp8_blockscale, target::gfx950) == "e4m3fn,fp16");
  CHECK(moe::tuning_dtypes<bf16>(moe::weight_format::mxfp4, target::gfx950) == "mxfp4,bf16");
  CHECK(moe::tuning_dtypes<bf16>(moe::weight_format::mxfp8, target::gfx950) == "mxfp8,bf16");
  // DeepSeek-V3 at EP8: 256 experts, 32 local, top 8.
  const moe::problem p{.tokens = 100,
                       .hidden = 7168,
                       .expert_dim = 2048,
                       .experts = 256,
                       .top_k = 8,
                       .expert_begin = 32,
                       .local_experts = 32,
                       .weight_order = layout::k_contiguous};
  CHECK(planning::to_string(moe::tuning_key(p, target::gfx942, 304, "e4m3fnuz,bf16")) ==
        "op=moe arch=gfx942 cus=304 dtypes=e4m3fnuz,bf16 layout=k_contiguous m_bucket=128 n=2048 k=7168 e_local=32 "
        "top_k=8");
}
