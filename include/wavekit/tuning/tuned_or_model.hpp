// What every op's plan query does with the tuned tables: the plan the process's tables name for
// the problem's key when the op can run it here, else the model's plan (a miss is logged with the
// model's plan when WAVEKIT_LOG_TUNING_MISSES is set: tuning/miss_log.hpp). Plain C++, no HIP.
#pragma once

#include <optional>

#include "wavekit/tuning/key.hpp"
#include "wavekit/tuning/registry.hpp"

namespace wavekit::tuning {

// to_plan: value -> optional<Plan> (none: not one of the op's configs); to_value: Plan -> value;
// model(): the model's plan; usable(plan): whether this call can run it (its K splits fit the
// workspace, its config is offered for the problem).
template <class Plan, class ToPlan, class ToValue, class Model, class Usable>
Plan tuned_or_model(const key& k, ToPlan&& to_plan, ToValue&& to_value, Model&& model, Usable&& usable) {
  if (const std::optional<value> v = find(k, [&] { return to_value(model()); }))
    if (const std::optional<Plan> tuned = to_plan(*v); tuned && usable(*tuned)) return *tuned;
  return model();
}

}  // namespace wavekit::tuning
