// Cross-lane operations with wave64 semantics (docs/hardware.md 3). Every one is a
// rendezvous of the whole wave (block.hpp): reaching it from divergent code is an error.
#pragma once

#include <bit>
#include <cstdint>
#include <type_traits>

#include "wavekit/emu/block.hpp"

namespace wavekit::emu {

namespace detail {
template <class T>
struct lane_value {
  T value;
  int source;  // the lane whose value this lane reads
};
}  // namespace detail

// Each lane reads `value` from lane `source & 63` (ds_bpermute_b32 with address source * 4).
template <class T>
T read_lane_of(T value, int source, const char* op, source_site site) {
  static_assert(std::is_trivially_copyable_v<T>, "cross-lane operations move trivially copyable values");
  return wave_op<T>(op, site, detail::lane_value<T>{value, source}, [](auto in_of, auto out_of) {
    for (unsigned l = 0; l < wave_size; ++l) out_of(l) = in_of(in_of(l).source & 63).value;
  });
}

// HIP shuffles: the source index of docs/hardware.md 3.1 for each flavour, then ds_bpermute.
template <class T>
T shfl(T var, int src, int width, source_site site) {
  const int self = static_cast<int>(current_thread().lane);
  return read_lane_of(var, (src & (width - 1)) + (self & ~(width - 1)), "__shfl", site);
}
template <class T>
T shfl_up(T var, unsigned delta, int width, source_site site) {
  const int self = static_cast<int>(current_thread().lane);
  int idx = self - static_cast<int>(delta);
  if (idx < (self & ~(width - 1))) idx = self;
  return read_lane_of(var, idx, "__shfl_up", site);
}
template <class T>
T shfl_down(T var, unsigned delta, int width, source_site site) {
  const int self = static_cast<int>(current_thread().lane);
  int idx = self + static_cast<int>(delta);
  if ((self & (width - 1)) + static_cast<int>(delta) >= width) idx = self;
  return read_lane_of(var, idx, "__shfl_down", site);
}
template <class T>
T shfl_xor(T var, int mask, int width, source_site site) {
  const int self = static_cast<int>(current_thread().lane);
  int idx = self ^ mask;
  if (idx >= ((self + width) & ~(width - 1))) idx = self;
  return read_lane_of(var, idx, "__shfl_xor", site);
}

// Bit l set when lane l's predicate is true (every lane of the wave takes part).
inline std::uint64_t ballot(bool predicate, source_site site) {
  return wave_op<std::uint64_t>("ballot", site, int(predicate), [](auto in_of, auto out_of) {
    std::uint64_t mask = 0;
    for (unsigned l = 0; l < wave_size; ++l)
      if (in_of(l)) mask |= std::uint64_t{1} << l;
    for (unsigned l = 0; l < wave_size; ++l) out_of(l) = mask;
  });
}

// v_readlane: lane selector masked to 6 bits (docs/hardware.md 3.4).
template <class T>
T readlane(T value, int lane, source_site site) {
  return wave_op<T>("readlane", site, detail::lane_value<T>{value, lane}, [](auto in_of, auto out_of) {
    const T v = in_of(in_of(0).source & 63).value;
    for (unsigned l = 0; l < wave_size; ++l) out_of(l) = v;
  });
}
// v_readfirstlane: the lowest active lane, which is lane 0 when the whole wave is converged.
template <class T>
T readfirstlane(T value, source_site site) {
  return readlane(value, 0, site);
}

// ds_permute_b32 (forward): lane l sends `value` to lane (address >> 2) & 63; when several send
// to one lane the highest-numbered sender wins; lanes nobody sends to receive 0.
template <class T>
T permute_forward(int address, T value, source_site site) {
  return wave_op<T>("ds_permute", site, detail::lane_value<T>{value, address}, [](auto in_of, auto out_of) {
    for (unsigned l = 0; l < wave_size; ++l) out_of(l) = T{};
    for (unsigned l = 0; l < wave_size; ++l) out_of((in_of(l).source >> 2) & 63) = in_of(l).value;
  });
}

namespace detail {
// Source lane of DPP control `ctrl` for lane l, or -1 when the source is invalid (GFX9 DPP16).
inline int dpp_source(int ctrl, int l) {
  const int row = l / 16, in_row = l % 16;
  if (ctrl >= 0x000 && ctrl <= 0x0FF) return 4 * (l / 4) + ((ctrl >> (2 * (l % 4))) & 3);             // quad_perm
  if (ctrl >= 0x101 && ctrl <= 0x10F) return in_row + (ctrl - 0x100) < 16 ? l + (ctrl - 0x100) : -1;  // row_shl
  if (ctrl >= 0x111 && ctrl <= 0x11F) return in_row >= ctrl - 0x110 ? l - (ctrl - 0x110) : -1;        // row_shr
  if (ctrl >= 0x121 && ctrl <= 0x12F) return 16 * row + (in_row - (ctrl - 0x120) + 16) % 16;          // row_ror
  switch (ctrl) {
    case 0x130: return l < 63 ? l + 1 : -1;          // wave_shl:1
    case 0x134: return (l + 1) % 64;                 // wave_rol:1
    case 0x138: return l > 0 ? l - 1 : -1;           // wave_shr:1
    case 0x13C: return (l + 63) % 64;                // wave_ror:1
    case 0x140: return 16 * row + 15 - in_row;       // row_mirror
    case 0x141: return 8 * (l / 8) + 7 - l % 8;      // row_half_mirror
    case 0x142: return row > 0 ? 16 * row - 1 : -1;  // row_bcast:15
    case 0x143: return l >= 32 ? 31 : -1;            // row_bcast:31
    default: break;
  }
  if (ctrl >= 0x150 && ctrl <= 0x15F) return 16 * row + (ctrl - 0x150);  // row_newbcast:n
  fail("DPP control 0x" + std::to_string(ctrl) + " is not a GFX9 DPP16 control wavekit emulates");
}

template <class T>
struct dpp_operands {
  T old, src;
};
}  // namespace detail

// __builtin_amdgcn_update_dpp: `old` is first moved into the destination, then the DPP move is
// applied to the lanes selected by row_mask / bank_mask; an invalid source reads 0 when
// bound_ctrl is set and leaves the lane's old value otherwise (docs/hardware.md 3.3).
template <class T>
T update_dpp(T old, T src, int ctrl, int row_mask, int bank_mask, bool bound_ctrl, source_site site) {
  static_assert(sizeof(T) == 4, "DPP moves 32-bit values");
  if (ctrl < 0x150 || ctrl > 0x15F) (void)detail::dpp_source(ctrl, 0);  // reject unknown controls in the caller
  return wave_op<T>("dpp", site, detail::dpp_operands<T>{old, src},
                    [ctrl, row_mask, bank_mask, bound_ctrl](auto in_of, auto out_of) {
                      for (int l = 0; l < int(wave_size); ++l) {
                        T result = in_of(l).old;
                        const bool enabled = ((row_mask >> (l / 16)) & 1) && ((bank_mask >> ((l % 16) / 4)) & 1);
                        if (enabled) {
                          const int s = detail::dpp_source(ctrl, l);
                          if (s >= 0)
                            result = in_of(s).src;
                          else if (bound_ctrl)
                            result = T{};
                        }
                        out_of(l) = result;
                      }
                    });
}

// v_mbcnt_lo/hi: per-lane (no rendezvous) counts of mask bits below this lane.
inline unsigned mbcnt_lo(unsigned mask, unsigned add) {
  const unsigned lane = current_thread().lane;
  const unsigned below = lane >= 32 ? mask : mask & ((1u << lane) - 1);
  return add + static_cast<unsigned>(std::popcount(below));
}
inline unsigned mbcnt_hi(unsigned mask, unsigned add) {
  const unsigned lane = current_thread().lane;
  const unsigned below = lane < 32 ? 0u : mask & ((1u << (lane - 32)) - 1);
  return add + static_cast<unsigned>(std::popcount(below));
}

}  // namespace wavekit::emu
