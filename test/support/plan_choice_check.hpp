// Checks a plan query's answer against the rule of planning/model/plan_choice.hpp: the chosen plan is among
// the candidates within the model's error of the fastest, and none of those is more robust. Shared
// by the ops' plan tests (each builds its candidates as its model_plan does).
#pragma once

#include <catch2/catch.hpp>

#include <vector>

#include "wavekit/planning/model/plan_choice.hpp"

namespace wavekit::test {

template <class Plan, class Same>
void check_plan_choice(const std::vector<planning::scored_plan<Plan>>& candidates, const Plan& chosen, Same same) {
  REQUIRE(!candidates.empty());
  double fastest = candidates.front().us;
  for (const auto& c : candidates) fastest = std::min(fastest, c.us);
  const planning::scored_plan<Plan>* found = nullptr;
  for (const auto& c : candidates)
    if (same(c.plan, chosen)) found = &c;
  REQUIRE(found);
  CHECK(planning::within_model_error(found->us, fastest));
  for (const auto& c : candidates)
    if (planning::within_model_error(c.us, fastest)) CHECK_FALSE(planning::more_robust(c, *found));
}

}  // namespace wavekit::test
