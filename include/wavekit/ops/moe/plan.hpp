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
#include "wavekit/ops/moe/problem.hpp"

namespace wavekit::ops::moe {

inline config_id choose_config(const problem& p) {
  const double rows_per_expert = double(p.tokens) * p.top_k / std::max(1, p.local_experts);
  return rows_per_expert <= 24 ? config_id::decode : rows_per_expert <= 160 ? config_id::medium : config_id::prefill;
}

inline std::string config_name(config_id id) {
  return with_config(id, [](auto cfg) { return decltype(cfg)::name(); });
}

// The workspace the chosen config needs, for elements of element_bytes (2: bf16 / fp16).
inline result<std::size_t> workspace_bytes(const problem& p, std::size_t element_bytes = 2) {
  if (status s = validate_shape(p); !s.ok()) return s;
  const int tile_m = with_config(choose_config(p), [](auto cfg) { return decltype(cfg)::block_m; });
  if (status s = validate_sort_shape(p.sort(tile_m)); !s.ok()) return s;
  return plan_workspace(p, tile_m, element_bytes).bytes;
}

}  // namespace wavekit::ops::moe
