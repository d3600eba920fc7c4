// Tile configurations of the MLA decode kernel as types, and the list wavekit ships. A workgroup
// holds Waves waves, each computing 16 of the sequence's (query row, head) rows against the KV
// tile in LDS, so one workgroup serves up to 16 * Waves rows with one read of each KV row; KvTile
// KV rows a step. name() reads like "mla_decode<w8, kv32>".
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <string>

#include "wavekit/core/shipped_configs.hpp"

namespace wavekit::ops::mla_decode {

template <int Waves, int KvTile = 32>
struct config {
  static constexpr int waves = Waves, threads = 64 * Waves, kv_tile = KvTile;
  static constexpr int rows = 16 * Waves;  // (query row, head) rows a workgroup computes
  static_assert(Waves >= 1 && Waves <= 16, "mla_decode::config: 1 to 16 waves");
  static_assert(KvTile == 32, "mla_decode::config: KV tiles of 32 rows (the P x V step's 64-byte LDS rows)");
  static std::string name() { return "mla_decode<w" + std::to_string(Waves) + ", kv" + std::to_string(KvTile) + ">"; }
};

// The one list (X(name, Waves)): 64 rows (4 waves, one a SIMD) and 128 rows (8 waves, two a
// SIMD: DeepSeek's 128 heads read each KV row once). A wave holds its 16 rows' outputs (128
// registers a lane) and queries (72) for the whole split; two waves a SIMD leave the rest 56 of
// their 256 (the kernel recomputes its lane addresses each tile to stay within them).
// clang-format off
#define WAVEKIT_MLA_DECODE_SHIPPED_CONFIGS(X) \
  X(rows64, 4) \
  X(rows128, 8)
// clang-format on

WAVEKIT_SHIPPED_CONFIG_ALIASES(WAVEKIT_MLA_DECODE_SHIPPED_CONFIGS)
WAVEKIT_DECLARE_SHIPPED_CONFIGS(WAVEKIT_MLA_DECODE_SHIPPED_CONFIGS)

}  // namespace wavekit::ops::mla_decode
