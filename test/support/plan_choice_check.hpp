// Checks a plan query's answer against the rule of perf/plan_choice.hpp: the chosen plan is among
// the candidates within the model's error of the fastest, and none of those is more robust. Shared
// by the ops' plan tests (each builds its candidates as its model_plan does).
#pragma once

#include <catch2/catch.hpp>

#include <vector>

#include "wavekit/perf/plan_choice.hpp"

namespace wavekit::test {

template <class Plan, class Same>
void check_plan_choice(const std::vector<perf::scored_plan<Plan>>& candidates, const Plan& chosen, Same same) {
  REQUIRE(!candidates.empty());
  double fastest = candidates.front().us;
  for (const auto& c : candidates) fastest = std::min(fastest, c.us);
  const perf::scored_plan<Plan>* found = nullptr;
  for (const auto& c : candidates)
    if (same(c.plan, chosen)) found = &c;
  REQUIRE(found);
  CHECK(perf::within_model_error(found->us, fastest));
  for (const auto& c : candidates)
    if (perf::within_model_error(c.us, fastest)) CHECK_FALSE(perf::more_robust(c, *found));
}

}  // namespace wavekit::test
