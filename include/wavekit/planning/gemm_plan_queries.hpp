// The plan queries every split-K GEMM op answers, written once over its plan descriptor (plain C++,
// no HIP). An op's public functions in ops/<op>/plan.hpp are one-line forwards to these, under the
// names and signatures the tuner, tests and docs use; an op that plans for one target or has one
// set of element types leaves those parameters out of its forwards.
//
//   using plan_queries = planning::gemm_plan_queries<plan_descriptor>;
//   inline plan choose_plan(const problem& p, std::size_t workspace, arch::target t) {
//     return plan_queries::choose_plan(p, workspace, t);
//   }
//
// Beyond planner.hpp's members and split_gemm_descriptor's (gemm_plan.hpp), the descriptor says
//   static status check_shape(const problem&);                          // its validate_shape
//   static planning::op_time time(const problem&, plan, arch::target);  // its model_time
//   static status check_target(const problem&, arch::target);           // optional: its own target
//                                                                        // rule, check_plan_target's first
// and its family's op names it in the statuses ("gemm_half 64x64x256 k_contiguous: ...").
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <concepts>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "wavekit/arch/target.hpp"
#include "wavekit/core/lazy_text.hpp"
#include "wavekit/core/result.hpp"
#include "wavekit/core/status.hpp"
#include "wavekit/planning/gemm_plan.hpp"
#include "wavekit/planning/model/launch_time.hpp"
#include "wavekit/planning/planner.hpp"
#include "wavekit/planning/tables/key.hpp"

namespace wavekit::planning {

// What the queries ask of a descriptor beyond planner.hpp's concept (header comment).
template <class D>
concept gemm_query_descriptor =
    descriptor<D> && requires(const typename D::problem& p, typename D::plan pl, arch::target t, int splits) {
      { D::check_shape(p) } -> std::convertible_to<status>;
      { D::time(p, pl, t) } -> std::convertible_to<op_time>;
      { D::name(pl) } -> std::convertible_to<std::string>;
      { D::workspace(p, splits) } -> std::convertible_to<std::size_t>;
    };

template <gemm_query_descriptor D>
struct gemm_plan_queries {
  using problem = typename D::problem;
  using plan = typename D::plan;

  // The tables' op, key and value of a plan (tools/tuner writes them). dtypes: the call's element
  // types in the tables' words; without them the key takes the descriptor's.
  static constexpr std::string_view tuning_op = D::family.op;
  static key tuning_key(const problem& p, arch::target t, int cus, std::string dtypes) {
    return D::key(p, t, cus, std::move(dtypes));
  }
  static key tuning_key(const problem& p, arch::target t, int cus) { return D::key(p, t, cus, D::dtypes(p, t)); }
  static value tuning_value(plan pl) { return D::to_value(pl); }
  static std::optional<plan> tuned_plan(const value& v) { return D::from_value(v); }

  // The model's seconds of a plan on target t's flagship part.
  static double model_seconds(const problem& p, plan pl, arch::target t) { return D::time(p, pl, t).us * 1e-6; }

  // The model's plan with splits limited to what `workspace` holds (planner.hpp).
  static plan model_plan(const problem& p, std::size_t workspace, arch::target t) {
    return planning::model_plan<D>(p, workspace, t);
  }

  // The plan a call with element types `dtypes` (empty: the descriptor's) runs on target t with
  // `workspace` bytes: the tables' or the model's (planner.hpp).
  static plan choose_plan(const problem& p, std::size_t workspace, arch::target t, std::string_view dtypes = {}) {
    return planning::choose_plan<D>(p, workspace, t, dtypes);
  }

  // The problem's own rules, then the target's: a query answers what the call would refuse with
  // the call's status.
  static status validate_query(const problem& p, arch::target t) {
    if (status s = D::check_shape(p); !s.ok()) return s;
    if constexpr (requires { D::check_target(p, t); })
      return D::check_target(p, t);
    else
      return check_plan_target(lazy([&] { return std::string(tuning_op) + " " + p.str(); }), t);
  }

  // The workspace (fp32 split-K partials) the plan chosen with unlimited workspace uses; 0 without
  // split-K. dtypes: as choose_plan's.
  static result<std::size_t> workspace_bytes(const problem& p, arch::target t, std::string_view dtypes = {}) {
    if (status s = validate_query(p, t); !s.ok()) return s;
    return D::workspace(p, choose_plan(p, ~std::size_t{0}, t, dtypes).splits);
  }

  // The plan a call runs for p on target t given `workspace` bytes (0 when the pointer is null),
  // named, with what it uses of the workspace (gemm_plan.hpp).
  static result<gemm_plan_info<plan>> select_plan(const problem& p, std::size_t workspace, arch::target t,
                                                  std::string_view dtypes = {}) {
    if (status s = validate_query(p, t); !s.ok()) return s;
    return select_gemm_plan<D>(p, workspace, t, dtypes);
  }
};

}  // namespace wavekit::planning
