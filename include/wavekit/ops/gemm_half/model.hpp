// The performance model's view of a bf16/fp16 GEMM plan (planning/model/gemm_work.hpp): its launches with the
// codegen figures of the plan's instance on the target (the bf16 instances stand for fp16: the same
// code with the other 16-bit MFMA), and the model's time for them. The plans are chosen with it
// (plan.hpp).
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <string>
#include <vector>

#include "wavekit/arch/target.hpp"
#include "wavekit/ops/gemm_half/configs.hpp"
#include "wavekit/ops/gemm_half/problem.hpp"
#include "wavekit/planning/instances.hpp"
#include "wavekit/planning/model/gemm_work.hpp"
#include "wavekit/planning/model/launch_time.hpp"
#include "wavekit/planning/model/profiles.hpp"

namespace wavekit::ops::gemm_half {

// The op's codegen instances (planning/instances.hpp) and that of a config and storage order.
inline constexpr const planning::instance_family& codegen_family = planning::family_named("gemm_half");
inline std::string codegen_instance(config_id id, layout order) {
  return planning::instance_name(codegen_family, config_id_name(id), to_string(order));
}

inline std::vector<planning::launch_work> model_launches(const problem& p, plan pl, arch::target t) {
  const planning::gemm_tile tile = with_config(pl.config, [&](auto cfg) {
    using C = decltype(cfg);
    return planning::gemm_tile{C::block_m, C::block_n, C::block_k, C::wave_m, C::wave_n, C::threads};
  });
  return planning::batched_launches(
      planning::gemm_launches(p.m, p.n, p.k, tile, {2, 2, 2}, pl.splits,
                              planning::find_profile(t, codegen_instance(pl.config, p.order)),
                              planning::splitk_reduce_profile(t)),
      p.batch.count, planning::shared_operand_bytes(p, 2, 2));
}

inline planning::op_time model_time(const problem& p, plan pl, arch::target t) {
  return planning::predict(model_launches(p, pl, t), t);
}

}  // namespace wavekit::ops::gemm_half
