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

#include <cstddef>
#include <string>
#include <vector>

#include "wavekit/arch/gfx942.hpp"
#include "wavekit/arch/gfx950.hpp"
#include "wavekit/arch/target.hpp"
#include "wavekit/emu/block.hpp"
#include "wavekit/emu/memory.hpp"

namespace wavekit::emu {

inline constexpr std::size_t target_lds_bytes = arch::current_target == arch::target::gfx950
                                                    ? arch::gfx950::lds_bytes_per_workgroup
                                                    : arch::gfx942::lds_bytes_per_workgroup;

namespace detail {

struct lds_region {
  source_site site;  // declaration of the array; file "<dynamic>" for dynamic shared memory
  std::size_t bytes = 0;
  void* ptr = nullptr;
  bool in_use = false;
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
        if (!r.in_use) account(site, bytes, name), r.in_use = true;
        return r.ptr;
      }
    account(site, bytes, name);
    void* p = guarded_allocate(bytes, region_kind::lds, name + " (" + std::to_string(bytes) + " bytes)");
    regions.push_back({site, bytes, p, true});
    return p;
  }

  void account(source_site site, std::size_t bytes, const std::string& name) {
    block_bytes += bytes;
    if (block_bytes > target_lds_bytes)
      fail("more LDS than the target has: " + name + " at " + site.str() + " brings the block to " +
           std::to_string(block_bytes) + " bytes; " + arch::to_string(arch::current_target) + " has " +
           std::to_string(target_lds_bytes));
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

// The block's dynamic shared memory (the launch's shared-memory size), as T*.
template <class T>
T* dynamic_shared() {
  const std::size_t bytes = current_thread().block->dynamic_lds_bytes;
  if (bytes == 0) return nullptr;
  return static_cast<T*>(
      detail::this_thread_lds().acquire({"<dynamic shared memory>", 0}, bytes, "dynamic shared memory"));
}

}  // namespace wavekit::emu
