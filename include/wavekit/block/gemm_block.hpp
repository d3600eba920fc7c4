// One block of a GEMM, composed: a tile scheduler says which C tile and K groups, the mainloop
// (loaders, warp MMA, scale policy) accumulates them, the epilogue stores the result. Every GEMM
// kernel of wavekit is this composition with its own parts (ops/<op>/ chooses them); a new op
// changes parts, never this loop.
#pragma once

#include <hip/hip_runtime.h>  // the platform: HIP on the device, the emulator's shim on the CPU

#include <cstdint>

#include "wavekit/arch/buffer.hpp"
#include "wavekit/block/gemm_epilogue.hpp"
#include "wavekit/block/gemm_mainloop.hpp"
#include "wavekit/block/tile_scheduler.hpp"
#include "wavekit/core/layout.hpp"
#include "wavekit/core/numeric_types.hpp"
#include "wavekit/core/platform.hpp"

namespace wavekit::block {

// A GEMM's kernel argument: C = A x B^T over K (storage order fixed by the kernel), with the scale
// policy's arguments and the epilogue's.
template <class A, class B, class ScaleArgs, class Out>
struct gemm_params {
  const A* a;
  const B* b;
  ScaleArgs scales;
  epilogue_args<Out> out;
  int m, n, k;
  int groups_per_split;  // K groups (the policy's unit) per split
  int skip;              // K elements the first step starts early (mainloop KTail), else 0
};

template <class Cfg, layout Order, tile_scheduler Scheduler, class Mainloop, gemm_epilogue Epilogue>
struct gemm_block {
  using mma = typename Mainloop::mma_type;
  using policy = typename Mainloop::policy_type;

  // lds: Mainloop::lds_bytes, 16-byte aligned.
  template <class A, class B, class Out>
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE static void run(const gemm_params<A, B, typename policy::args, Out>& p,
                                                     unsigned char* lds) {
    // The wave index is the same in all its lanes; readfirstlane tells the compiler so (scalar
    // registers and branches for everything derived from it).
    const int tid = static_cast<int>(threadIdx.x), lane = tid % 64, wave = __builtin_amdgcn_readfirstlane(tid / 64);
    const int wave_row = (wave / Cfg::waves_n) * Cfg::wave_m, wave_col = (wave % Cfg::waves_n) * Cfg::wave_n;
    const int skip = Mainloop::k_tail ? p.skip : 0;
    const gemm_tile t = Scheduler::at((p.k + skip) / policy::group_k, p.groups_per_split);
    constexpr bool kc = Order == layout::k_contiguous;
    const gemm_sources src{arch::buffer::over(p.a, static_cast<std::uint32_t>(p.m) * static_cast<std::uint32_t>(p.k) *
                                                       sizeof(A) / elements_per_object<A>),
                           arch::buffer::over(p.b, static_cast<std::uint32_t>(p.n) * static_cast<std::uint32_t>(p.k) *
                                                       sizeof(B) / elements_per_object<B>),
                           kc ? p.k : p.m,
                           kc ? p.k : p.n,
                           p.m,
                           p.n,
                           skip};
    policy scale_state;
    scale_state.begin(p.scales, p.m, p.n, p.k, t, reinterpret_cast<float*>(lds + Mainloop::policy_lds_offset), tid,
                      wave_row, wave_col, lane);
    mma w;
    Mainloop::run(src, t, tid, lane, wave_row, wave_col, w, scale_state, lds);
    Epilogue::template store<mma>(p.out, p.m, p.n, scale_state.result(w), t.m0 + wave_row, t.n0 + wave_col, lane,
                                  t.split, scale_state.epilogue_transform());
  }
};

}  // namespace wavekit::block
