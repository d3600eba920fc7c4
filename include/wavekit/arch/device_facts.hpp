// Device facts of wavekit's targets, for plans, occupancy and the emulator's limits: plain C++
// constants (no HIP), so host-side plans and the emulator read them without the instruction
// wrappers of arch/gfx942.hpp and arch/gfx950.hpp. Figures are the flagship part of each target
// (MI300X for gfx942, MI355X for gfx950); docs/platform.md has the table and its sources.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include "wavekit/arch/target.hpp"

namespace wavekit::arch {

struct device_facts {
  const char* product;
  int compute_units;
  double clock_ghz;          // peak engine clock
  double bf16_dense_tflops;  // matrix cores, dense
  double fp8_dense_tflops;   // matrix cores, dense
  double fp4_dense_tflops;   // matrix cores, dense, MX fp4 (0: no fp4 instruction)
  double hbm_tb_per_s;       // peak HBM bandwidth
  int wave_size;
  int simds_per_cu;
  int max_waves_per_simd;
  int lds_bytes_per_cu;
  int lds_bytes_per_workgroup;
  int lds_banks;
  // The memory hierarchy's widths (docs/platform.md has the sources): the performance model's
  // ceilings (planning/model/launch_time.hpp).
  int xcds;                         // dies; each has its own L2
  double l2_bytes_per_clk_per_xcd;  // 16 channels x 128 bytes
  double l1_bytes_per_clk_per_cu;   // vector L1
  double lds_bytes_per_clk_per_cu;  // all banks, one access each
  double l2_mib_per_xcd;
  double infinity_cache_mib;
};

template <target T>
inline constexpr device_facts facts_of = [] {
  static_assert(T != T, "facts_of: only gfx942 and gfx950 are wavekit device targets");
  return device_facts{};
}();

template <>
inline constexpr device_facts facts_of<target::gfx942> = {.product = "MI300X",
                                                          .compute_units = 304,
                                                          .clock_ghz = 2.1,
                                                          .bf16_dense_tflops = 1307.4,
                                                          .fp8_dense_tflops = 2614.9,
                                                          .fp4_dense_tflops = 0.0,
                                                          .hbm_tb_per_s = 5.3,
                                                          .wave_size = 64,
                                                          .simds_per_cu = 4,
                                                          .max_waves_per_simd = 8,
                                                          .lds_bytes_per_cu = 64 * 1024,
                                                          .lds_bytes_per_workgroup = 64 * 1024,
                                                          .lds_banks = 32,
                                                          .xcds = 8,
                                                          .l2_bytes_per_clk_per_xcd = 2048,
                                                          .l1_bytes_per_clk_per_cu = 128,
                                                          .lds_bytes_per_clk_per_cu = 128,
                                                          .l2_mib_per_xcd = 4,
                                                          .infinity_cache_mib = 256};
template <>
inline constexpr device_facts facts_of<target::gfx950> = {.product = "MI355X",
                                                          .compute_units = 256,
                                                          .clock_ghz = 2.4,
                                                          .bf16_dense_tflops = 2516.6,
                                                          .fp8_dense_tflops = 5033.0,
                                                          .fp4_dense_tflops = 10066.0,
                                                          .hbm_tb_per_s = 8.0,
                                                          .wave_size = 64,
                                                          .simds_per_cu = 4,
                                                          .max_waves_per_simd = 8,
                                                          .lds_bytes_per_cu = 160 * 1024,
                                                          .lds_bytes_per_workgroup = 160 * 1024,
                                                          .lds_banks = 64,
                                                          .xcds = 8,
                                                          .l2_bytes_per_clk_per_xcd = 2048,
                                                          .l1_bytes_per_clk_per_cu = 128,
                                                          .lds_bytes_per_clk_per_cu = 128,
                                                          .l2_mib_per_xcd = 4,
                                                          .infinity_cache_mib = 256};

// The facts of target t at run time: gfx950's for gfx950, gfx942's for everything else (plans and
// the performance model refuse other targets before asking).
inline device_facts facts_for(target t) {
  return t == target::gfx950 ? facts_of<target::gfx950> : facts_of<target::gfx942>;
}

}  // namespace wavekit::arch
