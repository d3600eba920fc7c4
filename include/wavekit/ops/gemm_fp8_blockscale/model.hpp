// The performance model's view of a block-scaled fp8 GEMM plan (perf/gemm_work.hpp): its launches
// with the codegen figures of the plan's instance on the target, and the model's time for them.
// The plans are chosen with it (dispatch.hpp).
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "wavekit/arch/target.hpp"
#include "wavekit/ops/gemm_fp8_blockscale/configs.hpp"
#include "wavekit/ops/gemm_fp8_blockscale/problem.hpp"
#include "wavekit/perf/gemm_work.hpp"
#include "wavekit/perf/launch_time.hpp"
#include "wavekit/perf/profiles.hpp"

namespace wavekit::ops::gemm_fp8_blockscale {

// The codegen instance of a config and storage order (codegen/CMakeLists.txt names them).
inline std::string codegen_instance(config_id id, layout order) {
  return std::string("gemm_fp8_blockscale_") + config_id_name(id) + "_" + to_string(order);
}

inline std::vector<perf::launch_work> model_launches(const problem& p, plan pl, arch::target t) {
  const perf::gemm_tile tile = with_config(pl.config, [&](auto cfg) { return perf::gemm_tile_on<decltype(cfg)>(t); });
  // Scales: a block's A rows and its B column block each 128-K group (fp32); all once for DRAM.
  const double groups = std::ceil(p.k / 128.0), b_blocks = std::ceil(tile.block_n / 128.0);
  const perf::gemm_operands ops{1, 1, 2, (tile.block_m + b_blocks) * 4.0 * tile.block_k / 128.0,
                                (double(p.m) + std::ceil(p.n / 128.0)) * groups * 4.0};
  return perf::gemm_launches(p.m, p.n, p.k, tile, ops, pl.splits,
                             perf::find_profile(t, codegen_instance(pl.config, p.order)),
                             perf::find_profile(t, "splitk_reduce", "splitk_reduce<bf16"));
}

inline perf::op_time model_time(const problem& p, plan pl, arch::target t) {
  return perf::predict(model_launches(p, pl, t), t);
}

}  // namespace wavekit::ops::gemm_fp8_blockscale
