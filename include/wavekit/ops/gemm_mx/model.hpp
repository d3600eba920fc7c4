// The performance model's view of an MX GEMM plan (planning/model/gemm_work.hpp): its launches with the
// codegen figures of the plan's gfx950 instance (the MX-stored form's per config and format, the
// form quantizing a 16-bit A per tile shape and B layout, the MXFP8 GEMV per row count), and the
// model's time for them. Scales are one e8m0 byte per 32 elements of each operand.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <cmath>
#include <string>
#include <vector>

#include "wavekit/arch/target.hpp"
#include "wavekit/ops/gemm_mx/configs.hpp"
#include "wavekit/ops/gemm_mx/problem.hpp"
#include "wavekit/planning/model/gemm_work.hpp"
#include "wavekit/planning/model/launch_time.hpp"
#include "wavekit/planning/model/profiles.hpp"

namespace wavekit::ops::gemm_mx {

// The op's codegen instances (planning/instances.hpp) and that of a config and MX format.
inline constexpr const planning::instance_family& codegen_family = planning::family_named("gemm_mx");
inline std::string codegen_instance(config_id id, mx_format format) {
  return planning::instance_name(codegen_family, config_id_name(id),
                                 format == mx_format::mxfp4 ? "fp4_e2m1" : "fp8_e4m3fn");
}

inline const planning::kernel_profile* model_profile(const problem& p, plan pl) {
  constexpr arch::target t = arch::target::gfx950;
  if (pl.gemv_rows)
    return planning::find_profile(t, planning::family_named("gemm_mx_gemv"),
                                  "gemm_mx_gemv_kernel<" + std::to_string(pl.gemv_rows) + ",");
  if (p.a == a_storage::mx) return planning::find_profile(t, codegen_instance(pl.config, p.format));
  return with_config(pl.config, [&](auto cfg) {
    using C = decltype(cfg);
    const std::string tile = std::to_string(C::block_m) + "x" + std::to_string(C::block_n) + "x" +
                             std::to_string(C::step_bytes) + " w" + std::to_string(C::block_m / C::wave_m) + "x" +
                             std::to_string(C::block_n / C::wave_n);
    return planning::find_profile(t, planning::family_named("gemm_mx_quantizing_a"),
                                  "gemm_mx_quantizing_a_kernel<" + tile,
                                  p.b == b_layout::preshuffled ? "true>" : "false>");
  });
}

// The launches of config C on p with `splits` (profiles: the codegen figures, if any). The e8m0
// scales, a byte per 32 elements, go from global memory straight into the MFMAs
// (block/scale_in_instruction.hpp): each wave loads its own rows' and columns' (a 16-bit A
// quantized in the kernel loads none of A's).
template <class C>
std::vector<planning::launch_work> config_launches(const problem& p, int splits,
                                                   const planning::kernel_profile* main = nullptr,
                                                   const planning::kernel_profile* reduce = nullptr) {
  const double element = element_bits(p.format) / 8.0, scale = 1.0 / scale_block;
  const planning::gemm_tile tile{C::block_m, C::block_n, block_k_of<C>(p.format), C::wave_m, C::wave_n, C::threads};
  planning::gemm_operands ops{p.a == a_storage::mx ? element : 2.0, element, 2};
  ops.a_scale_bytes = p.a == a_storage::mx ? scale : 0.0;
  ops.b_scale_bytes = scale;
  ops.scales_per_wave = true;
  return planning::gemm_launches(p.m, p.n, p.k, tile, ops, splits, main, reduce);
}

// The MXFP8 GEMV's (gemv_config<Rows>): 256 columns a block, one per lane (4 waves); A widened in
// LDS. The hot loop is a 128-K step.
inline std::vector<planning::launch_work> gemv_launches(const problem& p, int rows, int splits,
                                                        const planning::kernel_profile* main = nullptr,
                                                        const planning::kernel_profile* reduce = nullptr) {
  const double operand = element_bits(p.format) / 8.0 + 1.0 / scale_block;
  const planning::gemm_tile tile{rows, 256, 128, rows, 64, 256};
  auto launches = planning::gemm_launches(p.m, p.n, p.k, tile, {operand, operand, 2}, splits, main, reduce);
  launches[0].loop_iterations_per_wave = std::ceil(std::ceil(p.k / 128.0) / splits);
  launches[0].lds_bytes_per_workgroup = launches[0].loop_iterations_per_wave * rows * 128 * 4 * 5;
  return launches;
}

// Bytes of A and B (their scales included) that every GEMM of p's batch reads from DRAM once.
inline double shared_read_bytes(const problem& p) {
  const double scale = 1.0 / scale_block;
  return planning::shared_operand_bytes(p, a_bits(p.a, p.format) / 8.0 + (p.a == a_storage::mx ? scale : 0.0),
                                        element_bits(p.format) / 8.0 + scale);
}

// The launches of plan pl for p's whole batch (planning::batched_launches).
inline std::vector<planning::launch_work> model_launches(const problem& p, plan pl) {
  constexpr arch::target t = arch::target::gfx950;
  const planning::kernel_profile* reduce = planning::splitk_reduce_profile(t);
  return planning::batched_launches(
      pl.gemv_rows ? gemv_launches(p, pl.gemv_rows, pl.splits, model_profile(p, pl), reduce)
                   : with_config(pl.config,
                                 [&](auto cfg) {
                                   return config_launches<decltype(cfg)>(p, pl.splits, model_profile(p, pl), reduce);
                                 }),
      p.batch.count, shared_read_bytes(p));
}

inline planning::op_time model_time(const problem& p, plan pl) {
  return planning::predict(model_launches(p, pl), arch::target::gfx950);
}

}  // namespace wavekit::ops::gemm_mx
