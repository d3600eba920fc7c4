// One workgroup on the CPU: its threads as fibers, barriers, and the wave rendezvous that every
// cross-lane operation (shuffles, ballot, DPP, MFMA) goes through.
//
// Scheduling: the block's threads run in turn, each until it waits (barrier or cross-lane
// operation) or exits. A barrier completes when every thread of the block has reached the same
// barrier; a cross-lane operation when every lane of the wave has reached the same operation at
// the same source line. Anything else (a thread that exited while others wait, lanes waiting at
// different places) is a strictness error reported with both places; the block stops.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "wavekit/emu/counters.hpp"
#include "wavekit/emu/dim3.hpp"
#include "wavekit/emu/fiber.hpp"
#include "wavekit/emu/lds_dma.hpp"
#include "wavekit/emu/read_footprint.hpp"
#include "wavekit/emu/site.hpp"

namespace wavekit::emu {

inline constexpr unsigned wave_size = 64;
inline constexpr std::size_t wave_slot_bytes = 256;  // largest per-lane operand set of a wave op

enum class thread_status : std::uint8_t { runnable, at_barrier, at_wave_op, finished };

struct block_state;

struct thread_state {
  dim3 index;
  unsigned linear = 0, wave = 0, lane = 0;
  thread_status status = thread_status::finished;
  source_site site;  // where it waits
  block_state* block = nullptr;
  detail::fiber fiber;
  vmem_queue vmem;  // its vector-memory instructions as vmcnt counts them (lds_dma.hpp)
};

struct wave_state {
  std::uint64_t lanes = 0;    // lanes that exist (the last wave of a block may be partial)
  std::uint64_t exited = 0;   // lanes whose thread has returned
  std::uint64_t arrived = 0;  // lanes waiting at the pending operation
  const char* op = nullptr;   // the pending operation and where it was first reached
  source_site op_site;
  alignas(64) unsigned char in[wave_size][wave_slot_bytes];
  alignas(64) unsigned char out[wave_size][wave_slot_bytes];
  char sync = 0;  // ThreadSanitizer synchronisation object
};

// Thrown inside a fiber when the kernel breaks a rule; the scheduler stops the block.
struct strictness_error {
  std::string message;
};

struct block_state {
  dim3 index, dim, grid;
  std::vector<thread_state> threads;
  std::vector<std::unique_ptr<wave_state>> waves;
  unsigned barrier_arrived = 0, exited = 0;
  source_site barrier_site;
  launch_counters counters;
  read_footprint* footprint = nullptr;                             // the launch's, shared by its OS threads
  std::vector<std::pair<const char*, std::uint64_t>> mfma_counts;  // by instruction name literal
  std::string error;
  std::size_t dynamic_lds_bytes = 0;  // the launch's shared-memory size
  void (*body)(void*) = nullptr;
  void* body_arg = nullptr;
  char barrier_sync = 0;
  // Direct-to-LDS loads in flight, and the LDS accesses they are checked against.
  lds_dma_block lds_dma;
};

namespace detail {

WAVEKIT_EMU_NOT_INSTRUMENTED inline thread_state*& current_thread_slot() {
  static thread_local thread_state* current = nullptr;
  return current;
}

inline std::string thread_name(const thread_state& t) {
  return "thread (" + std::to_string(t.index.x) + ", " + std::to_string(t.index.y) + ", " + std::to_string(t.index.z) +
         ") [wave " + std::to_string(t.wave) + " lane " + std::to_string(t.lane) + "]";
}

inline std::string lane_list(std::uint64_t mask) {
  std::string s;
  for (unsigned l = 0; l < wave_size; ++l) {
    if (!((mask >> l) & 1)) continue;
    unsigned end = l;
    while (end + 1 < wave_size && ((mask >> (end + 1)) & 1)) ++end;
    s += (s.empty() ? "" : ",") + std::to_string(l) + (end > l ? "-" + std::to_string(end) : "");
    l = end;
  }
  return s.empty() ? "none" : s;
}

[[noreturn]] inline void fail(std::string message) { throw strictness_error{std::move(message)}; }

// Leave the fiber for the scheduler until it makes this thread runnable again.
WAVEKIT_EMU_NOT_INSTRUMENTED inline void wait_here(thread_state& t, thread_status why, source_site site) {
  t.status = why;
  t.site = site;
  fiber::yield();
}

}  // namespace detail

// The GPU thread running on this OS thread. The pointer is the scheduler's, read uninstrumented.
WAVEKIT_EMU_NOT_INSTRUMENTED inline thread_state& current_thread() { return *detail::current_thread_slot(); }

// Counts one wave-level matrix-core instruction; `name` must be a string literal.
WAVEKIT_EMU_NOT_INSTRUMENTED inline void count_mfma(block_state& b, const char* name) {
  for (auto& [n, count] : b.mfma_counts)
    if (n == name) {
      ++count;
      return;
    }
  b.mfma_counts.emplace_back(name, 1);
}

// __syncthreads: every thread of the block must reach the same barrier.
WAVEKIT_EMU_NOT_INSTRUMENTED inline void barrier(source_site site = source_site::current()) {
  [[maybe_unused]] detail::tsan_ignore_scope bookkeeping;
  thread_state& t = current_thread();
  block_state& b = *t.block;
  if (b.exited != 0)
    detail::fail("barrier at " + site.str() + " reached by only part of the block: " + std::to_string(b.exited) +
                 " of " + std::to_string(b.threads.size()) + " threads had already returned (" +
                 detail::thread_name(t) + " arrived)");
  if (b.barrier_arrived == 0)
    b.barrier_site = site;
  else if (!(site == b.barrier_site))
    detail::fail("divergent barriers: " + detail::thread_name(t) + " waits at " + site.str() + ", others at " +
                 b.barrier_site.str());
  detail::sync_release(&b.barrier_sync);
  if (++b.barrier_arrived == b.threads.size()) {
    for (auto& other : b.threads)
      if (other.status == thread_status::at_barrier) other.status = thread_status::runnable;
    b.barrier_arrived = 0;
    ++b.counters.barriers;
    b.lds_dma.publish();
  } else {
    detail::wait_here(t, thread_status::at_barrier, site);
  }
  detail::sync_acquire(&b.barrier_sync);
}

// The rendezvous of one cross-lane operation. Each lane contributes `in`; when all lanes of the
// wave have arrived, `compute(in_of, out_of)` runs once, with in_of(lane) / out_of(lane) giving
// typed access to every lane's slots; each lane then returns its own Out. For ThreadSanitizer the
// operation orders the lanes: everything a lane did before it happens before everything any lane
// does after it (as the lockstep hardware guarantees).
template <class Out, class In, class Compute>
WAVEKIT_EMU_NOT_INSTRUMENTED Out wave_op(const char* name, source_site site, const In& in, Compute&& compute) {
  static_assert(sizeof(In) <= wave_slot_bytes && sizeof(Out) <= wave_slot_bytes, "wave_op: operands too large");
  [[maybe_unused]] detail::tsan_ignore_scope bookkeeping;
  thread_state& t = current_thread();
  block_state& b = *t.block;
  wave_state& w = *b.waves[t.wave];
  const std::uint64_t bit = std::uint64_t{1} << t.lane;
  if (w.exited != 0)
    detail::fail(std::string("cross-lane operation in divergent code: ") + name + " at " + site.str() +
                 " reached by wave " + std::to_string(t.wave) + " after lanes " + detail::lane_list(w.exited) +
                 " returned");
  if (w.arrived == 0) {
    w.op = name;
    w.op_site = site;
  } else if (std::strcmp(w.op, name) != 0 || !(site == w.op_site)) {
    detail::fail(std::string("cross-lane operation in divergent code: wave ") + std::to_string(t.wave) + " lane " +
                 std::to_string(t.lane) + " at " + name + " (" + site.str() + ") while lanes " +
                 detail::lane_list(w.arrived) + " wait at " + w.op + " (" + w.op_site.str() + ")");
  }
  std::memcpy(w.in[t.lane], &in, sizeof(In));
  detail::sync_release(&w.sync);
  w.arrived |= bit;
  if (w.arrived == w.lanes) {
    detail::sync_acquire(&w.sync);  // the computing lane sees every lane's work before this point
    auto in_of = [&w](unsigned lane) -> const In& { return *reinterpret_cast<const In*>(w.in[lane]); };
    auto out_of = [&w](unsigned lane) -> Out& { return *reinterpret_cast<Out*>(w.out[lane]); };
    compute(in_of, out_of);
    for (unsigned l = 0; l < wave_size; ++l)
      if (((w.arrived >> l) & 1) && l != t.lane) b.threads[t.wave * wave_size + l].status = thread_status::runnable;
    w.arrived = 0;
    detail::sync_release(&w.sync);  // the other lanes see the computation when they resume
  } else {
    detail::wait_here(t, thread_status::at_wave_op, site);
  }
  detail::sync_acquire(&w.sync);
  Out out;
  std::memcpy(&out, w.out[t.lane], sizeof(Out));
  return out;
}

}  // namespace wavekit::emu
