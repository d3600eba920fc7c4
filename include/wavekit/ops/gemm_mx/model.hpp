// The performance model's view of an MX GEMM plan (perf/gemm_work.hpp): its launches with the
// codegen figures of the plan's gfx950 instance (the MX-stored form's per config and format, the
// form quantizing a 16-bit A per tile shape and B layout, the MXFP8 GEMV per row count), and the
// model's time for them. Scales are one e8m0 byte per 32 elements of each operand.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "wavekit/arch/target.hpp"
#include "wavekit/ops/gemm_mx/configs.hpp"
#include "wavekit/ops/gemm_mx/problem.hpp"
#include "wavekit/perf/gemm_work.hpp"
#include "wavekit/perf/launch_time.hpp"
#include "wavekit/perf/profiles.hpp"

namespace wavekit::ops::gemm_mx {

inline const perf::kernel_profile* model_profile(const problem& p, plan pl) {
  constexpr arch::target t = arch::target::gfx950;
  if (pl.gemv_rows)
    return perf::find_profile(t, "gemm_mx_gemv", "gemm_mx_gemv_kernel<" + std::to_string(pl.gemv_rows) + ",");
  if (p.a == a_storage::mx)
    return perf::find_profile(t, std::string("gemm_mx_") + config_id_name(pl.config) +
                                     (p.format == mx_format::mxfp4 ? "_fp4_e2m1" : "_fp8_e4m3fn"));
  return with_config(pl.config, [&](auto cfg) {
    using C = decltype(cfg);
    const std::string tile = std::to_string(C::block_m) + "x" + std::to_string(C::block_n) + "x" +
                             std::to_string(C::step_bytes) + " w" + std::to_string(C::block_m / C::wave_m) + "x" +
                             std::to_string(C::block_n / C::wave_n);
    return perf::find_profile(t, "gemm_mx_quantizing_a", "gemm_mx_quantizing_a_kernel<" + tile,
                              p.b == b_layout::preshuffled ? "true>" : "false>");
  });
}

inline std::vector<perf::launch_work> model_launches(const problem& p, plan pl) {
  constexpr arch::target t = arch::target::gfx950;
  const double element = element_bits(p.format) / 8.0, scale = 1.0 / scale_block;
  const perf::kernel_profile* reduce = perf::find_profile(t, "splitk_reduce", "splitk_reduce<bf16");
  if (pl.gemv_rows) {
    // 256 columns a block, one per lane (4 waves); A widened in LDS. The hot loop is a 128-K step.
    const perf::gemm_tile tile{pl.gemv_rows, 256, 128, pl.gemv_rows, 64, 256};
    auto launches = perf::gemm_launches(p.m, p.n, p.k, tile, {element + scale, element + scale, 2}, pl.splits,
                                        model_profile(p, pl), reduce);
    launches[0].loop_iterations_per_wave = std::ceil(std::ceil(p.k / 128.0) / pl.splits);
    launches[0].lds_bytes_per_workgroup = launches[0].loop_iterations_per_wave * pl.gemv_rows * 128 * 4 * 5;
    return launches;
  }
  const perf::gemm_tile tile = with_config(pl.config, [&](auto cfg) {
    using C = decltype(cfg);
    return perf::gemm_tile{C::block_m, C::block_n, block_k_of<C>(p.format), C::wave_m, C::wave_n, C::threads};
  });
  const double a_bytes = p.a == a_storage::mx ? element + scale : 2.0;
  return perf::gemm_launches(p.m, p.n, p.k, tile, {a_bytes, element + scale, 2}, pl.splits, model_profile(p, pl),
                             reduce);
}

inline perf::op_time model_time(const problem& p, plan pl) {
  return perf::predict(model_launches(p, pl), arch::target::gfx950);
}

}  // namespace wavekit::ops::gemm_mx
