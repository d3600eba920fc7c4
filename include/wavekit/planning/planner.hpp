// How every op with tuned tables answers a plan query (plain C++, no HIP): the answer kept for the
// process (plan_cache.hpp), else the tuned tables' plan when the op can run it (tuned_or_model.hpp),
// else the performance model's choice among the op's candidates within the model's error
// (model/plan_choice.hpp). An op says only what is its own, in a plan descriptor beside its problem
// (ops/<op>/plan.hpp):
//
//   struct descriptor {
//     using problem = ...;  using plan = ...;
//     static constexpr const planning::instance_family& family = planning::family_named("...");
//     static std::string dtypes(const problem&, arch::target);     // the key's types when a query names none
//     static planning::query query(const problem&, std::size_t workspace, arch::target, std::string_view dtypes);
//     static planning::key key(const problem&, arch::target, int cus, std::string dtypes);
//     template <class F> static void candidates(const problem&, std::size_t workspace, arch::target, F&& consider);
//                         // consider(plan, op_time, padded work): each plan the model may choose
//     static status check(const problem&, plan, arch::target);    // can this plan run the problem at all?
//     static bool fits(const problem&, plan, std::size_t workspace);
//     static planning::value to_value(plan);  static std::optional<plan> from_value(const planning::value&);
//     static plan fallback(const problem&);   // optional: the plan when no candidate is judged
//   };
//
// Following a query: the op's public function (ops/<op>/plan.hpp; a GEMM's through
// gemm_plan_queries.hpp) -> choose_plan<descriptor> here -> the descriptor's candidates, launches
// (ops/<op>/model.hpp) and table spelling.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <concepts>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "wavekit/arch/device_facts.hpp"
#include "wavekit/arch/target.hpp"
#include "wavekit/core/status.hpp"
#include "wavekit/planning/instances.hpp"
#include "wavekit/planning/model/launch_time.hpp"
#include "wavekit/planning/model/plan_choice.hpp"
#include "wavekit/planning/plan_cache.hpp"
#include "wavekit/planning/tables/key.hpp"
#include "wavekit/planning/tuned_or_model.hpp"

namespace wavekit::planning {

// What the planner asks of an op's plan descriptor (header comment); candidates and the optional
// fallback are asked where they are used.
template <class D>
concept descriptor =
    requires(const typename D::problem& p, typename D::plan pl, arch::target t, std::size_t workspace, const value& v) {
      { D::family } -> std::convertible_to<const instance_family&>;
      { D::dtypes(p, t) } -> std::convertible_to<std::string>;
      { D::query(p, workspace, t, std::string_view()) } -> std::convertible_to<planning::query>;
      { D::key(p, t, 0, std::string()) } -> std::convertible_to<planning::key>;
      { D::check(p, pl, t) } -> std::convertible_to<status>;
      { D::fits(p, pl, workspace) } -> std::convertible_to<bool>;
      { D::to_value(pl) } -> std::convertible_to<value>;
      { D::from_value(v) } -> std::convertible_to<std::optional<typename D::plan>>;
    };

// The model's plan for p on target t within `workspace` bytes: among the descriptor's candidates
// within the model's error of the fastest, the most robust (model/plan_choice.hpp).
template <descriptor D>
typename D::plan model_plan(const typename D::problem& p, std::size_t workspace, arch::target t) {
  using plan = typename D::plan;
  std::vector<scored_plan<plan>> candidates;
  D::candidates(p, workspace, t,
                [&](plan pl, const op_time& time, double work) { candidates.push_back(score(pl, time, work)); });
  if constexpr (requires { D::fallback(p); })
    if (candidates.empty()) return D::fallback(p);
  return choose_within_model_error(candidates);
}

// The plan a call runs for p on target t with `workspace` bytes and element types `dtypes` (empty:
// the descriptor's default, what a query that does not know them asks for): the tables' when the
// op can run it and its workspace fits, else the model's; kept per query for the process.
template <descriptor D>
typename D::plan choose_plan(const typename D::problem& p, std::size_t workspace, arch::target t,
                             std::string_view dtypes = {}) {
  using plan = typename D::plan;
  static plan_cache<plan> cache;
  const std::string key_dtypes = dtypes.empty() ? std::string(D::dtypes(p, t)) : std::string(dtypes);
  return cache.get(D::query(p, workspace, t, key_dtypes), [&] {
    return tuned_or_model<plan>(
        D::key(p, t, arch::facts_for(t).compute_units, key_dtypes), [](const value& v) { return D::from_value(v); },
        [](plan pl) { return D::to_value(pl); }, [&] { return model_plan<D>(p, workspace, t); },
        [&](plan pl) { return D::check(p, pl, t); }, [&](plan pl) { return D::fits(p, pl, workspace); });
  });
}

// The answer of a query, with what it costs: `describe(p, workspace, t, dtypes)` formats the answer
// (the op's plan_info); kept per query as choose_plan's, so a warm call formats nothing.
template <descriptor D, class Info, class Describe>
Info described_plan(const typename D::problem& p, std::size_t workspace, arch::target t, std::string_view dtypes,
                    Describe&& describe) {
  static plan_cache<Info> described;
  const std::string key_dtypes = dtypes.empty() ? std::string(D::dtypes(p, t)) : std::string(dtypes);
  return described.get(D::query(p, workspace, t, key_dtypes), [&] { return describe(); });
}

}  // namespace wavekit::planning
