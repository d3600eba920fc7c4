// The MX GEMM in tuned tables (tuning/): the key of a problem on a device, and the plan a table's
// value names. Plain C++, no HIP.
//
//   key:   op gemm_mx; dtypes "<A>,<B>,<Out>": "mxfp4,mxfp4,bf16", "mxfp8,mxfp8,fp16", or with a
//          16-bit A quantized in the kernel "bf16,mxfp4,bf16"; layout "k_contiguous" (B plain) or
//          "k_contiguous_b_preshuffled" (aiter's pre-shuffled B)
//   value: config_id_name of the config ("decode64") or "gemv<rows>" for the MXFP8 GEMV path
//          ("gemv4": gemv_config<4>), K splits
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <optional>
#include <string>

#include "wavekit/arch/target.hpp"
#include "wavekit/ops/gemm_mx/configs.hpp"
#include "wavekit/ops/gemm_mx/problem.hpp"
#include "wavekit/tuning/key.hpp"
#include "wavekit/tuning/names.hpp"

namespace wavekit::ops::gemm_mx {

inline constexpr const char* tuning_op = "gemm_mx";

// A and B as p stores them; Out: C (bf16 or fp16).
template <class Out>
std::string tuning_dtypes(const problem& p) {
  const std::string a = p.a == a_storage::mx ? to_string(p.format) : to_string(p.a);
  return a + "," + to_string(p.format) + "," + tuning::dtype_name<Out>();
}

inline std::string tuning_layout(const problem& p) {
  return p.b == b_layout::preshuffled ? "k_contiguous_b_preshuffled" : "k_contiguous";
}

// The key of p with element types `dtypes` (tuning_dtypes) on a device of target t with `cus`
// compute units.
inline tuning::key tuning_key(const problem& p, arch::target t, int cus, std::string dtypes) {
  return tuning::gemm_key(tuning_op, t, cus, std::move(dtypes), tuning_layout(p), p.m, p.n, p.k);
}

inline tuning::value tuning_value(plan pl) {
  return {pl.gemv_rows ? "gemv" + std::to_string(pl.gemv_rows) : config_id_name(pl.config), pl.splits};
}

// The plan a table value names, or none when it names neither a config of this op nor a GEMV.
inline std::optional<plan> tuned_plan(const tuning::value& v) {
  for (int rows : gemv_row_counts)
    if (v.config == "gemv" + std::to_string(rows)) return plan{config_id::decode, v.splits, rows};
  return tuning::split_plan_named<plan>(v, all_configs);
}

}  // namespace wavekit::ops::gemm_mx
