// The bf16/fp16 GEMM in tuned tables (tuning/): the key of a problem on a device, and the plan a
// table's value names. Plain C++, no HIP.
//
//   key:   op gemm_half; dtypes "<T>,<T>,<Out>" ("bf16,bf16,bf16", "fp16,fp16,fp32"); layout the
//          problem's order
//   value: config_id_name of the config ("large"), K splits
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <optional>
#include <string>

#include "wavekit/arch/target.hpp"
#include "wavekit/core/layout.hpp"
#include "wavekit/ops/gemm_half/configs.hpp"
#include "wavekit/ops/gemm_half/problem.hpp"
#include "wavekit/tuning/key.hpp"
#include "wavekit/tuning/names.hpp"

namespace wavekit::ops::gemm_half {

inline constexpr const char* tuning_op = "gemm_half";

// T: A and B (bf16 or fp16); Out: C (bf16, fp16 or float).
template <class T, class Out>
std::string tuning_dtypes() {
  return std::string(tuning::dtype_name<T>()) + "," + tuning::dtype_name<T>() + "," + tuning::dtype_name<Out>();
}

// The element types of a call with these arguments.
template <class T, class Out>
std::string tuning_dtypes_of(const args<T, Out>&) {
  return tuning_dtypes<T, Out>();
}

// The key of p with element types `dtypes` (tuning_dtypes) on a device of target t with `cus`
// compute units.
inline tuning::key tuning_key(const problem& p, arch::target t, int cus, std::string dtypes) {
  return tuning::gemm_key(tuning_op, t, cus, std::move(dtypes), to_string(p.order), p.m, p.n, p.k);
}

inline tuning::value tuning_value(plan pl) { return tuning::split_plan_value(pl); }

// The plan a table value names, or none when its config is not one of this op's.
inline std::optional<plan> tuned_plan(const tuning::value& v) { return tuning::split_plan_named<plan>(v, all_configs); }

}  // namespace wavekit::ops::gemm_half
