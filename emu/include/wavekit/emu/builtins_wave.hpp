// The AMDGPU cross-lane, barrier and scheduling builtins (clang names) for emulator builds.
#pragma once

#include <cstdint>

#include "wavekit/emu/block.hpp"
#include "wavekit/emu/wave_ops.hpp"

#define WAVEKIT_EMU_SITE wavekit::emu::source_site site = wavekit::emu::source_site::current()

inline int __builtin_amdgcn_ds_bpermute(int address, int value, WAVEKIT_EMU_SITE) {
  return wavekit::emu::read_lane_of(value, address >> 2, "ds_bpermute", site);
}
inline int __builtin_amdgcn_ds_permute(int address, int value, WAVEKIT_EMU_SITE) {
  return wavekit::emu::permute_forward(address, value, site);
}
template <class T>
T __builtin_amdgcn_update_dpp(T old, T src, int dpp_ctrl, int row_mask, int bank_mask, bool bound_ctrl,
                              WAVEKIT_EMU_SITE) {
  return wavekit::emu::update_dpp(old, src, dpp_ctrl, row_mask, bank_mask, bound_ctrl, site);
}
// mov_dpp leaves lanes it does not write undefined; the emulator gives them 0.
template <class T>
T __builtin_amdgcn_mov_dpp(T src, int dpp_ctrl, int row_mask, int bank_mask, bool bound_ctrl, WAVEKIT_EMU_SITE) {
  return wavekit::emu::update_dpp(T{}, src, dpp_ctrl, row_mask, bank_mask, bound_ctrl, site);
}
template <class T>
T __builtin_amdgcn_readfirstlane(T value, WAVEKIT_EMU_SITE) {
  return wavekit::emu::readfirstlane(value, site);
}
template <class T>
T __builtin_amdgcn_readlane(T value, int lane, WAVEKIT_EMU_SITE) {
  return wavekit::emu::readlane(value, lane, site);
}
inline std::uint64_t __builtin_amdgcn_ballot_w64(bool predicate, WAVEKIT_EMU_SITE) {
  return wavekit::emu::ballot(predicate, site);
}
inline unsigned __builtin_amdgcn_mbcnt_lo(unsigned mask, unsigned add) { return wavekit::emu::mbcnt_lo(mask, add); }
inline unsigned __builtin_amdgcn_mbcnt_hi(unsigned mask, unsigned add) { return wavekit::emu::mbcnt_hi(mask, add); }
inline void __builtin_amdgcn_s_barrier(WAVEKIT_EMU_SITE) { wavekit::emu::barrier(site); }

// Scheduling hints: no effect on results in a functional emulator. (s_waitcnt waits for
// direct-to-LDS loads: builtins_buffer_lds.hpp.)
inline void __builtin_amdgcn_sched_barrier(int) {}
inline void __builtin_amdgcn_sched_group_barrier(int, int, int) {}
inline void __builtin_amdgcn_s_setprio(short) {}
inline void __builtin_amdgcn_s_sleep(int) {}
// Lanes of a wave run in lockstep on hardware; here the wave_barrier is a rendezvous of the wave.
inline void __builtin_amdgcn_wave_barrier(WAVEKIT_EMU_SITE) { (void)wavekit::emu::ballot(true, site); }

#undef WAVEKIT_EMU_SITE
