// Fibers for the CPU emulator: each GPU thread of a block runs on its own stack and switches to
// the block scheduler at barriers and cross-lane operations.
//
// The switch is Boost.Context's fcontext primitive (a few instructions of assembly, no system
// call). Under ThreadSanitizer every fiber is announced to TSan and switches are made without
// synchronisation (__tsan_switch_to_fiber_no_sync), so the only happens-before edges between GPU
// threads are the ones the emulator creates at barriers and wave operations: TSan then reports
// real data races in kernels. The scheduler's own bookkeeping is excluded from instrumentation.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <boost/context/detail/fcontext.hpp>
#include <cstddef>
#include <new>

#include "wavekit/core/platform.hpp"

#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define WAVEKIT_EMU_TSAN 1
#endif
#endif
#ifndef WAVEKIT_EMU_TSAN
#define WAVEKIT_EMU_TSAN 0
#endif
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define WAVEKIT_EMU_ASAN 1
#endif
#endif
#ifndef WAVEKIT_EMU_ASAN
#define WAVEKIT_EMU_ASAN 0
#endif
#if WAVEKIT_EMU_ASAN
#include <sanitizer/common_interface_defs.h>
#endif

#if WAVEKIT_EMU_TSAN
#include <sanitizer/tsan_interface.h>
extern "C" void AnnotateIgnoreReadsBegin(const char* file, int line);
extern "C" void AnnotateIgnoreReadsEnd(const char* file, int line);
extern "C" void AnnotateIgnoreWritesBegin(const char* file, int line);
extern "C" void AnnotateIgnoreWritesEnd(const char* file, int line);
#define WAVEKIT_EMU_NOT_INSTRUMENTED __attribute__((no_sanitize("thread")))
#else
#define WAVEKIT_EMU_NOT_INSTRUMENTED
#endif

namespace wavekit::emu::detail {

namespace bctx = boost::context::detail;

// A stack from mmap with an inaccessible guard page below it, so an overflow faults at once.
class fiber_stack {
 public:
  explicit fiber_stack(std::size_t bytes) {
    const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    size_ = (bytes + page - 1) / page * page;
    mapping_bytes_ = size_ + page;
    void* p = mmap(nullptr, mapping_bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    mprotect(p, page, PROT_NONE);
    mapping_ = static_cast<char*>(p);
  }
  ~fiber_stack() { munmap(mapping_, mapping_bytes_); }
  fiber_stack(const fiber_stack&) = delete;
  fiber_stack& operator=(const fiber_stack&) = delete;

  void* top() const { return mapping_ + mapping_bytes_; }
  void* bottom() const { return mapping_ + (mapping_bytes_ - size_); }
  std::size_t size() const { return size_; }

 private:
  char* mapping_ = nullptr;
  std::size_t size_ = 0, mapping_bytes_ = 0;
};

// One fiber. start() prepares it to run fn(arg); resume() runs it until it yields or returns.
class fiber {
 public:
  using function = void (*)(void*);

  WAVEKIT_EMU_NOT_INSTRUMENTED void start(fiber_stack& stack, function fn, void* arg) {
    fn_ = fn, arg_ = arg, finished_ = false;
    stack_bottom_ = stack.bottom(), stack_size_ = stack.size();
    context_ = bctx::make_fcontext(stack.top(), stack.size(), &trampoline);
#if WAVEKIT_EMU_TSAN
    tsan_fiber_ = __tsan_create_fiber(0);
#endif
  }

  ~fiber() { release_tsan(); }

  // Runs the fiber until it yields or finishes; returns false once it has finished.
  WAVEKIT_EMU_NOT_INSTRUMENTED bool resume() {
    current() = this;
#if WAVEKIT_EMU_TSAN
    scheduler_tsan_fiber_ = __tsan_get_current_fiber();
    __tsan_switch_to_fiber(tsan_fiber_, __tsan_switch_to_fiber_no_sync);
#endif
#if WAVEKIT_EMU_ASAN
    __sanitizer_start_switch_fiber(&scheduler_fake_stack_, stack_bottom_, stack_size_);
#endif
    context_ = bctx::jump_fcontext(context_, this).fctx;
#if WAVEKIT_EMU_ASAN
    __sanitizer_finish_switch_fiber(scheduler_fake_stack_, nullptr, nullptr);
#endif
    current() = nullptr;
    if (finished_) release_tsan();
    return !finished_;
  }

  // Called from inside the running fiber: back to whoever resumed it.
  WAVEKIT_EMU_NOT_INSTRUMENTED static void yield() { current()->switch_to_scheduler(); }

  bool finished() const { return finished_; }

 private:
  WAVEKIT_EMU_NOT_INSTRUMENTED static fiber*& current() {
    static thread_local fiber* running = nullptr;
    return running;
  }

  WAVEKIT_EMU_NOT_INSTRUMENTED void switch_to_scheduler() {
#if WAVEKIT_EMU_TSAN
    __tsan_switch_to_fiber(scheduler_tsan_fiber_, __tsan_switch_to_fiber_no_sync);
#endif
#if WAVEKIT_EMU_ASAN
    __sanitizer_start_switch_fiber(finished_ ? nullptr : &fiber_fake_stack_, scheduler_stack_bottom_,
                                   scheduler_stack_size_);
#endif
    scheduler_ = bctx::jump_fcontext(scheduler_, nullptr).fctx;
#if WAVEKIT_EMU_ASAN
    __sanitizer_finish_switch_fiber(fiber_fake_stack_, &scheduler_stack_bottom_, &scheduler_stack_size_);
#endif
  }

  WAVEKIT_EMU_NOT_INSTRUMENTED static void trampoline(bctx::transfer_t t) {
    fiber* self = static_cast<fiber*>(t.data);
#if WAVEKIT_EMU_ASAN
    __sanitizer_finish_switch_fiber(nullptr, &self->scheduler_stack_bottom_, &self->scheduler_stack_size_);
#endif
    self->scheduler_ = t.fctx;
    self->fn_(self->arg_);
    self->finished_ = true;
    self->switch_to_scheduler();  // never resumed again
  }

  WAVEKIT_EMU_NOT_INSTRUMENTED void release_tsan() {
#if WAVEKIT_EMU_TSAN
    if (tsan_fiber_) __tsan_destroy_fiber(tsan_fiber_);
    tsan_fiber_ = nullptr;
#endif
  }

  bctx::fcontext_t context_ = nullptr;    // the fiber, while it is not running
  bctx::fcontext_t scheduler_ = nullptr;  // who resumed it, while it runs
  function fn_ = nullptr;
  void* arg_ = nullptr;
  bool finished_ = true;
  void* stack_bottom_ = nullptr;
  std::size_t stack_size_ = 0;
#if WAVEKIT_EMU_ASAN
  void* scheduler_fake_stack_ = nullptr;
  void* fiber_fake_stack_ = nullptr;
  const void* scheduler_stack_bottom_ = nullptr;
  std::size_t scheduler_stack_size_ = 0;
#endif
#if WAVEKIT_EMU_TSAN
  void* tsan_fiber_ = nullptr;
  void* scheduler_tsan_fiber_ = nullptr;
#endif
};

// While alive, ThreadSanitizer ignores the current fiber's memory accesses, callees included: for
// emulator bookkeeping that the fibers of a block share (the block's threads take turns on one OS
// thread; only kernel code's accesses are meant to be checked).
struct tsan_ignore_scope {
#if WAVEKIT_EMU_TSAN
  tsan_ignore_scope() {
    AnnotateIgnoreReadsBegin(__FILE__, __LINE__);
    AnnotateIgnoreWritesBegin(__FILE__, __LINE__);
  }
  ~tsan_ignore_scope() {
    AnnotateIgnoreWritesEnd(__FILE__, __LINE__);
    AnnotateIgnoreReadsEnd(__FILE__, __LINE__);
  }
#endif
};

// Happens-before edges the emulator creates (barriers, wave operations, launch boundaries).
WAVEKIT_FORCEINLINE void sync_release([[maybe_unused]] void* address) {
#if WAVEKIT_EMU_TSAN
  __tsan_release(address);
#endif
}
WAVEKIT_FORCEINLINE void sync_acquire([[maybe_unused]] void* address) {
#if WAVEKIT_EMU_TSAN
  __tsan_acquire(address);
#endif
}

}  // namespace wavekit::emu::detail
