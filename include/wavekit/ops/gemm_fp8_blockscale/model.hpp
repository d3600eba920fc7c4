// The performance model's view of a block-scaled fp8 GEMM plan (planning/model/gemm_work.hpp): its launches
// with the codegen figures of the plan's instance on the target, and the model's time for them.
// The plans are chosen with it (plan.hpp).
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <cmath>
#include <string>
#include <vector>

#include "wavekit/arch/target.hpp"
#include "wavekit/ops/gemm_fp8_blockscale/configs.hpp"
#include "wavekit/ops/gemm_fp8_blockscale/problem.hpp"
#include "wavekit/planning/model/gemm_work.hpp"
#include "wavekit/planning/model/launch_time.hpp"
#include "wavekit/planning/model/profiles.hpp"

namespace wavekit::ops::gemm_fp8_blockscale {

// The codegen instance of a config and storage order (codegen/CMakeLists.txt names them).
inline constexpr const planning::instance_family& codegen_family = planning::family_named("gemm_fp8_blockscale");
inline std::string codegen_instance(config_id id, layout order) {
  return planning::instance_name(codegen_family, config_id_name(id), to_string(order));
}

// The launches of config C on p with `splits` (profiles: the codegen figures, if any). Split-K cuts
// K at the 128-K scale groups (kernel.hpp). The fp32 scales as the scale policy loads them
// (block/scale_group_promotion.hpp): A's ride with its rows (rows past M load none); B's each
// group by every row thread of a block whose columns lie in one 128-column scale block (BlockN <=
// 128: every shipped config), else by every lane of each wave whose columns start before N's last
// scale block ends (over a row of tiles, 128 / wave_n waves of each wave row per scale block).
template <class C>
std::vector<planning::launch_work> config_launches(const problem& p, int splits, arch::target t,
                                                   const planning::kernel_profile* main = nullptr,
                                                   const planning::kernel_profile* reduce = nullptr) {
  planning::gemm_tile tile = planning::gemm_tile_on<C>(t);
  tile.split_unit_k = scale_group_k;
  const double groups = std::ceil(p.k / 128.0), n_groups = std::ceil(p.n / 128.0);
  const bool folded = tile.block_n <= 128;
  planning::gemm_operands ops{1, 1, 2, folded ? tile.block_m * 4.0 * tile.block_k / 128 : 0, n_groups * groups * 4.0};
  ops.a_scale_bytes = 4.0 / 128;
  auto launches = planning::gemm_launches(p.m, p.n, p.k, tile, ops, splits, main, reduce);
  if (!folded) {
    const double waves_m = tile.block_m / tile.wave_m, tiles_m = std::ceil(double(p.m) / tile.block_m);
    launches[0].loaded_bytes += tiles_m * groups * waves_m * n_groups * (128.0 / tile.wave_n) * 64 * 4;
  }
  return launches;
}

// Bytes every GEMM of p's batch reads: a shared operand (batch stride 0) and its scales.
inline double shared_read_bytes(const problem& p) {
  return planning::shared_operand_bytes(p, 1, 1) + (p.batch.a == 0 ? 4.0 * p.m * p.k_groups() : 0.0) +
         (p.batch.b == 0 ? 4.0 * p.n_groups() * p.k_groups() : 0.0);
}

inline std::vector<planning::launch_work> model_launches(const problem& p, plan pl, arch::target t) {
  return with_config(pl.config, [&](auto cfg) {
    return planning::batched_launches(
        config_launches<decltype(cfg)>(p, pl.splits, t, planning::find_profile(t, codegen_instance(pl.config, p.order)),
                                       planning::splitk_reduce_profile(t)),
        p.batch.count, shared_read_bytes(p));
  });
}

inline planning::op_time model_time(const problem& p, plan pl, arch::target t) {
  return planning::predict(model_launches(p, pl, t), t);
}

}  // namespace wavekit::ops::gemm_fp8_blockscale
