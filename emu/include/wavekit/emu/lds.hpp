// LDS for emulated blocks.
//
// Arrays declared with WAVEKIT_LDS_ARRAY (arch/lds.hpp) and dynamic shared memory
// (HIP_DYNAMIC_SHARED) live in guarded regions (memory.hpp): an access past an array's declared
// size faults and is reported as such. Their sizes add up per block against the emulated
// target's LDS (64 KiB on gfx942, 160 KiB on gfx950); a block that asks for more fails.
// Regions are kept per OS thread and reused by later blocks, so their contents are stale, as on
// hardware. Plain `__shared__` variables become thread_local statics: shared by the block's
// fibers and reused across blocks, but neither bounds-checked nor counted.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "wavekit/arch/device_facts.hpp"
#include "wavekit/arch/target.hpp"
#include "wavekit/emu/block.hpp"
#include "wavekit/emu/lds_banks.hpp"
#include "wavekit/emu/memory.hpp"

namespace wavekit::emu {

inline constexpr std::size_t target_lds_bytes = arch::facts_of<arch::current_target>.lds_bytes_per_workgroup;

namespace detail {

struct lds_region {
  source_site site;  // declaration of the array; file "<dynamic>" for dynamic shared memory
  std::size_t bytes = 0;
  void* ptr = nullptr;
  bool in_use = false;
  std::uint32_t lds_offset = 0;  // where the array starts in the block's LDS (for the bank model)
};

// The LDS regions of one OS thread, reused block after block.
struct lds_pool {
  std::vector<lds_region> regions;
  std::size_t block_bytes = 0;

  void begin_block() {
    for (auto& r : regions) r.in_use = false;
    block_bytes = 0;
  }

  void* acquire(source_site site, std::size_t bytes, const std::string& name) {
    [[maybe_unused]] tsan_ignore_scope bookkeeping;
    for (auto& r : regions)
      if (r.site == site && r.bytes == bytes) {
        if (!r.in_use) r.lds_offset = account(site, bytes, name), r.in_use = true;
        return r.ptr;
      }
    const std::uint32_t offset = account(site, bytes, name);
    void* p = guarded_allocate(bytes, region_kind::lds, name + " (" + std::to_string(bytes) + " bytes)");
    regions.push_back({site, bytes, p, true, offset});
    return p;
  }

  // The region of this block holding p (nullptr for plain __shared__ variables).
  const lds_region* region_of(const void* p) const {
    const auto a = reinterpret_cast<std::uintptr_t>(p);
    for (const auto& r : regions) {
      const auto base = reinterpret_cast<std::uintptr_t>(r.ptr);
      if (r.in_use && a >= base && a < base + r.bytes) return &r;
    }
    return nullptr;
  }

  // The LDS byte offset of p in this block, for arrays from acquire(); other pointers (plain
  // __shared__ variables) use their address, which keeps their alignment.
  std::uint32_t offset_of(const void* p) const {
    const lds_region* r = region_of(p);
    const auto a = reinterpret_cast<std::uintptr_t>(p);
    return r ? r->lds_offset + static_cast<std::uint32_t>(a - reinterpret_cast<std::uintptr_t>(r->ptr))
             : static_cast<std::uint32_t>(a);
  }

  // Adds an array to the block's LDS; returns its offset (16-byte aligned).
  std::uint32_t account(source_site site, std::size_t bytes, const std::string& name) {
    const std::size_t offset = (block_bytes + 15) / 16 * 16;
    block_bytes = offset + bytes;
    if (block_bytes > target_lds_bytes)
      fail("more LDS than the target has: " + name + " at " + site.str() + " brings the block to " +
           std::to_string(block_bytes) + " bytes; " + arch::to_string(arch::current_target) + " has " +
           std::to_string(target_lds_bytes));
    return static_cast<std::uint32_t>(offset);
  }
};

inline lds_pool& this_thread_lds() {
  static thread_local lds_pool pool;
  return pool;
}

}  // namespace detail

// The storage of `T name[N]` in LDS for the current block (the same for all its threads).
template <class T, std::size_t N>
T (&lds_array(const char* name, source_site site = source_site::current()))
[N] {
  void* p = detail::this_thread_lds().acquire(site, sizeof(T) * N, std::string("LDS array ") + name);
  return *static_cast<T(*)[N]>(p);
}

// An LDS instruction of `bytes` per lane at p: a rendezvous of the wave that counts the
// instruction and its bank-conflict cycles. The caller then makes its own access, so every lane's
// access is its own (visible to ThreadSanitizer) and consecutive instructions of a wave stay in
// order: nothing of instruction k+1 happens before all lanes have done instruction k.
// Lanes with active = false take part in the rendezvous but not in the access (EXEC masking).
// Accesses to the block's regions are also checked against direct-to-LDS loads (lds_dma.hpp).
inline void lds_instruction(const void* p, int bytes, bool write, bool active, source_site site) {
  struct access {
    std::uint32_t offset;
    bool active, in_region;
  };
  const detail::lds_region* region = active ? detail::this_thread_lds().region_of(p) : nullptr;
  const bool in_region = region != nullptr;
  const std::uint32_t offset =
      !active  ? 0
      : region ? region->lds_offset +
                     static_cast<std::uint32_t>(static_cast<const char*>(p) - static_cast<const char*>(region->ptr))
               : static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(p));
  const char* name = write ? (bytes == 16  ? "ds_write_b128"
                              : bytes == 8 ? "ds_write_b64"
                                           : "ds_write_b32")
                           : (bytes == 16  ? "ds_read_b128"
                              : bytes == 8 ? "ds_read_b64"
                                           : "ds_read_b32");
  wave_op<int>(name, site, access{offset, active, in_region}, [&](auto in_of, auto out_of) {
    block_state& b = *current_thread().block;
    const std::uint64_t lanes = b.waves[current_thread().wave]->lanes;  // a partial wave has fewer
    std::uint64_t mask = 0, regions = 0;
    std::uint32_t offsets[64] = {};
    for (unsigned l = 0; l < wave_size; ++l) {
      out_of(l) = 0;
      if (((lanes >> l) & 1) && in_of(l).active) mask |= std::uint64_t{1} << l, offsets[l] = in_of(l).offset;
      if (((mask >> l) & 1) && in_of(l).in_region) regions |= std::uint64_t{1} << l;
    }
    if (!mask) return;
    if (regions) {
      const std::string problem =
          b.lds_dma.access(current_thread().wave, offsets, regions, static_cast<unsigned>(bytes), write, name, site);
      if (!problem.empty()) detail::fail(problem);
    }
    ++b.counters.lds_instructions;
    b.counters.lds_bank_conflict_cycles += lds_conflict_cycles(offsets, mask, bytes, write);
  });
}

// gfx950's ds_read_b64_tr_b16 (docs/hardware.md 4.3): the lanes' 8-byte reads, checked and counted
// as the ds_read_b64 they are for the banks, then each group of 16 lanes exchanges halfwords: lane
// l takes halfword l % 4 of lanes 4 n + (l / 4) % 4 of its group, n = 0..3. Every lane of the wave
// takes part (the instruction needs EXEC all ones: a divergent call fails the wave operation).
using lds_words2 = std::uint32_t __attribute__((ext_vector_type(2)));
inline lds_words2 lds_read_transposed_b16(const void* p, source_site site) {
  if (arch::current_target != arch::target::gfx950)
    detail::fail("ds_read_b64_tr_b16 at " + site.str() + ": a gfx950 instruction, emulating another target");
  if (reinterpret_cast<std::uintptr_t>(p) % 8)
    detail::fail("ds_read_b64_tr_b16 at " + site.str() + ": the address must be 8-byte aligned");
  const unsigned lanes_in_wave =
      static_cast<unsigned>(std::popcount(current_thread().block->waves[current_thread().wave]->lanes));
  if (lanes_in_wave != wave_size)
    detail::fail("ds_read_b64_tr_b16 at " + site.str() + ": a partial wave (the instruction needs every lane)");
  lds_instruction(p, 8, false, true, site);
  struct halves {
    std::uint16_t h[4];
  };
  halves mine;
  std::memcpy(&mine, p, sizeof mine);
  const halves got = wave_op<halves>("ds_read_b64_tr_b16", site, mine, [](auto in_of, auto out_of) {
    for (unsigned l = 0; l < wave_size; ++l)
      for (unsigned n = 0; n < 4; ++n) out_of(l).h[n] = in_of((l & ~15u) + ((l >> 2) & 3u) + 4 * n).h[l & 3];
  });
  return __builtin_bit_cast(lds_words2, got);
}

// The block's dynamic shared memory (the launch's shared-memory size), as T*.
template <class T>
T* dynamic_shared() {
  const std::size_t bytes = current_thread().block->dynamic_lds_bytes;
  if (bytes == 0) return nullptr;
  return static_cast<T*>(
      detail::this_thread_lds().acquire({"<dynamic shared memory>", 0}, bytes, "dynamic shared memory"));
}

}  // namespace wavekit::emu
