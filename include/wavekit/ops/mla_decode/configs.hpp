// Tile configurations of the MLA decode kernel as types, and the list wavekit ships. A workgroup
// holds Waves waves against one KV tile in LDS (KvTile KV rows a step), so each KV row is read once
// for all its rows. KWays says how the waves share the work:
//   KWays = 1      each wave computes 16 of the sequence's (query row, head) rows: 16 * Waves rows;
//   KWays = 4      each four waves share one group of 16 rows: each takes every fourth K step of
//                  the scores (partial sums added in LDS), a quarter of the output columns and one
//                  of the softmax's score pairs, so a few heads still keep every SIMD busy: 16 *
//                  Waves / 4 rows.
// name() reads like "mla_decode<w8, kv32>" or "mla_decode<w4, kv32, k4>".
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <string>

#include "wavekit/core/shipped_configs.hpp"

namespace wavekit::ops::mla_decode {

template <int Waves, int KvTile = 32, int KWays = 1>
struct config {
  static constexpr int waves = Waves, threads = 64 * Waves, kv_tile = KvTile, k_ways = KWays;
  static constexpr int row_waves = Waves / KWays;  // groups of 16 rows
  static constexpr int rows = 16 * row_waves;      // (query row, head) rows a workgroup computes
  static_assert(Waves >= 1 && Waves <= 16, "mla_decode::config: 1 to 16 waves");
  static_assert(KvTile == 32, "mla_decode::config: KV tiles of 32 rows (the P x V step's 64-byte LDS rows)");
  static_assert(KWays == 1 || (KWays == 4 && Waves % 4 == 0),
                "mla_decode::config: the waves split the rows (KWays 1) or each four of them share a 16-row group "
                "(KWays 4: one of the four score pairs of a lane each)");
  static std::string name() {
    return "mla_decode<w" + std::to_string(Waves) + ", kv" + std::to_string(KvTile) +
           (KWays > 1 ? ", k" + std::to_string(KWays) : "") + ">";
  }
};

// The one list (X(name, Waves, KvTile, KWays)): 16 rows shared by 4 waves (one a SIMD: 1 to 16
// heads, amd-mixed-mla's 16, Kimi's 8 or DeepSeek's 128 split 8 or 16 ways by tensor parallelism),
// 32 rows in two groups of 4 waves (two a SIMD: 32 heads, or 16 with two queries), 64 rows (4
// waves, one a SIMD) and 128 rows (8 waves, two a SIMD: DeepSeek's 128 heads read each KV row
// once). A wave of the row configs holds its 16 rows' outputs (128 registers a lane) and
// queries (72) for the whole split; two waves a SIMD leave the rest 56 of their 256 (the kernel
// recomputes its lane addresses each tile to stay within them). A wave of rows16 holds a quarter
// of each (32 and 24), and the next KV tile whole besides (36).
// clang-format off
#define WAVEKIT_MLA_DECODE_SHIPPED_CONFIGS(X) \
  X(rows16, 4, 32, 4) \
  X(rows32, 8, 32, 4) \
  X(rows64, 4) \
  X(rows128, 8)
// clang-format on

WAVEKIT_SHIPPED_CONFIG_ALIASES(WAVEKIT_MLA_DECODE_SHIPPED_CONFIGS)
WAVEKIT_DECLARE_SHIPPED_CONFIGS(WAVEKIT_MLA_DECODE_SHIPPED_CONFIGS)

}  // namespace wavekit::ops::mla_decode
