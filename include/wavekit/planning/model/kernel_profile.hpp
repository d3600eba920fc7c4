// What code generation says of one shipped kernel instance, for the performance model: the
// figures of the codegen report (docs/codegen-report.md; tools/codegen_report.py) per target,
// compiled into wavekit by tools/perf_profiles.py (planning/model/codegen_profiles.hpp, checked against a
// fresh report by a test). Plain C++, no HIP.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <string_view>

#include "wavekit/arch/target.hpp"

namespace wavekit::planning {

struct kernel_profile {
  arch::target target;
  // The instance: its file in codegen/ without the target ("gemm_fp8_scaled_large_k_contiguous",
  // "rmsnorm_quant"), and the kernel's name in the report (one file may hold several kernels).
  std::string_view instance, kernel;
  int vgpr, agpr, lds_bytes;
  int occupancy;  // waves per SIMD the registers and LDS allow
  // The hot loop: all instructions, the MFMAs among them, their multiply-adds in units of one
  // 16x16x32 (8192; a sparse MFMA's useful half), the cycles they hold the matrix pipe (their
  // multiply-adds over the target's rate for their operand kind), and its barriers.
  int loop_instructions, loop_mfma;
  double loop_mfma_work, loop_mfma_cycles;
  int loop_barriers;
  // Its structure: VALU instructions (they share the SIMD's one issue port with the MFMAs),
  // vector-memory loads, how far ahead it loads (the work between a load's issue and the wait that
  // retires it, in loop iterations: tools/codegen_report.py load_cover; 0: no loads), and its
  // MFMAs' operand kind ("fp8", "bf16", "f16"; "" none), which sets the clock a saturating kernel
  // sustains; and the round trips an iteration waits out one after another when they are long
  // (tools/codegen_report.py load_trips: 2 for a loop that runs two K steps an iteration, each
  // loading the next; below 1 for a loop that loads more than an iteration ahead).
  int loop_valu = 0, loop_vmem_loads = 0;
  double loop_load_cover = 0;
  std::string_view loop_mfma_kind = "";
  double loop_load_trips = 1;

  // MFMA instructions over all instructions of the hot loop (0 without a loop or MFMAs).
  double mfma_share() const { return loop_instructions ? double(loop_mfma) / loop_instructions : 0.0; }
};

}  // namespace wavekit::planning
