// Direct-to-LDS buffer loads (buffer_load_* ... lds, docs/hardware.md 5.3) and s_waitcnt's vmcnt
// for emulator builds; the model and its checks are lds_dma.hpp's.
//
// One instruction is a wave rendezvous (every lane of the wave; divergent code fails as for any
// wave operation): the lanes agree on the LDS destination (M0 holds one address a wave), lane l's
// chunk goes to destination + l * size (the 12- and 16-byte forms: + l * 16). Each lane reads its
// chunk from global memory at issue as a buffer load of that size reads it (range check, zeros
// out of range, strict buffer mode, traffic counters), and the chunk lands in LDS when the lane's
// s_waitcnt vmcnt retires it.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "wavekit/arch/target.hpp"
#include "wavekit/emu/block.hpp"
#include "wavekit/emu/builtins_buffer.hpp"
#include "wavekit/emu/lds.hpp"

namespace wavekit::emu {

namespace detail {

inline const char* buffer_lds_instruction(int bytes) {
  switch (bytes) {
    case 1: return "buffer_load_ubyte lds";
    case 2: return "buffer_load_ushort lds";
    case 4: return "buffer_load_dword lds";
    case 12: return "buffer_load_dwordx3 lds";
    case 16: return "buffer_load_dwordx4 lds";
    default: return nullptr;
  }
}

inline void read_buffer_chunk(unsigned char* out, const wavekit_emu_buffer_rsrc& r, int bytes, std::uint32_t voffset,
                              std::uint32_t soffset, const char* instruction) {
  const int v = static_cast<int>(voffset), s = static_cast<int>(soffset);
  switch (bytes) {
    case 1: return buffer_load<1>(out, r, v, s, instruction);
    case 2: return buffer_load<2>(out, r, v, s, instruction);
    case 4: return buffer_load<4>(out, r, v, s, instruction);
    case 12: return buffer_load<12>(out, r, v, s, instruction);
    default: return buffer_load<16>(out, r, v, s, instruction);
  }
}

// A chunk lands: its bytes are written into LDS (the kernel's access) and its write notes it.
inline void land(lds_dma_chunk& c, unsigned lane) {
  std::memcpy(c.to, c.data, c.write->size);
  [[maybe_unused]] tsan_ignore_scope bookkeeping;
  c.write->in_flight &= ~(std::uint64_t{1} << lane);
  c.write->landed |= std::uint64_t{1} << lane;
}

}  // namespace detail

// buffer_load_{ubyte,ushort,dword,dwordx3,dwordx4} ... lds by the calling lane: `bytes` from
// voffset + soffset of r into the wave's LDS block at `lds`.
inline void buffer_load_lds(const wavekit_emu_buffer_rsrc& r, void* lds, int bytes, std::uint32_t voffset,
                            std::uint32_t soffset, source_site site) {
  const char* name = detail::buffer_lds_instruction(bytes);
  if (!name)
    detail::fail("direct-to-LDS buffer load of " + std::to_string(bytes) + " bytes a lane at " + site.str() +
                 ": the forms are 1, 2 or 4 bytes (and 12 or 16 on gfx950)");
  if (bytes > 4 && arch::current_target != arch::target::gfx950)
    detail::fail(std::string(name) + " at " + site.str() + ": a gfx950 instruction, emulating another target");
  thread_state& t = current_thread();
  lds_dma_chunk chunk;
  detail::read_buffer_chunk(chunk.data, r, bytes, voffset, soffset, name);
  chunk.issue = t.vmem.issued;

  struct destination {
    const void* lds;
  };
  lds_dma_write* const write = wave_op<lds_dma_write*>(name, site, destination{lds}, [&](auto in_of, auto out_of) {
    block_state& b = *current_thread().block;
    const unsigned wave = current_thread().wave;
    const std::uint64_t lanes = b.waves[wave]->lanes;
    const void* const base = in_of(0).lds;
    for (unsigned l = 1; l < wave_size; ++l)
      if (((lanes >> l) & 1) && in_of(l).lds != base)
        detail::fail(std::string(name) + " at " + site.str() + ": the lanes of wave " + std::to_string(wave) +
                     " name different LDS destinations (lane 0 " +
                     std::to_string(detail::this_thread_lds().offset_of(base)) + ", lane " + std::to_string(l) + " " +
                     std::to_string(detail::this_thread_lds().offset_of(in_of(l).lds)) +
                     "); the instruction writes one block a wave, at the address in M0");
    const detail::lds_region* region = detail::this_thread_lds().region_of(base);
    if (!region)
      detail::fail(std::string(name) + " at " + site.str() +
                   ": the LDS destination is not a WAVEKIT_LDS_ARRAY array or dynamic shared memory (the " +
                   "emulator checks direct-to-LDS loads only there)");
    const auto at = static_cast<std::uint32_t>(static_cast<const char*>(base) - static_cast<const char*>(region->ptr));
    if (at % 4)
      detail::fail(std::string(name) + " at " + site.str() + ": the LDS destination must be 4-byte aligned (" +
                   std::to_string(at) + " bytes into " + region->site.str() + "'s array)");
    const std::uint32_t stride = bytes > 4 ? 16u : static_cast<std::uint32_t>(bytes);
    const unsigned last_lane = 63u - static_cast<unsigned>(__builtin_clzll(lanes));
    if (at + last_lane * stride + static_cast<std::uint32_t>(bytes) > region->bytes)
      detail::fail(std::string(name) + " at " + site.str() + ": the wave writes LDS bytes " + std::to_string(at) +
                   ".." + std::to_string(at + last_lane * stride + bytes - 1) + " of the array declared at " +
                   region->site.str() + ", which has " + std::to_string(region->bytes));
    lds_dma_write w;
    w.instruction = name, w.site = site, w.wave = wave;
    w.begin = region->lds_offset + at, w.stride = stride, w.size = static_cast<std::uint32_t>(bytes);
    w.in_flight = lanes;
    if (const std::string problem = b.lds_dma.issue_conflict(w); !problem.empty())
      detail::fail("direct-to-LDS load racing other waves' LDS accesses: " + problem);
    b.lds_dma.writes.push_back(w);
    b.lds_dma.bound_writes();
    ++b.counters.lds_dma_instructions;
    b.counters.lds_dma_bytes += static_cast<std::uint64_t>(__builtin_popcountll(lanes)) * w.size;
    for (unsigned l = 0; l < wave_size; ++l) out_of(l) = &b.lds_dma.writes.back();
  });
  [[maybe_unused]] detail::tsan_ignore_scope bookkeeping;
  chunk.write = write;
  chunk.to = static_cast<unsigned char*>(lds) + t.lane * write->stride;
  t.vmem.lds_in_flight.push_back(chunk);
}

// s_waitcnt vmcnt(n) by the calling lane: its oldest VMEM instructions retire until at most n
// remain, and the direct-to-LDS loads among them land. vmcnt counts in issue order, so a load
// retires when n or more instructions were issued after it.
//
// Each lane counts what it executed; the device counts a wave's instructions, including one that
// only some lanes took. A lane that skipped a load in divergent code therefore counts fewer
// younger instructions and retires its own loads later than the device would, never earlier: the
// model may fail a correct kernel that counts on such loads (or on VMEM instructions the emulator
// does not see: loads and stores through plain pointers, which are global_load/store on the
// device), never pass one that reads before its data landed, as long as N counts only loads into
// LDS (the device counts what the compiler made of the other accesses: merged, split or moved).
inline void wait_vmcnt(unsigned n) {
  thread_state& t = current_thread();
  std::vector<lds_dma_chunk>& q = t.vmem.lds_in_flight;
  std::size_t landed = 0;
  while (landed < q.size() && t.vmem.issued - q[landed].issue >= n) detail::land(q[landed++], t.lane);
  if (landed) q.erase(q.begin(), q.begin() + static_cast<std::ptrdiff_t>(landed));
}

// gfx9's s_waitcnt immediate: vmcnt in bits 3:0 (low) and 15:14 (high), expcnt 6:4, lgkmcnt 11:8.
constexpr unsigned vmcnt_of_waitcnt(int imm) {
  const auto u = static_cast<unsigned>(imm);
  return (u & 0xFu) | (((u >> 14) & 0x3u) << 4);
}

}  // namespace wavekit::emu

// The other counters (expcnt, lgkmcnt) have nothing to wait for in a functional emulator: LDS
// and scalar memory accesses complete when made.
inline void __builtin_amdgcn_s_waitcnt(int imm) { wavekit::emu::wait_vmcnt(wavekit::emu::vmcnt_of_waitcnt(imm)); }
