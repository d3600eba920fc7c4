// The performance report's config column for the ops without a config type, spelled once for the
// model's rows (perf_model.cpp) and the LDS census's entries (tools/lds_census), which the report
// joins on it.
#pragma once

#include <string>

namespace wavekit::perf_report {

// rmsnorm_quant, swiglu_quant: one workgroup of `threads` a row.
inline std::string row_workgroup_config(int threads) { return std::to_string(threads) + " threads a row"; }

// gemm_fp8_direct: one wave a tile of C, straight from global memory.
inline std::string wave_tile_config(int tile_m, int tile_n) {
  return std::to_string(tile_m) + "x" + std::to_string(tile_n) + " tile, one wave";
}

}  // namespace wavekit::perf_report
