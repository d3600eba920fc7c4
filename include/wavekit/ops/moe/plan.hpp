// Which grouped-GEMM config wavekit::moe runs for a problem, asked without running anything (plain
// C++, no HIP). The config's M tile is also the sort's padding unit, so the choice follows the rows
// an expert gets on average (tokens * top_k / local experts): few rows (decode) waste least in
// 16-row tiles, where each expert's weights are then read once; many rows reuse each weight tile
// over 64 or 128 rows.
#pragma once

#include <cstddef>
#include <string>

#include "wavekit/core/result.hpp"
#include "wavekit/ops/moe/configs.hpp"
#include "wavekit/ops/moe/configs_blockscale.hpp"
#include "wavekit/ops/moe/problem.hpp"

namespace wavekit::ops::moe {

inline config_id choose_config(const problem& p) {
  const double rows_per_expert = double(p.tokens) * p.top_k / std::max(1, p.local_experts);
  return rows_per_expert <= 24 ? config_id::decode : rows_per_expert <= 160 ? config_id::medium : config_id::prefill;
}

inline std::string config_name(config_id id) {
  return with_config(id, [](auto cfg) { return decltype(cfg)::name(); });
}

// fp8 block-scaled weights: the config of the same name (the two lists share names and M tiles).
inline blockscale::config_id blockscale_config_of(config_id id) {
  switch (id) {
    case config_id::decode: return blockscale::config_id::decode;
    case config_id::medium: return blockscale::config_id::medium;
    case config_id::prefill: break;
  }
  return blockscale::config_id::prefill;
}
inline blockscale::config_id choose_blockscale_config(const problem& p) {
  return blockscale_config_of(choose_config(p));
}

inline std::string config_name(blockscale::config_id id) {
  return blockscale::with_config(id, [](auto cfg) { return decltype(cfg)::name(); });
}

// The workspace the chosen config needs, for elements of element_bytes (2: bf16 / fp16) and the
// given weights.
inline result<std::size_t> workspace_bytes(const problem& p, std::size_t element_bytes = 2,
                                           weight_format weights = weight_format::half) {
  if (status s = weights == weight_format::half             ? validate_shape(p)
                 : weights == weight_format::fp8_blockscale ? validate_blockscale_shape(p)
                                                            : validate_mx_shape(p);
      !s.ok())
    return s;
  const int tile_m = with_config(choose_config(p), [](auto cfg) { return decltype(cfg)::block_m; });
  static_assert(config_decode::block_m == blockscale::config_decode::block_m &&
                    config_medium::block_m == blockscale::config_medium::block_m &&
                    config_prefill::block_m == blockscale::config_prefill::block_m,
                "moe: the fp8 configs share the bf16 / fp16 configs' M tiles (one plan, one workspace size)");
  if (status s = validate_sort_shape(p.sort(tile_m)); !s.ok()) return s;
  return plan_workspace(p, tile_m, element_bytes, weights).bytes;
}

}  // namespace wavekit::ops::moe
