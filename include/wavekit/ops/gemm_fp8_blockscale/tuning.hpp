// The block-scaled fp8 GEMM in tuned tables (tuning/): the key of a problem on a device, and the
// plan a table's value names. Plain C++, no HIP.
//
//   key:   op gemm_fp8_blockscale; dtypes "<fp8>,<fp8>,bf16" with the target's fp8 format
//          (e4m3fnuz on gfx942, e4m3fn on gfx950); layout the problem's order
//   value: config_id_name of the config ("large"), K splits
#pragma once

#include <optional>
#include <string>

#include "wavekit/arch/matrix_formats.hpp"
#include "wavekit/arch/target.hpp"
#include "wavekit/core/layout.hpp"
#include "wavekit/ops/gemm_fp8_blockscale/configs.hpp"
#include "wavekit/ops/gemm_fp8_blockscale/problem.hpp"
#include "wavekit/tuning/key.hpp"
#include "wavekit/tuning/names.hpp"

namespace wavekit::ops::gemm_fp8_blockscale {

inline constexpr const char* tuning_op = "gemm_fp8_blockscale";

// A and B in the fp8 format target t's matrix cores read, C bf16.
inline std::string tuning_dtypes(arch::target t) {
  const std::string fp8 = t == arch::target::gfx950 ? tuning::dtype_name<arch::fp8_of<arch::target::gfx950>>()
                                                    : tuning::dtype_name<arch::fp8_of<arch::target::gfx942>>();
  return fp8 + "," + fp8 + "," + tuning::dtype_name<bf16>();
}

// The key of p on a device of target t with `cus` compute units.
inline tuning::key tuning_key(const problem& p, arch::target t, int cus) {
  return {.op = tuning_op,
          .arch = t,
          .cus = cus,
          .dtypes = tuning_dtypes(t),
          .layout = to_string(p.order),
          .m_bucket = tuning::m_bucket(p.m),
          .n = p.n,
          .k = p.k};
}

inline tuning::value tuning_value(plan pl) { return {config_id_name(pl.config), pl.splits}; }

// The plan a table value names, or none when its config is not one of this op's.
inline std::optional<plan> tuned_plan(const tuning::value& v) {
  const std::optional<config_id> id = tuning::config_named(v.config, all_configs);
  if (!id) return std::nullopt;
  return plan{*id, v.splits};
}

}  // namespace wavekit::ops::gemm_fp8_blockscale
