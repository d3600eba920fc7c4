// The performance model's view of a scaled fp8 GEMM plan (planning/model/gemm_work.hpp): its launches with the
// codegen figures of the plan's instance on the target, and the model's time for them. The plans
// are chosen with it (plan.hpp), and its bytes are the skinny plans' read budget.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <string>
#include <vector>

#include "wavekit/arch/target.hpp"
#include "wavekit/ops/gemm_fp8_scaled/configs.hpp"
#include "wavekit/ops/gemm_fp8_scaled/problem.hpp"
#include "wavekit/planning/model/gemm_work.hpp"
#include "wavekit/planning/model/launch_time.hpp"
#include "wavekit/planning/model/profiles.hpp"

namespace wavekit::ops::gemm_fp8_scaled {

inline constexpr const planning::instance_family& codegen_family = planning::family_named("gemm_fp8_scaled");
inline std::string codegen_instance(config_id id, layout order) {
  return planning::instance_name(codegen_family, config_id_name(id), to_string(order));
}

// The launches of config C on p with `splits` (profiles: the codegen figures, if any). Scales
// (block/scale_epilogue.hpp), read in the epilogue: each lane loads a per-tensor scale once; a
// per-channel scale per accumulator row and column it holds, so each row of a wave is loaded by
// the MFMA's N lanes and each column by 64 / N.
template <class C>
std::vector<planning::launch_work> config_launches(const problem& p, int splits, arch::target t,
                                                   const planning::kernel_profile* main = nullptr,
                                                   const planning::kernel_profile* reduce = nullptr) {
  const planning::gemm_tile tile = planning::gemm_tile_on<C>(t);
  const int mfma_n = C::row_pairs ? 16 : C::mfma_m;  // the row pairs' sparse MFMA is 16 wide
  const double waves_m = C::block_m / C::wave_m, waves_n = C::block_n / C::wave_n;
  const bool a_tensor = p.a_scales == scale_granularity::tensor, b_tensor = p.b_scales == scale_granularity::tensor;
  planning::gemm_operands ops{1, 1, 2};
  ops.scale_bytes_once = (a_tensor ? 4.0 : 4.0 * p.m) + (b_tensor ? 4.0 : 4.0 * p.n);
  ops.scale_bytes_per_block = ((a_tensor ? 4.0 : 0.0) + (b_tensor ? 4.0 : 0.0)) * tile.threads;
  ops.scale_bytes_per_row = a_tensor ? 0.0 : 4.0 * waves_n * mfma_n;
  ops.scale_bytes_per_col = b_tensor ? 0.0 : 4.0 * waves_m * (64 / mfma_n);
  return planning::gemm_launches(p.m, p.n, p.k, tile, ops, splits, main, reduce);
}

// Bytes every GEMM of p's batch reads: a shared operand (batch stride 0) and its scales.
inline double shared_read_bytes(const problem& p) {
  const double a_scales = p.a_scales == scale_granularity::tensor ? 4.0 : 4.0 * p.m;
  const double b_scales = p.b_scales == scale_granularity::tensor ? 4.0 : 4.0 * p.n;
  return planning::shared_operand_bytes(p, 1, 1) + (p.batch.a == 0 ? a_scales : 0.0) +
         (p.batch.b == 0 ? b_scales : 0.0);
}

// config_launches for p's whole batch (planning::batched_launches).
template <class C>
std::vector<planning::launch_work> batch_launches(const problem& p, int splits, arch::target t,
                                                  const planning::kernel_profile* main = nullptr,
                                                  const planning::kernel_profile* reduce = nullptr) {
  return planning::batched_launches(config_launches<C>(p, splits, t, main, reduce), p.batch.count,
                                    shared_read_bytes(p));
}

inline std::vector<planning::launch_work> model_launches(const problem& p, plan pl, arch::target t) {
  return with_config(pl.config, [&](auto cfg) {
    return batch_launches<decltype(cfg)>(p, pl.splits, t,
                                         planning::find_profile(t, codegen_instance(pl.config, p.order)),
                                         planning::splitk_reduce_profile(t));
  });
}

inline planning::op_time model_time(const problem& p, plan pl, arch::target t) {
  return planning::predict(model_launches(p, pl, t), t);
}

}  // namespace wavekit::ops::gemm_fp8_scaled
