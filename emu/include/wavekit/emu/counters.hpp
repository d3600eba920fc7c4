// What one kernel launch did, counted by the emulator: matrix-core instructions by kind, bytes
// moved by wavekit's global load/store paths, barriers, LDS bank conflicts of wavekit's LDS
// accesses (bank model of docs/hardware.md 4) and direct-to-LDS loads.
#pragma once

#include <cstdint>
#include <cstdio>
#include <map>
#include <string>

namespace wavekit::emu {

struct launch_counters {
  std::map<std::string, std::uint64_t> mfma;  // instruction name -> wave-level executions
  std::uint64_t global_bytes_read = 0;        // through buffer loads and arch global loads
  // The same bytes by the allocation they came from (key: the hipMalloc pointer), so a test can
  // say which tensor was read how often (weights once, an activation once per tile).
  std::map<std::uintptr_t, std::uint64_t> bytes_read_by_allocation;
  // The bytes of allocations a launch read at least once, each counted once (read_footprint.hpp):
  // DRAM's share when the caches hold what is re-read. Summed over launches when merged.
  std::uint64_t global_bytes_read_distinct = 0;
  std::uint64_t global_bytes_written = 0;
  std::uint64_t barriers = 0;                  // block-wide barriers completed (per block)
  std::uint64_t lds_instructions = 0;          // wave-level LDS instructions through arch helpers
  std::uint64_t lds_bank_conflict_cycles = 0;  // extra cycles beyond the conflict-free phase count
  // Direct-to-LDS buffer loads (wave-level) and the LDS bytes they write, out-of-range zeros
  // included; their global bytes count with the other buffer loads' above.
  std::uint64_t lds_dma_instructions = 0, lds_dma_bytes = 0;
  std::uint64_t blocks = 0, waves = 0;
  std::uint64_t launches = 0;  // kernel launches (1 for one launch's counters; summed when merged)

  // Bytes read from the allocation starting at p (0 if none).
  std::uint64_t bytes_read_from(const void* p) const {
    const auto it = bytes_read_by_allocation.find(reinterpret_cast<std::uintptr_t>(p));
    return it == bytes_read_by_allocation.end() ? 0 : it->second;
  }
  // Wave-level executions of the matrix instruction `name` ("v_smfmac_f32_16x16x64_fp8_fp8"; 0 if none).
  std::uint64_t mfma_of(const std::string& name) const {
    const auto it = mfma.find(name);
    return it == mfma.end() ? 0 : it->second;
  }
  std::uint64_t mfma_total() const {
    std::uint64_t n = 0;
    for (const auto& [name, count] : mfma) n += count;
    return n;
  }
  void merge(const launch_counters& o) {
    for (const auto& [name, count] : o.mfma) mfma[name] += count;
    global_bytes_read += o.global_bytes_read;
    global_bytes_read_distinct += o.global_bytes_read_distinct;
    for (const auto& [begin, bytes] : o.bytes_read_by_allocation) bytes_read_by_allocation[begin] += bytes;
    global_bytes_written += o.global_bytes_written;
    barriers += o.barriers;
    lds_instructions += o.lds_instructions;
    lds_bank_conflict_cycles += o.lds_bank_conflict_cycles;
    lds_dma_instructions += o.lds_dma_instructions;
    lds_dma_bytes += o.lds_dma_bytes;
    blocks += o.blocks;
    waves += o.waves;
    launches += o.launches;
  }
  std::string summary() const {
    std::string s = "blocks " + std::to_string(blocks) + ", waves " + std::to_string(waves) + ", barriers " +
                    std::to_string(barriers) + "\n  MFMA " + std::to_string(mfma_total());
    for (const auto& [name, count] : mfma) s += "\n    " + name + ": " + std::to_string(count);
    s += "\n  global bytes read " + std::to_string(global_bytes_read) + " (" +
         std::to_string(global_bytes_read_distinct) + " distinct), written " + std::to_string(global_bytes_written) +
         "\n  LDS instructions " + std::to_string(lds_instructions) + ", bank-conflict cycles " +
         std::to_string(lds_bank_conflict_cycles);
    if (lds_dma_instructions)
      s += "\n  direct-to-LDS loads " + std::to_string(lds_dma_instructions) + " (" + std::to_string(lds_dma_bytes) +
           " LDS bytes)";
    return s;
  }
};

}  // namespace wavekit::emu
