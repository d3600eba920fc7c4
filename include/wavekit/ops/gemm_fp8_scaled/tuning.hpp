// The scaled fp8 GEMM in tuned tables (tuning/): the key of a problem on a device, and the plan a
// table's value names. Plain C++, no HIP.
//
//   key:   op gemm_fp8_scaled; dtypes "<fp8>,<fp8>,<Out>" with the target's fp8 format (e4m3fnuz
//          on gfx942, e4m3fn on gfx950) and C bf16 or fp16; layout the problem's order (the scale
//          granularities are not in the key: they change no plan's work)
//   value: config_id_name of the config ("skinny"), K splits
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <optional>
#include <string>

#include "wavekit/arch/target.hpp"
#include "wavekit/core/layout.hpp"
#include "wavekit/ops/gemm_fp8_scaled/configs.hpp"
#include "wavekit/ops/gemm_fp8_scaled/problem.hpp"
#include "wavekit/tuning/key.hpp"
#include "wavekit/tuning/names.hpp"

namespace wavekit::ops::gemm_fp8_scaled {

inline constexpr const char* tuning_op = "gemm_fp8_scaled";

// A and B in the fp8 format target t's matrix cores read; Out: C (bf16 or fp16).
template <class Out>
std::string tuning_dtypes(arch::target t) {
  const std::string fp8 = tuning::fp8_dtype_name(t);
  return fp8 + "," + fp8 + "," + tuning::dtype_name<Out>();
}

// The element types of a call with these arguments on target t.
template <class Fp8, class Out>
std::string tuning_dtypes_of(const args<Fp8, Out>&, arch::target t) {
  return tuning_dtypes<Out>(t);
}

// The key of p with element types `dtypes` (tuning_dtypes) on a device of target t with `cus`
// compute units.
inline tuning::key tuning_key(const problem& p, arch::target t, int cus, std::string dtypes) {
  return tuning::gemm_key(tuning_op, t, cus, std::move(dtypes), to_string(p.order), p.m, p.n, p.k);
}

inline tuning::value tuning_value(plan pl) { return tuning::split_plan_value(pl); }

// The plan a table value names, or none when its config is not one of this op's.
inline std::optional<plan> tuned_plan(const tuning::value& v) { return tuning::split_plan_named<plan>(v, all_configs); }

}  // namespace wavekit::ops::gemm_fp8_scaled
