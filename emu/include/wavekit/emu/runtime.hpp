// The HIP runtime API subset wavekit and its examples use, on the CPU. Device memory is host
// memory in guarded regions (memory.hpp); copies are memcpy; streams and events exist so the same
// host code builds for a GPU and for the emulator, and since launches are synchronous every
// stream is always complete. Device properties describe the emulated target.
#pragma once

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "wavekit/arch/device_facts.hpp"
#include "wavekit/arch/target.hpp"
#include "wavekit/emu/launch.hpp"
#include "wavekit/emu/memory.hpp"

enum hipError_t {
  hipSuccess = 0,
  hipErrorInvalidValue = 1,
  hipErrorOutOfMemory = 2,
  hipErrorInvalidConfiguration = 9,
  hipErrorInvalidDevicePointer = 17,
  hipErrorInvalidDevice = 101,
  hipErrorLaunchFailure = 719,
};

enum hipMemcpyKind {
  hipMemcpyHostToHost = 0,
  hipMemcpyHostToDevice = 1,
  hipMemcpyDeviceToHost = 2,
  hipMemcpyDeviceToDevice = 3,
  hipMemcpyDefault = 4
};

struct wavekit_emu_stream {};
struct wavekit_emu_event {
  std::chrono::steady_clock::time_point when;
};
using hipStream_t = wavekit_emu_stream*;
using hipEvent_t = wavekit_emu_event*;

struct hipDeviceProp_t {
  char name[256];
  char gcnArchName[256];
  std::size_t totalGlobalMem;
  std::size_t sharedMemPerBlock;
  int warpSize;
  int maxThreadsPerBlock;
  int multiProcessorCount;
  int clockRate;  // kHz
  int major, minor;
};

namespace wavekit::emu {

struct runtime_state {
  hipError_t last_error = hipSuccess;
  std::string last_error_message;
  launch_counters last_counters;
  launch_counters accumulated;  // every launch since reset_counters()
  int capture_checks = 0;       // live capture_check scopes
  std::vector<std::string> graph_unsafe_calls;
  int launch_logs = 0;                  // live launch_log scopes
  int host_only_scopes = 0;             // live host_only_launches scopes
  std::vector<launch_counters> logged;  // each launch's counters while one lives
};
inline runtime_state& runtime() {
  static thread_local runtime_state state;
  return state;
}

// The counters of the last launch from this host thread.
inline const launch_counters& last_launch_counters() { return runtime().last_counters; }
// The counters of every launch from this host thread since the last reset_counters() (an op may
// launch several kernels, e.g. a GEMM and its split-K reduction).
inline const launch_counters& accumulated_counters() { return runtime().accumulated; }
inline void reset_counters() { runtime().accumulated = launch_counters{}; }

// Each launch's own counters, in order. While a launch_log lives, every launch from this host
// thread appends its counters: a test of an op that launches several kernels from one call (MoE's
// pipeline) can check each launch, where accumulated_counters() holds only their sum.
class launch_log {
 public:
  launch_log() {
    if (runtime().launch_logs++ == 0) runtime().logged.clear();
  }
  ~launch_log() { --runtime().launch_logs; }
  launch_log(const launch_log&) = delete;
  launch_log& operator=(const launch_log&) = delete;
  const std::vector<launch_counters>& launches() const { return runtime().logged; }
};

// The message of the last failed launch from this host thread (empty if it succeeded).
inline const std::string& last_error_message() { return runtime().last_error_message; }

// Graph safety. While a capture_check lives, every runtime call a captured HIP graph could not hold
// or that makes the host wait for the device is recorded by name: a device-to-host copy, a
// synchronous copy or memset, a synchronisation, an allocation or a free. An op that promises to
// run without host synchronisation (so that a serving engine can capture it) is tested inside one
// and must leave the list empty.
class capture_check {
 public:
  capture_check() {
    if (runtime().capture_checks++ == 0) runtime().graph_unsafe_calls.clear();
  }
  ~capture_check() { --runtime().capture_checks; }
  capture_check(const capture_check&) = delete;
  capture_check& operator=(const capture_check&) = delete;
  const std::vector<std::string>& graph_unsafe_calls() const { return runtime().graph_unsafe_calls; }
};
inline void note_graph_unsafe(const char* call) {
  if (runtime().capture_checks > 0) runtime().graph_unsafe_calls.emplace_back(call);
}

inline hipError_t record(hipError_t e, std::string message = {}) {
  if (e != hipSuccess) {
    runtime().last_error = e;
    runtime().last_error_message = std::move(message);
  }
  return e;
}

// Host cost. While a host_only_launches lives, a launch from this host thread is checked (its
// configuration) and counted but runs no thread: the host code around launches (validation, plan
// queries, argument set-up) can be timed alone (bench/bench_host_overhead.cpp), against the same
// scope's empty-kernel launch as the cost of a launch itself.
class host_only_launches {
 public:
  host_only_launches() { ++runtime().host_only_scopes; }
  ~host_only_launches() { --runtime().host_only_scopes; }
  host_only_launches(const host_only_launches&) = delete;
  host_only_launches& operator=(const host_only_launches&) = delete;
};

template <class... Params, class... Args>
hipError_t launch_kernel(void (*kernel)(Params...), dim3 grid, dim3 block, std::size_t dynamic_lds, hipStream_t,
                         Args&&... args) {
  launch_result r = runtime().host_only_scopes > 0
                        ? launch_without_running(grid, block)
                        : launch(kernel, grid, block, dynamic_lds, std::forward<Args>(args)...);
  runtime().last_counters = r.counters;
  runtime().accumulated.merge(r.counters);
  if (runtime().launch_logs > 0) runtime().logged.push_back(r.counters);
  if (r.error.empty()) {
    runtime().last_error_message.clear();
    return hipSuccess;
  }
  detail::write_stderr("wavekit emulator: " + r.error + "\n");
  return record(
      r.error.rfind("invalid launch configuration", 0) == 0 ? hipErrorInvalidConfiguration : hipErrorLaunchFailure,
      r.error);
}

// kernel<<<grid, block, shared_bytes, stream>>>(args) in emulator builds: the build's compiler
// launcher (tools/emu_chevron_launcher.py) rewrites it to chevron(kernel, grid, ...)(args).
template <class... Params>
struct chevron_launch {
  void (*kernel)(Params...);
  dim3 grid, block;
  std::size_t shared_bytes;
  hipStream_t stream;
  template <class... Args>
  void operator()(Args&&... args) const {
    (void)launch_kernel(kernel, grid, block, shared_bytes, stream, std::forward<Args>(args)...);
  }
};
template <class... Params>
chevron_launch<Params...> chevron(void (*kernel)(Params...), dim3 grid, dim3 block, std::size_t shared_bytes = 0,
                                  hipStream_t stream = nullptr) {
  return {kernel, grid, block, shared_bytes, stream};
}

}  // namespace wavekit::emu

inline const char* hipGetErrorString(hipError_t e) {
  switch (e) {
    case hipSuccess: return "hipSuccess";
    case hipErrorInvalidValue: return "hipErrorInvalidValue";
    case hipErrorOutOfMemory: return "hipErrorOutOfMemory";
    case hipErrorInvalidConfiguration: return "hipErrorInvalidConfiguration";
    case hipErrorInvalidDevicePointer: return "hipErrorInvalidDevicePointer";
    case hipErrorInvalidDevice: return "hipErrorInvalidDevice";
    case hipErrorLaunchFailure: return "hipErrorLaunchFailure";
  }
  return "unknown hipError_t";
}
inline const char* hipGetErrorName(hipError_t e) { return hipGetErrorString(e); }

inline hipError_t hipGetLastError() {
  const hipError_t e = wavekit::emu::runtime().last_error;
  wavekit::emu::runtime().last_error = hipSuccess;
  return e;
}
inline hipError_t hipPeekAtLastError() { return wavekit::emu::runtime().last_error; }

template <class T>
hipError_t hipMalloc(T** ptr, std::size_t bytes) {
  wavekit::emu::note_graph_unsafe("hipMalloc");
  if (!ptr) return wavekit::emu::record(hipErrorInvalidValue, "hipMalloc: null result pointer");
  try {
    *ptr = static_cast<T*>(wavekit::emu::guarded_allocate(
        bytes, wavekit::emu::region_kind::global, "a hipMalloc allocation of " + std::to_string(bytes) + " bytes"));
  } catch (const std::bad_alloc&) {
    return wavekit::emu::record(hipErrorOutOfMemory, "hipMalloc: out of memory");
  }
  return hipSuccess;
}
// Managed memory: the emulator's device memory is host memory already, so this is hipMalloc. Tests
// that write inputs and read results in place use it to run unchanged on a GPU.
inline constexpr unsigned hipMemAttachGlobal = 1;
template <class T>
hipError_t hipMallocManaged(T** ptr, std::size_t bytes, unsigned /*flags*/ = hipMemAttachGlobal) {
  return hipMalloc(ptr, bytes);
}
inline hipError_t hipFree(void* p) {
  wavekit::emu::note_graph_unsafe("hipFree");
  if (!p) return hipSuccess;
  if (wavekit::emu::guarded_free(p)) return hipSuccess;
  const wavekit::emu::region_record r = wavekit::emu::region_holding(reinterpret_cast<std::uintptr_t>(p));
  return wavekit::emu::record(hipErrorInvalidDevicePointer, r.freed && r.begin == reinterpret_cast<std::uintptr_t>(p)
                                                                ? "hipFree: " + r.what + " freed before (double free)"
                                                                : std::string("hipFree: not a device pointer"));
}
namespace wavekit::emu::detail {
inline hipError_t copy(void* dst, const void* src, std::size_t bytes) {
  if (bytes && (!dst || !src)) return wavekit::emu::record(hipErrorInvalidValue, "hipMemcpy: null pointer");
  if (bytes) std::memmove(dst, src, bytes);
  return hipSuccess;
}
inline hipError_t fill(void* dst, int value, std::size_t bytes) {
  if (bytes && !dst) return wavekit::emu::record(hipErrorInvalidValue, "hipMemset: null pointer");
  if (bytes) std::memset(dst, value, bytes);
  return hipSuccess;
}
}  // namespace wavekit::emu::detail
inline hipError_t hipMemcpy(void* dst, const void* src, std::size_t bytes, hipMemcpyKind) {
  wavekit::emu::note_graph_unsafe("hipMemcpy");
  return wavekit::emu::detail::copy(dst, src, bytes);
}
// Device-to-host (or direction-unknown) copies bring device data to the host: graph-unsafe.
inline hipError_t hipMemcpyAsync(void* dst, const void* src, std::size_t bytes, hipMemcpyKind kind,
                                 hipStream_t = nullptr) {
  if (kind == hipMemcpyDeviceToHost || kind == hipMemcpyDefault)
    wavekit::emu::note_graph_unsafe("hipMemcpyAsync to the host");
  return wavekit::emu::detail::copy(dst, src, bytes);
}
inline hipError_t hipMemset(void* dst, int value, std::size_t bytes) {
  wavekit::emu::note_graph_unsafe("hipMemset");
  return wavekit::emu::detail::fill(dst, value, bytes);
}
inline hipError_t hipMemsetAsync(void* dst, int value, std::size_t bytes, hipStream_t = nullptr) {
  return wavekit::emu::detail::fill(dst, value, bytes);
}
inline hipError_t hipDeviceSynchronize() {
  wavekit::emu::note_graph_unsafe("hipDeviceSynchronize");
  return hipSuccess;
}
inline hipError_t hipStreamCreate(hipStream_t* s) {
  *s = new wavekit_emu_stream;
  return hipSuccess;
}
inline hipError_t hipStreamDestroy(hipStream_t s) {
  delete s;
  return hipSuccess;
}
inline hipError_t hipStreamSynchronize(hipStream_t) {
  wavekit::emu::note_graph_unsafe("hipStreamSynchronize");
  return hipSuccess;
}
inline hipError_t hipEventCreate(hipEvent_t* e) {
  *e = new wavekit_emu_event;
  return hipSuccess;
}
inline hipError_t hipEventDestroy(hipEvent_t e) {
  delete e;
  return hipSuccess;
}
inline hipError_t hipEventRecord(hipEvent_t e, hipStream_t = nullptr) {
  e->when = std::chrono::steady_clock::now();
  return hipSuccess;
}
inline hipError_t hipEventSynchronize(hipEvent_t) {
  wavekit::emu::note_graph_unsafe("hipEventSynchronize");
  return hipSuccess;
}
inline hipError_t hipEventElapsedTime(float* ms, hipEvent_t start, hipEvent_t stop) {
  *ms = std::chrono::duration<float, std::milli>(stop->when - start->when).count();
  return hipSuccess;
}
inline hipError_t hipGetDeviceCount(int* count) {
  *count = 1;
  return hipSuccess;
}
inline hipError_t hipSetDevice(int device) {
  return device == 0 ? hipSuccess : wavekit::emu::record(hipErrorInvalidDevice, "hipSetDevice: one emulated device");
}
inline hipError_t hipGetDevice(int* device) {
  *device = 0;
  return hipSuccess;
}
inline hipError_t hipGetDeviceProperties(hipDeviceProp_t* p, int device) {
  if (device != 0) return wavekit::emu::record(hipErrorInvalidDevice, "hipGetDeviceProperties: one emulated device");
  std::memset(p, 0, sizeof *p);
  constexpr wavekit::arch::target target = wavekit::arch::current_target;
  constexpr const wavekit::arch::device_facts& facts = wavekit::arch::facts_of<target>;
  std::snprintf(p->name, sizeof p->name, "wavekit emulator (%s, %s)", facts.product, wavekit::arch::to_string(target));
  std::snprintf(p->gcnArchName, sizeof p->gcnArchName, "%s:sramecc+:xnack-", wavekit::arch::to_string(target));
  p->totalGlobalMem = std::size_t(1) << 34;
  p->sharedMemPerBlock = wavekit::emu::target_lds_bytes;
  p->warpSize = 64;
  p->maxThreadsPerBlock = 1024;
  p->multiProcessorCount = facts.compute_units;
  p->clockRate = static_cast<int>(std::lround(facts.clock_ghz * 1e6));  // kHz
  p->major = 9;
  p->minor = 4;
  return hipSuccess;
}
