// The gemm_mx configs the MoE pipeline runs over MX expert weights (gfx950): for each MoE config
// the MX GEMM config of the same M tile. Plain C++ (the plan and the performance model ask it).
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include "wavekit/ops/gemm_mx/configs.hpp"
#include "wavekit/ops/moe/configs.hpp"

namespace wavekit::ops::moe {

// The MX GEMM configs the MoE configs stand for: the same M tile (the sort's padding unit).
template <class F>
decltype(auto) with_mx_config(config_id id, F&& f) {
  switch (id) {
    case config_id::decode: return f(gemm_mx::config_decode{});
    case config_id::medium: return f(gemm_mx::config_narrow{});
    case config_id::prefill: break;
  }
  return f(gemm_mx::config_medium{});
}
static_assert(gemm_mx::config_decode::block_m == config_decode::block_m &&
                  gemm_mx::config_narrow::block_m == config_medium::block_m &&
                  gemm_mx::config_medium::block_m == config_prefill::block_m,
              "moe: the MX configs share the bf16 / fp16 configs' M tiles (one plan, one workspace size)");

}  // namespace wavekit::ops::moe
