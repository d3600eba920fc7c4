// The performance model's view of gemm_fp8_direct (planning/model/gemm_work.hpp): one wave per 32 x 32 tile of
// C, each lane loading its MFMA operands straight from global memory (no LDS), C in fp32; the
// codegen figures of the instance of the format the target reads.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <utility>
#include <vector>

#include "wavekit/arch/target.hpp"
#include "wavekit/core/numeric_types.hpp"
#include "wavekit/ops/gemm_fp8_direct/problem.hpp"
#include "wavekit/planning/model/gemm_work.hpp"
#include "wavekit/planning/model/launch_time.hpp"
#include "wavekit/planning/model/profiles.hpp"

namespace wavekit::ops::gemm_fp8_direct {

inline std::vector<planning::launch_work> model_launches(const problem& p, arch::target t) {
  using kernel = op<fp8_e4m3fnuz>;  // the same tile for both formats
  const planning::gemm_tile tile{kernel::tile_m, kernel::tile_n, kernel::tile_k,
                                 kernel::tile_m, kernel::tile_n, kernel::threads};
  const planning::instance_family& instance = t == arch::target::gfx950
                                                  ? planning::family_named("gemm_fp8_direct_ocp")
                                                  : planning::family_named("gemm_fp8_direct_fnuz");
  std::vector<planning::launch_work> launches =
      planning::gemm_launches(p.m, p.n, p.k, tile, {1, 1, 4}, 1, planning::find_profile(t, instance), nullptr);
  launches[0].lds_bytes_per_workgroup = 0;
  return planning::batched_launches(std::move(launches), p.batch.count, planning::shared_operand_bytes(p, 1, 1));
}

inline planning::op_time model_time(const problem& p, arch::target t) {
  return planning::predict(model_launches(p, t), t);
}

}  // namespace wavekit::ops::gemm_fp8_direct
