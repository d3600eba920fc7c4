// The MoE layer in tuned tables (tuning/): the key of a problem on a device, and the grouped-GEMM
// config a table's value names. Plain C++, no HIP.
//
//   key:   op moe; dtypes "<weights>,<activations>" ("bf16,bf16", "e4m3fnuz,bf16" for fp8
//          block-scaled weights on gfx942, "mxfp4,bf16"); layout the weights' order; M the tokens
//          (bucketed), n expert_dim, k hidden, e_local the local experts, top_k the choices per token
//   value: config_id_name of the config ("decode", "medium", "prefill"; the fp8 list shares the
//          names), splits 1 (the grouped GEMMs do not split K)
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <optional>
#include <string>

#include "wavekit/arch/target.hpp"
#include "wavekit/core/layout.hpp"
#include "wavekit/ops/moe/configs.hpp"
#include "wavekit/ops/moe/problem.hpp"
#include "wavekit/tuning/key.hpp"
#include "wavekit/tuning/names.hpp"

namespace wavekit::ops::moe {

inline constexpr const char* tuning_op = "moe";

// T: the activations (bf16 or fp16); the weights in `weights`' format, fp8 in target t's.
template <class T>
std::string tuning_dtypes(weight_format weights, arch::target t) {
  std::string w = tuning::dtype_name<T>();
  if (weights == weight_format::fp8_blockscale) w = tuning::fp8_dtype_name(t);
  if (weights == weight_format::mxfp4) w = "mxfp4";
  if (weights == weight_format::mxfp8) w = "mxfp8";
  return w + "," + tuning::dtype_name<T>();
}

// The key of p with element types `dtypes` (tuning_dtypes) on a device of target t with `cus`
// compute units.
inline tuning::key tuning_key(const problem& p, arch::target t, int cus, std::string dtypes) {
  return {.op = tuning_op,
          .arch = t,
          .cus = cus,
          .dtypes = std::move(dtypes),
          .layout = to_string(p.weight_order),
          .m_bucket = tuning::m_bucket(p.tokens),
          .n = p.expert_dim,
          .k = p.hidden,
          .e_local = p.local_experts,
          .top_k = p.top_k};
}

inline tuning::value tuning_value(config_id id) { return {config_id_name(id), 1}; }

// The config a table value names, or none when it is not one of this op's.
inline std::optional<config_id> tuned_config(const tuning::value& v) {
  return tuning::config_named(v.config, all_configs);
}

}  // namespace wavekit::ops::moe
