// The LDS bank model of docs/hardware.md 4, for the counters: which lanes of a wave
// an LDS instruction serves together (a phase), and how many cycles a phase needs when several
// distinct dwords fall into one bank (one dword read by many lanes is a broadcast: free).
//
//   gfx942, 32 banks: ds_read_b128 8 phases of the CK lane groups; ds_write_b128 8 phases of 8
//     consecutive lanes. ds_read/write_b64 and b32 phases were not found for gfx942: modelled as
//     16 and 32 consecutive lanes (the bytes one cycle of 32 banks moves).
//   gfx950, 64 banks: ds_read_b128 4 phases of the measured lane groups; ds_read_b64 2 phases
//     (lanes 0-31, 32-63); ds_write_b64 32 banks, 4 phases of 16 consecutive lanes. Not found:
//     ds_write_b32 is modelled like the measured ds_write_b64 (32 banks, 128 bytes a phase: 32
//     lanes), ds_read_b32 like the measured reads (64 banks, 256 bytes a phase: 64 lanes), and
//     ds_write_b128 as 16 consecutive lanes over 64 banks.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "wavekit/arch/target.hpp"

namespace wavekit::emu {

struct lds_phase_model {
  int banks;
  std::vector<std::vector<int>> phases;  // lanes served together
};

namespace detail {
inline std::vector<std::vector<int>> consecutive_phases(int lanes_per_phase) {
  std::vector<std::vector<int>> p(64 / lanes_per_phase);
  for (int l = 0; l < 64; ++l) p[l / lanes_per_phase].push_back(l);
  return p;
}
inline std::vector<std::vector<int>> range_phases(
    std::initializer_list<std::initializer_list<std::array<int, 2>>> groups) {
  std::vector<std::vector<int>> p;
  for (const auto& g : groups) {
    p.emplace_back();
    for (const auto& range : g)
      for (int l = range[0]; l <= range[1]; ++l) p.back().push_back(l);
  }
  return p;
}
}  // namespace detail

inline const lds_phase_model& lds_model(int bytes, bool write) {
  using detail::consecutive_phases;
  using detail::range_phases;
  if constexpr (arch::current_target == arch::target::gfx950) {
    static const lds_phase_model read128{64, range_phases({{{0, 3}, {12, 15}, {20, 27}},
                                                           {{4, 11}, {16, 19}, {28, 31}},
                                                           {{32, 35}, {44, 47}, {52, 59}},
                                                           {{36, 43}, {48, 51}, {60, 63}}})};
    static const lds_phase_model write128{64, consecutive_phases(16)}, read64{64, consecutive_phases(32)},
        write64{32, consecutive_phases(16)}, read32{64, consecutive_phases(64)}, write32{32, consecutive_phases(32)};
    if (bytes == 16) return write ? write128 : read128;
    if (bytes == 8) return write ? write64 : read64;
    return write ? write32 : read32;
  } else {
    static const lds_phase_model read128{32, range_phases({{{0, 3}, {20, 23}},
                                                           {{4, 7}, {16, 19}},
                                                           {{8, 11}, {28, 31}},
                                                           {{12, 15}, {24, 27}},
                                                           {{32, 35}, {52, 55}},
                                                           {{36, 39}, {48, 51}},
                                                           {{40, 43}, {60, 63}},
                                                           {{44, 47}, {56, 59}}})};
    static const lds_phase_model write128{32, consecutive_phases(8)}, any64{32, consecutive_phases(16)},
        any32{32, consecutive_phases(32)};
    if (bytes == 16) return write ? write128 : read128;
    if (bytes == 8) return any64;
    return any32;
  }
}

// Cycles beyond one per phase that an access of `bytes` per lane at these LDS byte offsets needs;
// only lanes in `active` access LDS.
inline std::uint64_t lds_conflict_cycles(const std::uint32_t (&offset)[64], std::uint64_t active, int bytes,
                                         bool write) {
  const lds_phase_model& model = lds_model(bytes, write);
  std::uint64_t extra = 0;
  for (const auto& phase : model.phases) {
    // Distinct dwords per bank in this phase.
    std::vector<std::vector<std::uint32_t>> words(model.banks);
    int worst = 1;
    for (int lane : phase) {
      if (!((active >> lane) & 1)) continue;
      for (int d = 0; d < bytes / 4; ++d) {
        const std::uint32_t word = offset[lane] / 4 + static_cast<std::uint32_t>(d);
        auto& bank = words[word % static_cast<std::uint32_t>(model.banks)];
        bool seen = false;
        for (std::uint32_t w : bank) seen |= w == word;
        if (!seen) bank.push_back(word);
        worst = std::max(worst, static_cast<int>(bank.size()));
      }
    }
    extra += static_cast<std::uint64_t>(worst - 1);
  }
  return extra;
}

}  // namespace wavekit::emu
