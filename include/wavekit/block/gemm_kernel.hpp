// What every GEMM kernel's entry runs: its promises to the codegen report, a trap in a compiler pass
// whose target cannot run it, else the block over the mainloop's LDS. An op's kernel is then two
// lines over its parts (ops/gemm_half/kernel.hpp shows one):
//
//   template <...> __global__ __launch_bounds__(block::gemm_kernel_facts<parts<...>>::threads)
//       WAVEKIT_MIN_WAVES_PER_SIMD(block::gemm_kernel_facts<parts<...>>::min_waves_per_simd)
//       void my_op_kernel(params p) { block::run_gemm_kernel<parts<...>>(p); }
//
// Each op keeps a __global__ of its own name so that a profile's kernel names say which op ran.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include "wavekit/arch/buffer.hpp"  // arch::u32x4
#include "wavekit/arch/codegen_targets.hpp"
#include "wavekit/arch/lds.hpp"
#include "wavekit/arch/mfma_atoms.hpp"
#include "wavekit/block/gemm_mainloop.hpp"
#include "wavekit/block/gemm_tile_shape.hpp"
#include "wavekit/core/platform.hpp"

namespace wavekit::block {

// A kernel's launch facts from its Parts, an op's composition naming `shape` (the config as this
// target's kernel sees it: block::staged_tile_config's threads, waves and device), `atom`,
// `mainloop` and `body` (block::gemm_block): the mainloop's LDS (the tiles' stages and the scale
// policy's buffers), the threads, and the occupancy that LDS leaves on the config's device.
template <class Parts>
struct gemm_kernel_facts {
  static constexpr int lds_bytes = Parts::mainloop::lds_bytes;
  static constexpr int threads = Parts::shape::threads;
  static constexpr int min_waves_per_simd = lds_occupancy(Parts::shape::device, lds_bytes, Parts::shape::waves);
};

// The kernel body over Parts for the kernel argument p. LoopPer64Max: the hot-loop budget the
// codegen check holds the kernel to (instructions per 64 MFMA 16x16x32 of work; 0: none).
// WritesHere: false where the output cannot be written on this pass's target (an fp8 C in the other
// target's format), which traps as a missing atom does; launchers refuse both before any launch.
template <class Parts, int LoopPer64Max = 0, bool WritesHere = true, class Params>
WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void run_gemm_kernel(const Params& p) {
  using facts = gemm_kernel_facts<Parts>;
  arch::declare_codegen_targets<facts::lds_bytes, facts::min_waves_per_simd, LoopPer64Max>();
  if constexpr (!arch::runs_on_current_target<typename Parts::atom> || !WritesHere) {
    __builtin_trap();
  } else if constexpr (Parts::mainloop::direct) {
    // The direct fill's stages, each an array of its own (block/gemm_mainloop.hpp).
    using mainloop = typename Parts::mainloop;
    WAVEKIT_LDS_ARRAY(arch::u32x4, stage0, mainloop::tile_bytes / 16);
    WAVEKIT_LDS_ARRAY(arch::u32x4, stage1, mainloop::tile_bytes / 16);
    unsigned char* rest = nullptr;  // the scale policy's, if it has any
    if constexpr (mainloop::policy_type::lds_bytes > 0) {
      WAVEKIT_LDS_ARRAY(arch::u32x4, policy_lds, (mainloop::policy_type::lds_bytes + 15) / 16);
      rest = reinterpret_cast<unsigned char*>(policy_lds);
    }
    Parts::body::run(
        p, block::gemm_lds_stages{{reinterpret_cast<unsigned char*>(stage0), reinterpret_cast<unsigned char*>(stage1)},
                                  rest});
  } else {
    WAVEKIT_LDS_ARRAY(arch::u32x4, lds, facts::lds_bytes / 16);
    Parts::body::run(p, reinterpret_cast<unsigned char*>(lds));
  }
}

}  // namespace wavekit::block
