// The emulator's model of direct-to-LDS buffer loads (docs/hardware.md 5.3) between issue and
// landing: the state block.hpp keeps per lane and per block, and the checks on it.
//
// A load's chunks are read from global memory at issue but written into LDS only when the lane's
// s_waitcnt vmcnt retires them (builtins_buffer_lds.hpp), since on the device they land at some
// moment in between. The model is conservative: an LDS access to bytes still in flight fails
// whichever way it would go (before or after the landing), as does an access by another wave to
// bytes that landed but that no barrier has published to it yet, and a load issued onto bytes
// another wave read or wrote since the last barrier (it may land before that wave is done).
//
// Bookkeeping is in LDS byte offsets of the block (lds.hpp's regions: WAVEKIT_LDS_ARRAY arrays
// and dynamic shared memory), the accesses those of arch/lds.hpp's helpers, as the bank model's.
#pragma once

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <list>
#include <string>
#include <vector>

#include "wavekit/emu/site.hpp"

namespace wavekit::emu {

// One wave-level buffer_load_* ... lds. Lane l's chunk is the LDS bytes [begin + l * stride,
// + size).
struct lds_dma_write {
  const char* instruction = nullptr;  // "buffer_load_dword lds", ...
  source_site site;
  unsigned wave = 0;
  std::uint32_t begin = 0, stride = 0, size = 0;
  std::uint64_t in_flight = 0;  // lanes whose chunk has not landed: no s_waitcnt retired it
  std::uint64_t landed = 0;     // lanes whose chunk landed since the block's last barrier

  bool overlaps(std::uint32_t from, std::uint32_t to) const { return from < end() && to > begin; }
  std::uint32_t end() const { return begin + 63 * stride + size; }
  // The lanes whose chunks overlap LDS bytes [from, to).
  std::uint64_t lanes_over(std::uint32_t from, std::uint32_t to) const {
    if (!overlaps(from, to)) return 0;
    std::uint64_t lanes = 0;
    const std::uint32_t first = from > begin + size ? (from - begin - size) / stride : 0;
    for (std::uint32_t l = first; l < 64 && begin + l * stride < to; ++l)
      if (begin + l * stride + size > from) lanes |= std::uint64_t{1} << l;
    return lanes;
  }
};

// One lane's chunk of a write, between issue and landing.
struct lds_dma_chunk {
  lds_dma_write* write = nullptr;
  std::uint64_t issue = 0;      // the lane's count of VMEM instructions, this one included
  unsigned char* to = nullptr;  // where it lands in the emulator's memory
  unsigned char data[16] = {};
};

// A lane's vector-memory instructions as vmcnt counts them (in issue order): every buffer load
// and store counts (gfx9's vmcnt counts stores too, docs/hardware.md 5.3); only the direct-to-LDS
// loads among them have anything to do when they retire, so only those are kept.
struct vmem_queue {
  std::uint64_t issued = 0;
  std::vector<lds_dma_chunk> lds_in_flight;  // oldest first

  void clear() { issued = 0, lds_in_flight.clear(); }
};

// Per block: the writes not yet landed and published, and which waves touched each LDS dword
// since the last barrier. That map is written lazily: LDS instructions are logged as they come
// and marked only when a load is issued (or the log grows long), so intervals without loads, most
// of every other kernel's, cost one copy of the offsets per instruction.
struct lds_dma_block {
  struct logged_access {
    std::uint32_t offsets[64];
    std::uint64_t lanes;
    source_site site;
    std::uint8_t wave, bytes;
    bool write;
  };
  struct dword_touch {
    std::uint32_t interval = 0;                 // the barrier interval of what follows
    std::uint16_t read_by = 0, written_by = 0;  // waves, bit w for wave w (16 at most)
    std::uint16_t last = 0, other = 0;          // the latest access's site (in `sites`), the latest by another wave
    std::uint8_t last_wave = 0, other_wave = 0;
  };
  std::list<lds_dma_write> writes;               // stable addresses: chunks point at them
  std::uint32_t writes_from = 0, writes_to = 0;  // LDS bytes covered by `writes` (a bound)
  // Barrier intervals, counted per OS thread across its blocks, so `touched` never needs clearing.
  std::uint32_t interval = 0;
  std::vector<logged_access> log;    // this interval's LDS instructions not yet in `touched`
  std::vector<dword_touch> touched;  // by LDS dword
  std::vector<source_site> sites;    // of the block's LDS instructions, as they were marked

  void begin_block() {
    writes.clear();
    writes_from = writes_to = 0;
    sites.assign(1, source_site{});
    log.clear();
    ++interval;
  }

  // A barrier completed: what landed before it is now visible to every wave.
  void publish() {
    ++interval;
    log.clear();
    for (auto it = writes.begin(); it != writes.end();) {
      it->landed = 0;
      it = it->in_flight ? std::next(it) : writes.erase(it);
    }
    bound_writes();
  }

  void bound_writes() {
    writes_from = writes_to = 0;
    for (const auto& w : writes) {
      if (writes_from == writes_to) writes_from = w.begin, writes_to = w.end();
      writes_from = std::min(writes_from, w.begin), writes_to = std::max(writes_to, w.end());
    }
  }

  // One LDS instruction of wave `wave`: lane l (bit l of `lanes`) accessed bytes [offsets[l],
  // + bytes). Returns why the access breaks the model ("" if it does not).
  std::string access(unsigned wave, const std::uint32_t* offsets, std::uint64_t lanes, unsigned bytes, bool write,
                     const char* instruction, source_site site) {
    std::string problem;
    for (unsigned l = 0; l < 64 && !writes.empty(); ++l) {
      const std::uint32_t from = offsets[l], to = from + bytes;
      if (((lanes >> l) & 1) && from < writes_to && to > writes_from)
        if (problem = conflict(wave, l, from, to, write, instruction, site); !problem.empty()) break;
    }
    log.push_back({{}, lanes, site, static_cast<std::uint8_t>(wave), static_cast<std::uint8_t>(bytes), write});
    std::copy(offsets, offsets + 64, log.back().offsets);
    if (log.size() >= 4096) mark_logged();
    return problem;
  }

  // The write-after-read check of load `w` about to be issued: another wave's access to its bytes
  // since the last barrier, or another wave's load there that has not landed and been published.
  std::string issue_conflict(const lds_dma_write& w) {
    mark_logged();
    const auto me = static_cast<std::uint16_t>(1u << w.wave);
    for (unsigned l = 0; l < 64; ++l) {
      if (!((w.in_flight >> l) & 1)) continue;
      const std::uint32_t from = w.begin + l * w.stride, to = from + w.size;
      const std::string what = std::string(w.instruction) + " at " + w.site.str() + " (wave " + std::to_string(w.wave) +
                               " lane " + std::to_string(l) + ") writes LDS bytes " + range(from, to);
      for (const auto& o : writes)
        if (o.wave != w.wave && (o.lanes_over(from, to) & (o.in_flight | o.landed)))
          return what + ", onto which " + o.instruction + " at " + o.site.str() + " of wave " + std::to_string(o.wave) +
                 " has a load that no barrier has published (two waves' loads race for the bytes)";
      for (std::uint32_t d = from / 4; d < (to + 3) / 4 && d < touched.size(); ++d) {
        const dword_touch& t = touched[d];
        if (t.interval != interval || !((t.read_by | t.written_by) & ~me)) continue;
        const bool read = t.read_by & ~me, last_is_other = t.last_wave != w.wave;
        return what + ", which wave(s) " +
               wave_list(static_cast<std::uint16_t>((read ? t.read_by : t.written_by) & ~me)) +
               (read ? " read" : " wrote") + " since the last barrier (latest: wave " +
               std::to_string(last_is_other ? t.last_wave : t.other_wave) + " at " +
               sites[last_is_other ? t.last : t.other].str() +
               "): the load may land at any moment after issue, so a barrier must separate those accesses from it";
      }
    }
    return {};
  }

  static std::string range(std::uint32_t from, std::uint32_t to) {
    return std::to_string(from) + ".." + std::to_string(to - 1);
  }

 private:
  std::uint16_t site_index(source_site site) {
    for (std::size_t i = sites.size(); i-- > 1;)
      if (sites[i].line == site.line && sites[i].file == site.file) return static_cast<std::uint16_t>(i);
    if (sites.size() > 0xFFFF) return 0;
    sites.push_back(site);
    return static_cast<std::uint16_t>(sites.size() - 1);
  }

  void mark_logged() {
    for (const logged_access& a : log) {
      const std::uint16_t here = site_index(a.site);
      const auto bit = static_cast<std::uint16_t>(1u << a.wave);
      for (unsigned l = 0; l < 64; ++l) {
        if (!((a.lanes >> l) & 1)) continue;
        const std::uint32_t last = (a.offsets[l] + a.bytes + 3) / 4;
        if (touched.size() < last) touched.resize(last);
        for (std::uint32_t d = a.offsets[l] / 4; d < last; ++d) {
          dword_touch& t = touched[d];
          if (t.interval != interval) t = {interval, 0, 0, 0, 0, 0, 0};
          (a.write ? t.written_by : t.read_by) |= bit;
          if (t.last_wave != a.wave) t.other = t.last, t.other_wave = t.last_wave;
          t.last = here, t.last_wave = a.wave;
        }
      }
    }
    log.clear();
  }

  std::string conflict(unsigned wave, unsigned lane, std::uint32_t from, std::uint32_t to, bool write,
                       const char* instruction, source_site site) const {
    for (const auto& w : writes) {
      const std::uint64_t over = w.lanes_over(from, to);
      const std::uint64_t pending = over & w.in_flight, unpublished = w.wave == wave ? 0 : over & w.landed;
      if (!pending && !unpublished) continue;
      const unsigned by = static_cast<unsigned>(__builtin_ctzll(pending ? pending : unpublished));
      const std::string what = std::string(instruction) + " at " + site.str() + " (wave " + std::to_string(wave) +
                               " lane " + std::to_string(lane) + (write ? ") writes" : ") reads") + " LDS bytes " +
                               range(from, to) + ", which " + w.instruction + " at " + w.site.str() + " (wave " +
                               std::to_string(w.wave) + " lane " + std::to_string(by) + ")";
      if (pending)
        return (write ? "LDS write before s_waitcnt vmcnt: " : "LDS read before s_waitcnt vmcnt: ") + what +
               " still has in flight: no s_waitcnt vmcnt of that lane has retired it, so the data may land before " +
               "or after this access";
      return std::string(write ? "LDS write" : "LDS read") + " without a barrier after s_waitcnt vmcnt: " + what +
             " landed in wave " + std::to_string(w.wave) + "'s s_waitcnt vmcnt, but no barrier since has made it " +
             "visible to wave " + std::to_string(wave);
    }
    return {};
  }

  static std::string wave_list(std::uint16_t mask) {
    std::string s;
    for (unsigned w = 0; w < 16; ++w)
      if ((mask >> w) & 1) s += (s.empty() ? "" : ",") + std::to_string(w);
    return s;
  }
};

}  // namespace wavekit::emu
