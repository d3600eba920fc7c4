// What every op's plan query does with the tuned tables: the plan the process's tables name for
// the problem's key when the op can run it for this call, else the model's plan. Plain C++, no HIP.
//
// Two kinds of "cannot", told apart:
//   - the entry cannot run the problem at all (its config is not one of the op's, or the op's own
//     check refuses it: K splits outside [1, K steps], a config the plan never offers for this M):
//     the model's plan runs, and a wavekit-tuning-unusable line (planning/tables/miss_log.hpp) is printed
//     once per key, since the table is wrong;
//   - it can, but its workspace does not fit the call's: the model's plan within that workspace
//     runs, silently, as for a call without a table (select_plan reports workspace_limited).
// Every query of a problem (the workspace query at unlimited workspace, the launch at the call's)
// goes through here, so an entry the launch would refuse never sizes a workspace.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <optional>
#include <string>

#include "wavekit/core/status.hpp"
#include "wavekit/planning/tables/key.hpp"
#include "wavekit/planning/tables/registry.hpp"

namespace wavekit::planning {

// to_plan: value -> optional<Plan> (none: not one of the op's configs); to_value: Plan -> value;
// model(): the model's plan; runs(plan) -> status: the op's check that the plan can run this
// problem, workspace aside; fits(plan) -> bool: whether its workspace fits this call's. On a
// miss the miss log gets the model's plan when WAVEKIT_LOG_TUNING_MISSES is set.
template <class Plan, class ToPlan, class ToValue, class Model, class Runs, class Fits>
Plan tuned_or_model(const key& k, ToPlan&& to_plan, ToValue&& to_value, Model&& model, Runs&& runs, Fits&& fits) {
  std::optional<Plan> modelled;  // model() once at most
  auto model_plan = [&]() -> const Plan& {
    if (!modelled) modelled = model();
    return *modelled;
  };
  const std::optional<value> v = find(k, [&] { return to_value(model_plan()); });
  if (!v) return model_plan();
  const std::optional<Plan> tuned = to_plan(*v);
  const status runnable =
      tuned ? status(runs(*tuned))
            : status{status_code::bad_config, "config '" + v->config + "' is none of " + k.op + "'s configs"};
  if (!runnable.ok()) {
    record_unusable(k, *v, runnable.message(), [&] { return to_value(model_plan()); });
    return model_plan();
  }
  return fits(*tuned) ? *tuned : model_plan();
}

}  // namespace wavekit::planning
