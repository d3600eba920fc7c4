// planning/model/plan_choice.hpp: plans the model cannot tell apart (their intervals overlap) are ranked by
// robustness, and a plan faster beyond the model's error wins outright.
#include <catch2/catch.hpp>

#include <vector>

#include "wavekit/planning/model/plan_choice.hpp"

using namespace wavekit;

namespace {

// The held-out error of an example calibration: predictions 20% low to 10% high.
constexpr planning::model_error error{0.8, 1.1};

planning::scored_plan<int> plan(int id, double us, double waves, double cover = 0, double work = 0) {
  return {id, us, work, waves, cover};
}

}  // namespace

TEST_CASE("two predictions cannot be told apart when their intervals overlap", "[perf]") {
  // p's interval is [p / 1.1, p / 0.8]; q's reaches down to q / 1.1.
  CHECK(planning::within_model_error(100, 100, error));
  CHECK(planning::within_model_error(137.5, 100, error));  // 137.5 / 1.1 = 125 = 100 / 0.8
  CHECK_FALSE(planning::within_model_error(138, 100, error));
}

TEST_CASE("within the model's error the most robust plan runs", "[perf]") {
  // More waves in flight wins among plans the model cannot tell apart...
  CHECK(planning::choose_within_model_error(std::vector{plan(1, 100, 512), plan(2, 120, 2048)}, error) == 2);
  // ...but not over a plan faster beyond the error.
  CHECK(planning::choose_within_model_error(std::vector{plan(1, 100, 512), plan(2, 140, 2048)}, error) == 1);
  // Waves in the same 10% step are equal: deeper prefetch wins (by a 0.1-iteration step), then
  // less padded work (by a 2% step), then the faster.
  CHECK(planning::choose_within_model_error(std::vector{plan(1, 100, 1000, 0.5), plan(2, 110, 1010, 1.0)}, error) == 2);
  CHECK(planning::choose_within_model_error(std::vector{plan(1, 100, 1000, 1.0, 4e9), plan(2, 110, 1000, 1.05, 2e9)},
                                            error) == 2);
  CHECK(planning::choose_within_model_error(std::vector{plan(1, 105, 1000, 1.0, 2e9), plan(2, 100, 1000, 1.0, 2e9)},
                                            error) == 2);
  // Whole steps keep the order transitive: of three plans each within 10% of the next, the one
  // with the most waves is the most robust, whichever order they come in.
  const std::vector abc{plan(1, 100, 1000, 0.9), plan(2, 100, 1090, 0.5), plan(3, 100, 1190, 0.1)};
  CHECK(planning::choose_within_model_error(abc, error) == 3);
  CHECK(planning::choose_within_model_error(std::vector{abc[2], abc[1], abc[0]}, error) == 3);
  // Equal in everything: the earlier plan stays.
  CHECK(planning::choose_within_model_error(std::vector{plan(1, 100, 1000), plan(2, 100, 1000)}, error) == 1);
  // One candidate: itself.
  CHECK(planning::choose_within_model_error(std::vector{plan(7, 5, 0)}, error) == 7);
}

TEST_CASE("a plan's scores come from its predicted launches", "[perf]") {
  // 4 waves a SIMD: 4 workgroups of 4 waves a CU.
  planning::kernel_profile k{arch::target::gfx942, "test", "test", 128, 0, 0, 4, 100, 10, 10.0, 160.0, 0};
  k.loop_load_cover = 1.5;
  planning::launch_work w;
  w.profile = &k;
  w.workgroups = 100;  // fewer than the CUs: 100 workgroups of 4 waves in flight
  w.waves_per_workgroup = 4;
  w.loop_iterations_per_wave = 10;
  const planning::op_time t =
      planning::predict(std::vector{w}, arch::target::gfx942, planning::model_parameters{300, 1, 1});
  const auto s = planning::score(3, t, 42.0);
  CHECK(s.plan == 3);
  CHECK(s.us == t.us);
  CHECK(s.work == 42.0);
  CHECK(s.waves_in_flight == 400);
  CHECK(s.load_cover == 1.5);
  // Past two waves a SIMD (304 CUs x 4 SIMDs x 2) more waves count as no more robust.
  w.workgroups = 3000;
  const planning::op_time full =
      planning::predict(std::vector{w}, arch::target::gfx942, planning::model_parameters{300, 1, 1});
  CHECK(full.launches[0].waves_in_flight > 2 * 304 * 4);
  CHECK(planning::score(3, full).waves_in_flight == 2 * 304 * 4);
}
