// planning/tuned_or_model.hpp: a table entry the op cannot run for a problem (K splits past its K
// steps, INT_MAX splits, a config that is not the op's or not offered for the M) is never taken:
// every op's plan queries answer the model's plan and the model's workspace, and one
// wavekit-tuning-unusable line names the key, the entry and the op's reason. An entry that runs
// but needs more workspace than the call has falls back silently, as before; every shipped entry
// can run. (The one-call launch with such an entry: test/ops/gemm_half/test_gemm_half.cpp.)
#include <catch2/catch.hpp>

#include <climits>
#include <string>
#include <vector>

#include "support/tuned_entry.hpp"
#include "wavekit/ops/gemm_fp8_blockscale/plan.hpp"
#include "wavekit/ops/gemm_fp8_scaled/plan.hpp"
#include "wavekit/ops/gemm_half/plan.hpp"
#include "wavekit/ops/gemm_mx/plan.hpp"
#include "wavekit/ops/moe/plan.hpp"
#include "wavekit/planning/tuned_or_model.hpp"

namespace planning = wavekit::planning;
using wavekit::bf16;
using wavekit::layout;
using wavekit::arch::target;

namespace {

// The process's unusable-entry lines while it lives.
struct unusable_lines {
  std::vector<std::string> lines;
  unusable_lines() {
    planning::set_unusable_sink([this](const std::string& line) { lines.push_back(line); });
  }
  ~unusable_lines() { planning::set_unusable_sink(planning::miss_log::to_stderr); }
};

planning::key test_key(int n) {
  return {.op = "tuned_or_model_test",
          .arch = target::gfx942,
          .cus = 304,
          .dtypes = "bf16",
          .layout = "k_contiguous",
          .m_bucket = 16,
          .n = n,
          .k = 64};
}

// A toy op whose plans are config numbers ("c<number>") and splits, runnable up to 8 splits.
struct toy_plan {
  int config = 0, splits = 1;
};
std::optional<toy_plan> toy_to_plan(const planning::value& v) {
  if (v.config.size() != 2 || v.config[0] != 'c') return std::nullopt;
  return toy_plan{v.config[1] - '0', v.splits};
}
planning::value toy_to_value(toy_plan pl) { return {"c" + std::to_string(pl.config), pl.splits}; }

toy_plan toy_choose(const planning::key& k, std::size_t workspace, int* modelled = nullptr) {
  return planning::tuned_or_model<toy_plan>(
      k, toy_to_plan, toy_to_value,
      [&] {
        if (modelled) ++*modelled;
        return toy_plan{1, 1};
      },
      [](toy_plan pl) {
        return pl.splits <= 8 ? wavekit::status::success()
                              : wavekit::status{wavekit::status_code::bad_config, "at most 8 splits"};
      },
      [&](toy_plan pl) { return std::size_t(pl.splits) <= workspace; });
}

}  // namespace

TEST_CASE("tuned_or_model: runnable entries are taken and the others fall back logged once", "[tuning]") {
  unusable_lines log;
  wavekit::test::load_tuned_entry(test_key(1), {"c2", 4}, "test_tuned_or_model_c2.txt");
  wavekit::test::load_tuned_entry(test_key(2), {"c3", 9}, "test_tuned_or_model_c3.txt");
  wavekit::test::load_tuned_entry(test_key(3), {"nonsense", 1}, "test_tuned_or_model_nonsense.txt");

  CHECK(toy_choose(test_key(1), 100).config == 2);
  CHECK(toy_choose(test_key(1), 2).config == 1);  // workspace too small: the model's, not logged
  CHECK(log.lines.empty());
  int modelled = 0;
  for (int repeat = 0; repeat < 3; ++repeat) {
    CHECK(toy_choose(test_key(2), 100, &modelled).config == 1);
    CHECK(toy_choose(test_key(3), 100, &modelled).config == 1);
  }
  CHECK(modelled == 6);  // once a query, its log line included
  REQUIRE(log.lines.size() == 2);
  CHECK(log.lines[0] == planning::unusable_line(test_key(2), {"c3", 9}, {"c1", 1}, "at most 8 splits"));
  CHECK(log.lines[1] == planning::unusable_line(test_key(3), {"nonsense", 1}, {"c1", 1},
                                                "config 'nonsense' is none of tuned_or_model_test's configs"));
  CHECK(log.lines[1] ==
        "wavekit-tuning-unusable op=tuned_or_model_test arch=gfx942 cus=304 dtypes=bf16 layout=k_contiguous "
        "m_bucket=16 n=3 k=64 e_local=0 top_k=0 tuned=nonsense,1 model=c1,1: config 'nonsense' is none of "
        "tuned_or_model_test's configs");
}

TEST_CASE("gemm_half: entries with splits past K's steps answer the model's plan and workspace", "[tuning]") {
  namespace gh = wavekit::ops::gemm_half;
  unusable_lines log;
  const target t = target::gfx942;
  const std::string dtypes = gh::tuning_dtypes<bf16, bf16>();
  // K 1024 has 16 steps of 64 in the decode config: 17 splits cannot run, nor can INT_MAX (whose
  // workspace, 2^31 x 48 x 128 x 4 bytes, was once the answer).
  const gh::problem p{48, 128, 1024, layout::k_contiguous}, q{48, 128, 2048, layout::k_contiguous};
  REQUIRE(gh::k_steps(p, gh::config_id::decode) == 16);
  const gh::plan past_steps{gh::config_id::decode, 17}, int_max{gh::config_id::decode, INT_MAX};
  CHECK_FALSE(gh::check_plan(p, past_steps).ok());
  CHECK(gh::check_plan(p, {gh::config_id::decode, 16}).ok());
  wavekit::test::load_tuned_entry(gh::plan_queries::tuning_key(p, t, 304, dtypes),
                                  gh::plan_queries::tuning_value(past_steps), "test_tuned_or_model_gemm_half_17.txt");
  wavekit::test::load_tuned_entry(gh::plan_queries::tuning_key(q, t, 304, dtypes),
                                  gh::plan_queries::tuning_value(int_max), "test_tuned_or_model_gemm_half_max.txt");
  for (const gh::problem& r : {p, q}) {
    const gh::plan model = gh::plan_queries::model_plan(r, ~std::size_t{0}, t);
    INFO(r.str() << ": model " << gh::plan_name(model));
    CHECK(gh::workspace_bytes(r, t).value() == gh::workspace_bytes(r, model.splits));
    const std::size_t ws = gh::workspace_bytes(r, t).value();
    CHECK(gh::plan_queries::tuning_value(gh::select_plan(r, ws, t).value().plan) ==
          gh::plan_queries::tuning_value(model));
    CHECK_FALSE(gh::select_plan(r, ws, t).value().workspace_limited);
  }
  REQUIRE(log.lines.size() == 2);
  CHECK_THAT(log.lines[0], Catch::StartsWith("wavekit-tuning-unusable op=gemm_half ") && Catch::Contains(" k=1024 ") &&
                               Catch::Contains(" tuned=decode,17 ") &&
                               Catch::EndsWith("48x128x1024 k_contiguous: splits must be in [1, K steps = 16]"));
  CHECK_THAT(log.lines[1],
             Catch::Contains(" tuned=decode,2147483647 ") && Catch::EndsWith("splits must be in [1, K steps = 32]"));
}

TEST_CASE("an unknown config does not displace a valid entry silently", "[tuning]") {
  // The tables cannot know an op's configs, so a later file's entry replaces the earlier one of its
  // key either way; the op then runs the model's plan and says why, once.
  namespace gh = wavekit::ops::gemm_half;
  unusable_lines log;
  const target t = target::gfx950;
  const gh::problem p{48, 128, 512, layout::k_contiguous};
  const planning::key k = gh::plan_queries::tuning_key(p, t, 256, gh::tuning_dtypes<bf16, bf16>());
  const gh::plan model = gh::plan_queries::model_plan(p, ~std::size_t{0}, t);
  const gh::plan valid{model.config == gh::config_id::decode ? gh::config_id::medium : gh::config_id::decode, 1};
  wavekit::test::load_tuned_entry(k, gh::plan_queries::tuning_value(valid), "test_tuned_or_model_valid.txt");
  CHECK(gh::select_plan(p, 0, t).value().name == gh::plan_name(valid));
  wavekit::test::load_tuned_entry(k, {"no_such_config", 1}, "test_tuned_or_model_unknown.txt");
  for (int repeat = 0; repeat < 2; ++repeat) CHECK(gh::select_plan(p, 1 << 20, t).value().name == gh::plan_name(model));
  REQUIRE(log.lines.size() == 1);
  CHECK(log.lines[0] == planning::unusable_line(k, {"no_such_config", 1}, gh::plan_queries::tuning_value(model),
                                                "config 'no_such_config' is none of gemm_half's configs"));
}

TEST_CASE("gemm_fp8_scaled: splits past K's steps and configs not offered for the M fall back", "[tuning]") {
  namespace gs = wavekit::ops::gemm_fp8_scaled;
  using gs::scale_granularity;
  unusable_lines log;
  const target t = target::gfx942;
  const std::string dtypes = gs::tuning_dtypes<bf16>(t);
  const gs::problem p{64, 256, 1024, layout::k_contiguous, scale_granularity::row, scale_granularity::row};
  const gs::problem q{64, 256, 2048, layout::k_contiguous, scale_granularity::row, scale_granularity::row};
  const int steps = gs::k_steps(p, gs::config_id::decode, t);
  wavekit::test::load_tuned_entry(gs::plan_queries::tuning_key(p, t, 304, dtypes), {"decode", steps + 1},
                                  "test_tuned_or_model_scaled_steps.txt");
  wavekit::test::load_tuned_entry(gs::plan_queries::tuning_key(q, t, 304, dtypes), {"pairs", 1},
                                  "test_tuned_or_model_scaled_pairs.txt");
  for (const gs::problem& r : {p, q}) {
    const gs::plan model = gs::plan_queries::model_plan(r, ~std::size_t{0}, t);
    INFO(r.str() << ": model " << gs::plan_name(model));
    CHECK(gs::workspace_bytes(r, t).value() == gs::workspace_bytes(r, model.splits));
    CHECK(gs::plan_queries::tuning_value(gs::choose_plan(r, ~std::size_t{0}, t)) ==
          gs::plan_queries::tuning_value(model));
  }
  REQUIRE(log.lines.size() == 2);
  CHECK_THAT(log.lines[0], Catch::EndsWith("splits must be in [1, K steps = " + std::to_string(steps) + "]"));
  CHECK_THAT(log.lines[1],
             Catch::Contains(" tuned=pairs,1 ") && Catch::Contains(": the plan offers M = 64 on gfx942 only large, "));
}

TEST_CASE("gemm_fp8_blockscale: splits past K's scale groups fall back", "[tuning]") {
  namespace gb = wavekit::ops::gemm_fp8_blockscale;
  unusable_lines log;
  const target t = target::gfx950;
  const gb::problem p{64, 256, 1024, layout::mn_contiguous};  // 8 groups of 128
  wavekit::test::load_tuned_entry(gb::plan_queries::tuning_key(p, t, 256), {"medium", INT_MAX},
                                  "test_tuned_or_model_blockscale.txt");
  const gb::plan model = gb::plan_queries::model_plan(p, ~std::size_t{0}, t);
  CHECK(gb::workspace_bytes(p, t).value() == gb::workspace_bytes(p, model.splits));
  CHECK(gb::plan_queries::tuning_value(gb::select_plan(p, 0, t).value().plan) ==
        gb::plan_queries::tuning_value(gb::plan_queries::model_plan(p, 0, t)));
  REQUIRE(log.lines.size() == 1);
  CHECK_THAT(log.lines[0], Catch::EndsWith("splits must be in [1, K/128 = 8]"));
}

TEST_CASE("gemm_mx: a GEMV of fewer rows than M and splits past K's steps fall back", "[tuning]") {
  namespace gx = wavekit::ops::gemm_mx;
  unusable_lines log;
  const target t = target::gfx950;
  const gx::problem p{16, 256, 1024, gx::mx_format::mxfp8, gx::a_storage::mx, gx::b_layout::plain},
      q{16, 256, 2048, gx::mx_format::mxfp8, gx::a_storage::mx, gx::b_layout::plain};
  wavekit::test::load_tuned_entry(gx::plan_queries::tuning_key(p, t, 256, gx::tuning_dtypes<bf16>(p)), {"gemv8", 1},
                                  "test_tuned_or_model_mx_gemv.txt");
  wavekit::test::load_tuned_entry(gx::plan_queries::tuning_key(q, t, 256, gx::tuning_dtypes<bf16>(q)),
                                  {"gemv16", INT_MAX}, "test_tuned_or_model_mx_splits.txt");
  for (const gx::problem& r : {p, q}) {
    const gx::plan model = gx::plan_queries::model_plan(r, ~std::size_t{0}, t);
    INFO(r.str() << ": model " << gx::plan_name(model));
    CHECK(gx::workspace_bytes(r, t).value() == gx::workspace_bytes(r, model.splits));
    CHECK(gx::plan_queries::tuning_value(gx::choose_plan(r, ~std::size_t{0})) == gx::plan_queries::tuning_value(model));
  }
  REQUIRE(log.lines.size() == 2);
  CHECK_THAT(log.lines[0], Catch::EndsWith(" holds at most 8 rows of A"));
  CHECK_THAT(log.lines[1], Catch::Contains("splits must be in [1, K steps = "));
}

TEST_CASE("moe: a config name that is not MoE's falls back logged", "[tuning]") {
  namespace moe = wavekit::ops::moe;
  unusable_lines log;
  const moe::problem p{.tokens = 64,
                       .hidden = 1024,
                       .expert_dim = 512,
                       .experts = 16,
                       .top_k = 2,
                       .expert_begin = 0,
                       .local_experts = 16,
                       .weight_order = layout::k_contiguous};
  const target t = moe::planned_target(moe::weight_format::half);
  const planning::key k = moe::tuning_key(p, t, wavekit::arch::facts_for(t).compute_units,
                                          moe::tuning_dtypes<bf16>(moe::weight_format::half, t));
  wavekit::test::load_tuned_entry(k, {"large", 1}, "test_tuned_or_model_moe.txt");  // a GEMM's name
  const moe::config_id model = moe::model_config(p);
  CHECK(moe::choose_config(p) == model);
  CHECK(moe::workspace_bytes(p).value() ==
        moe::plan_workspace(p, moe::block_m_of(model), 2, moe::weight_format::half).bytes);
  REQUIRE(log.lines.size() == 1);
  CHECK_THAT(log.lines[0], Catch::EndsWith("config 'large' is none of moe's configs"));
}

TEST_CASE("every shipped entry can run the problems of its key", "[tuning]") {
  namespace gb = wavekit::ops::gemm_fp8_blockscale;
  for (const planning::shipped_table& table : planning::shipped_tables) {
    const wavekit::result<std::vector<planning::entry>> entries = planning::parse_table(table.text, table.source);
    REQUIRE(entries.ok());
    for (const planning::entry& e : entries.value()) {
      INFO(table.source << ": " << planning::to_string(e.key) << " " << planning::to_string(e.value));
      REQUIRE(e.key.op == gb::plan_queries::tuning_op);  // the only op shipped yet: a new one adds its check here
      const std::optional<gb::plan> pl = gb::plan_queries::tuned_plan(e.value);
      REQUIRE(pl);
      const layout order = e.key.layout == "k_contiguous" ? layout::k_contiguous : layout::mn_contiguous;
      for (int m : {e.key.m_bucket / 2 + 1, e.key.m_bucket}) {
        const gb::problem p{m, e.key.n, e.key.k, order};
        CHECK(gb::check_plan(p, *pl).ok());
      }
    }
  }
}
