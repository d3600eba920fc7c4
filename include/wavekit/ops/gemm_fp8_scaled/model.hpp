// The performance model's view of a scaled fp8 GEMM plan (perf/gemm_work.hpp): its launches with the
// codegen figures of the plan's instance on the target, and the model's time for them. The plans
// are chosen with it (plan.hpp), and its bytes are the skinny plans' read budget. Scales: each lane
// of a block loads its two (per-tensor or per-channel) fp32 scales in the epilogue.
#pragma once

#include <string>
#include <vector>

#include "wavekit/arch/target.hpp"
#include "wavekit/ops/gemm_fp8_scaled/configs.hpp"
#include "wavekit/ops/gemm_fp8_scaled/problem.hpp"
#include "wavekit/perf/gemm_work.hpp"
#include "wavekit/perf/launch_time.hpp"
#include "wavekit/perf/profiles.hpp"

namespace wavekit::ops::gemm_fp8_scaled {

inline std::string codegen_instance(config_id id, layout order) {
  return std::string("gemm_fp8_scaled_") + config_id_name(id) + "_" + to_string(order);
}

inline std::vector<perf::launch_work> model_launches(const problem& p, plan pl, arch::target t) {
  const perf::gemm_tile tile = with_config(pl.config, [&](auto cfg) { return perf::gemm_tile_on<decltype(cfg)>(t); });
  const int threads = tile.threads;
  const double scales_once = (p.a_scales == scale_granularity::channel ? 4.0 * p.m : 4.0) +
                             (p.b_scales == scale_granularity::channel ? 4.0 * p.n : 4.0);
  return perf::gemm_launches(p.m, p.n, p.k, tile, {1, 1, 2, 0, scales_once, 8.0 * threads}, pl.splits,
                             perf::find_profile(t, codegen_instance(pl.config, p.order)),
                             perf::find_profile(t, "splitk_reduce", "splitk_reduce<bf16"));
}

inline perf::op_time model_time(const problem& p, plan pl, arch::target t) {
  return perf::predict(model_launches(p, pl, t), t);
}

}  // namespace wavekit::ops::gemm_fp8_scaled
