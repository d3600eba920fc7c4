// Kernel launches on the CPU: blocks are distributed over a pool of OS threads; each runs its
// blocks one at a time, the block's GPU threads as fibers (block.hpp). Launches are synchronous:
// when launch() returns, every block has run (streams are ordered trivially). Host threads may
// launch at the same time; their launches share the pool (worker_pool) and keep their own counters.
#pragma once

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "wavekit/emu/block.hpp"
#include "wavekit/emu/lds.hpp"
#include "wavekit/emu/memory.hpp"

namespace wavekit::emu {

struct launch_result {
  std::string error;  // empty: every block ran to completion
  launch_counters counters;
};

namespace detail {

inline unsigned env_unsigned(const char* name, unsigned fallback) {
  const char* v = std::getenv(name);
  return v && *v ? static_cast<unsigned>(std::strtoul(v, nullptr, 10)) : fallback;
}

// Per OS thread: fiber stacks (grown to the largest block seen) and the block being run.
struct block_runner {
  std::vector<std::unique_ptr<fiber_stack>> stacks;
  block_state block;
  // ThreadSanitizer: the scheduler releases block_start after setting a block up (its threads
  // acquire it when they start); threads release block_end when they return, and the scheduler
  // acquires it before the next block. Threads of one block are thus never ordered by starting.
  char block_start = 0, block_end = 0;
};

inline block_runner& this_thread_runner() {
  static thread_local block_runner runner;
  return runner;
}

inline char launch_begin_sync = 0, launch_end_sync = 0;

inline std::string describe_running_thread() {
  thread_state* t = current_thread_slot();
  if (!t) return "no emulated thread running";
  return thread_name(*t) + " of block (" + std::to_string(t->block->index.x) + ", " +
         std::to_string(t->block->index.y) + ", " + std::to_string(t->block->index.z) + ")";
}

WAVEKIT_EMU_NOT_INSTRUMENTED inline void thread_entry(void* p) {
  auto* t = static_cast<thread_state*>(p);
  block_state& b = *t->block;
  sync_acquire(&launch_begin_sync);
  sync_acquire(&this_thread_runner().block_start);
  try {
    b.body(b.body_arg);
  } catch (const strictness_error& e) {
    [[maybe_unused]] tsan_ignore_scope bookkeeping;
    if (b.error.empty()) b.error = e.message;
  }
  [[maybe_unused]] tsan_ignore_scope bookkeeping;
  t->status = thread_status::finished;
  ++b.exited;
  wave_state& w = *b.waves[t->wave];
  w.exited |= std::uint64_t{1} << t->lane;
  if (b.error.empty() && b.barrier_arrived > 0)
    b.error = "barrier at " + b.barrier_site.str() + " reached by only part of the block: " + thread_name(*t) +
              " returned while " + std::to_string(b.barrier_arrived) + " threads wait there";
  if (b.error.empty() && w.arrived != 0)
    b.error = std::string("cross-lane operation in divergent code: lanes ") + lane_list(w.arrived) + " of wave " +
              std::to_string(t->wave) + " wait at " + w.op + " (" + w.op_site.str() + ") while lane " +
              std::to_string(t->lane) + " returned";
  if (b.error.empty() && !t->vmem.lds_in_flight.empty()) {
    const lds_dma_write& d = *t->vmem.lds_in_flight.front().write;
    const std::uint32_t at = d.begin + t->lane * d.stride;
    b.error = std::string(d.instruction) + " at " + d.site.str() + " still in flight when " + thread_name(*t) +
              " returned: no s_waitcnt vmcnt retired its load into LDS bytes " + lds_dma_block::range(at, at + d.size) +
              " (" + std::to_string(t->vmem.lds_in_flight.size()) + " such loads pending)";
  }
  sync_release(&this_thread_runner().block_end);
  sync_release(&launch_end_sync);
}

// Nothing can run and some threads have not returned: say who waits where.
inline std::string describe_stall(const block_state& b) {
  std::string barrier_waiters, wave_waiters;
  for (std::size_t wi = 0; wi < b.waves.size(); ++wi) {
    const wave_state& w = *b.waves[wi];
    if (w.arrived)
      wave_waiters += " wave " + std::to_string(wi) + " lanes " + lane_list(w.arrived) + " wait at " + w.op + " (" +
                      w.op_site.str() + ");";
  }
  if (b.barrier_arrived)
    barrier_waiters =
        " " + std::to_string(b.barrier_arrived) + " threads wait at the barrier at " + b.barrier_site.str();
  return "cross-lane operation in divergent code (no thread can proceed):" + wave_waiters + barrier_waiters;
}

WAVEKIT_EMU_NOT_INSTRUMENTED inline void run_block(block_runner& r, dim3 index) {
  [[maybe_unused]] tsan_ignore_scope bookkeeping;
  block_state& b = r.block;
  b.index = index;
  b.exited = b.barrier_arrived = 0;
  b.error.clear();
  const unsigned count = b.dim.x * b.dim.y * b.dim.z;
  const unsigned wave_count = (count + wave_size - 1) / wave_size;
  static const std::size_t stack_bytes = env_unsigned("WAVEKIT_EMU_STACK_KB", 256) * 1024u;
  while (r.stacks.size() < count) r.stacks.push_back(std::make_unique<fiber_stack>(stack_bytes));
  if (b.threads.size() != count) b.threads = std::vector<thread_state>(count);
  while (b.waves.size() < wave_count) b.waves.push_back(std::make_unique<wave_state>());
  b.waves.resize(wave_count);
  for (unsigned wi = 0; wi < wave_count; ++wi) {
    wave_state& w = *b.waves[wi];
    const unsigned lanes = std::min(wave_size, count - wi * wave_size);
    w.lanes = lanes == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << lanes) - 1;
    w.exited = w.arrived = 0;
  }
  this_thread_lds().begin_block();
  b.lds_dma.begin_block();
  if (b.dynamic_lds_bytes) {
    try {
      this_thread_lds().acquire({"<dynamic shared memory>", 0}, b.dynamic_lds_bytes, "dynamic shared memory");
    } catch (const strictness_error& e) {
      b.error = e.message;
      return;
    }
  }
  for (unsigned i = 0; i < count; ++i) {
    thread_state& t = b.threads[i];
    t.index = dim3(i % b.dim.x, (i / b.dim.x) % b.dim.y, i / (b.dim.x * b.dim.y));
    t.linear = i, t.wave = i / wave_size, t.lane = i % wave_size;
    t.status = thread_status::runnable;
    t.block = &b;
    t.vmem.clear();
    t.fiber.start(*r.stacks[i], &thread_entry, &t);
  }
  sync_acquire(&r.block_end);    // the previous block's threads have all returned ...
  sync_release(&r.block_start);  // ... and this block's threads see that and this set-up
  for (;;) {
    bool ran = false;
    for (thread_state& t : b.threads) {
      if (t.status != thread_status::runnable) continue;
      ran = true;
      current_thread_slot() = &t;
      t.fiber.resume();
      current_thread_slot() = nullptr;
      if (!b.error.empty()) return;
    }
    if (b.exited == count) break;
    if (!ran) {
      b.error = describe_stall(b);
      return;
    }
  }
  ++b.counters.blocks;
  b.counters.waves += wave_count;
}

// A fixed pool of OS threads that run the blocks of launches. Every launch is a job that each
// worker runs once; launches from several host threads at once (legal on a GPU: each thread with
// its own stream and buffers) queue up as jobs of their own, each with its own count of workers
// still at it, and the workers take them in order of arrival. A worker runs one job at a time, so
// its block state and counters belong to one launch until it has merged them.
class worker_pool {
 public:
  static worker_pool& instance() {
    static worker_pool pool(env_unsigned("WAVEKIT_EMU_THREADS", std::max(1u, std::thread::hardware_concurrency())));
    return pool;
  }
  unsigned size() const { return static_cast<unsigned>(threads_.size()); }

  // Whether the calling OS thread is one of the pool's (a kernel running there).
  static bool on_worker() { return worker_flag(); }

  // Runs job(worker_index) on every worker and waits for all of them. Not from a worker: the
  // job would wait for the worker that waits for it.
  void run(const std::function<void(unsigned)>& job) {
    std::unique_lock<std::mutex> lock(mutex_);
    job_record record{&job, ++last_serial_, size()};
    queue_.push_back(&record);
    wake_.notify_all();
    done_.wait(lock, [&] { return record.pending == 0; });
    queue_.erase(std::find(queue_.begin(), queue_.end(), &record));
  }

  ~worker_pool() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      quit_ = true;
    }
    wake_.notify_all();
    for (auto& t : threads_) t.join();
  }

 private:
  struct job_record {
    const std::function<void(unsigned)>* job;
    std::uint64_t serial;  // increasing in order of arrival
    unsigned pending;      // workers that have not finished it
  };

  static bool& worker_flag() {
    static thread_local bool flag = false;
    return flag;
  }

  explicit worker_pool(unsigned n) {
    for (unsigned i = 0; i < n; ++i) threads_.emplace_back([this, i] { loop(i); });
  }
  void loop(unsigned index) {
    ensure_signal_stack();
    worker_flag() = true;
    std::uint64_t seen = 0;  // the serial of the last job this worker ran
    for (;;) {
      job_record* record = nullptr;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        // Jobs stay queued until every worker has finished them, so the first one past `seen`
        // is the next this worker has not run.
        auto next = [&] {
          for (job_record* r : queue_)
            if (r->serial > seen) return r;
          return static_cast<job_record*>(nullptr);
        };
        wake_.wait(lock, [&] { return quit_ || next() != nullptr; });
        if (quit_) return;
        record = next();
        seen = record->serial;
      }
      (*record->job)(index);
      std::lock_guard<std::mutex> lock(mutex_);
      if (--record->pending == 0) done_.notify_all();
    }
  }

  std::vector<std::thread> threads_;
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  std::deque<job_record*> queue_;  // unfinished jobs, oldest first
  std::uint64_t last_serial_ = 0;
  bool quit_ = false;
};

}  // namespace detail

namespace detail {
// The launch configuration's rule: 1 to 1024 threads a block and at least one block.
inline std::string check_launch_configuration(dim3 grid, dim3 block) {
  const std::uint64_t threads = std::uint64_t(block.x) * block.y * block.z;
  const std::uint64_t blocks = std::uint64_t(grid.x) * grid.y * grid.z;
  if (threads == 0 || threads > 1024 || blocks == 0)
    return "invalid launch configuration: " + std::to_string(threads) + " threads per block (1..1024), " +
           std::to_string(blocks) + " blocks";
  return {};
}
}  // namespace detail

// A launch checked and counted but not run (runtime.hpp's host_only_launches).
inline launch_result launch_without_running(dim3 grid, dim3 block) {
  launch_result result;
  result.error = detail::check_launch_configuration(grid, block);
  if (result.error.empty()) result.counters.launches = 1;
  return result;
}

// Runs body(arg) as every thread of every block of the grid.
inline launch_result run_grid(dim3 grid, dim3 block, std::size_t dynamic_lds, void (*body)(void*), void* arg) {
  launch_result result;
  result.error = detail::check_launch_configuration(grid, block);
  if (!result.error.empty()) return result;
  const std::uint64_t blocks = std::uint64_t(grid.x) * grid.y * grid.z;
  if (detail::worker_pool::on_worker()) {
    result.error = "kernel launch from inside an emulated kernel (HIP has no device-side launches)";
    return result;
  }
  detail::install_fault_handler_once();
  static const bool hooked = (detail::describe_current_thread = &detail::describe_running_thread, true);
  (void)hooked;
  std::atomic<std::uint64_t> next{0};
  std::atomic<bool> stop{false};
  std::mutex merge;
  read_footprint footprint;
  detail::sync_release(&detail::launch_begin_sync);
  detail::worker_pool::instance().run([&](unsigned) {
    detail::block_runner& r = detail::this_thread_runner();
    r.block.dim = block, r.block.grid = grid, r.block.body = body, r.block.body_arg = arg;
    r.block.dynamic_lds_bytes = dynamic_lds;
    r.block.counters = launch_counters{};
    r.block.footprint = &footprint;
    for (std::uint64_t i; !stop && (i = next.fetch_add(1)) < blocks;) {
      const dim3 index(static_cast<unsigned>(i % grid.x), static_cast<unsigned>((i / grid.x) % grid.y),
                       static_cast<unsigned>(i / (std::uint64_t(grid.x) * grid.y)));
      detail::run_block(r, index);
      if (!r.block.error.empty()) {
        std::lock_guard<std::mutex> lock(merge);
        if (result.error.empty())
          result.error = "block (" + std::to_string(index.x) + ", " + std::to_string(index.y) + ", " +
                         std::to_string(index.z) + "): " + r.block.error;
        stop = true;
      }
    }
    for (const auto& [name, count] : r.block.mfma_counts) r.block.counters.mfma[name] += count;
    r.block.mfma_counts.clear();
    std::lock_guard<std::mutex> lock(merge);
    result.counters.merge(r.block.counters);
    r.block.footprint = nullptr;
  });
  detail::sync_acquire(&detail::launch_end_sync);
  if (result.error.empty()) result.counters.launches = 1;
  return result;
}

// The launch of a kernel function with arguments converted to its parameter types, as
// hipLaunchKernelGGL does.
template <class... Params, class... Args>
launch_result launch(void (*kernel)(Params...), dim3 grid, dim3 block, std::size_t dynamic_lds, Args&&... args) {
  static_assert(sizeof...(Params) == sizeof...(Args), "kernel launched with the wrong number of arguments");
  struct packed {
    void (*kernel)(Params...);
    std::tuple<std::decay_t<Params>...> args;
  } p{kernel, std::tuple<std::decay_t<Params>...>(std::forward<Args>(args)...)};
  auto body = [](void* raw) {
    auto* q = static_cast<packed*>(raw);
    std::apply(q->kernel, q->args);
  };
  return run_grid(grid, block, dynamic_lds, body, &p);
}

}  // namespace wavekit::emu
