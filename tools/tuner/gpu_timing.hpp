// The tuner's GPU side (HIP): operands in device memory and the time of each candidate plan's
// launch, as bench/ times calls: hipEvents around one call, L2 and the MALL flushed before it by a
// 512 MiB memset. A plan's time is the median of its timed calls. Each op's time_plans lives in its
// own translation unit (time_<op>.cpp): each instantiates every kernel of its op, and one unit
// holding them all would be the build's slowest.
#pragma once

#include <hip/hip_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "tuner/op_cases.hpp"
#include "wavekit/core/result.hpp"
#include "wavekit/core/status.hpp"

namespace wavekit::tuner {

// Each op's candidates are timed by its case's time_plans (op_cases.hpp declares it; the op's
// time_<op>.cpp defines it): on the current device (of target t) with the element types `dtypes`
// names (one of the case's dtypes(t)), in the candidates' order; a candidate that fails to launch
// fails the whole shape with its status (the candidates are the model's own: a refusal is a bug to
// see, not a plan to skip). The helpers below are what those files share.

namespace gpu {

inline status hip_status(hipError_t e, const char* what) {
  if (e == hipSuccess) return status::success();
  return {status_code::launch_failed, std::string(what) + ": " + hipGetErrorString(e)};
}

// Device memory of `bytes` bytes: zeros, or byte i set to fill(i) for operands, whose values are
// finite and not all zero (a GPU draws less power on zeros and would time faster than on real data).
class buffer {
 public:
  // Zeros, set on the device (the flush buffer is 512 MiB: no host copy of it).
  explicit buffer(std::size_t bytes) : bytes_(bytes) {
    if (bytes == 0) return;
    if (hipMalloc(&ptr_, bytes) != hipSuccess) {
      ptr_ = nullptr;
      return;
    }
    if (hipMemset(ptr_, 0, bytes) != hipSuccess) release();
  }
  template <class Fill>
  buffer(std::size_t bytes, Fill&& fill) : bytes_(bytes) {
    if (bytes == 0) return;
    if (hipMalloc(&ptr_, bytes) != hipSuccess) {
      ptr_ = nullptr;
      return;
    }
    std::vector<std::uint8_t> host(bytes);
    for (std::size_t i = 0; i < bytes; ++i) host[i] = fill(i);
    if (hipMemcpy(ptr_, host.data(), bytes, hipMemcpyHostToDevice) != hipSuccess) release();
  }
  buffer(const buffer&) = delete;
  buffer& operator=(const buffer&) = delete;
  ~buffer() { release(); }

  bool ok() const { return bytes_ == 0 || ptr_ != nullptr; }
  template <class T>
  T* as() const {
    return static_cast<T*>(ptr_);
  }
  std::size_t bytes() const { return bytes_; }

 private:
  void release() {
    if (ptr_) (void)hipFree(ptr_);
    ptr_ = nullptr;
  }
  void* ptr_ = nullptr;
  std::size_t bytes_;
};

// Byte patterns of finite operand values: fp8 0x30..0x3f (0.25 to 1 in e4m3 and e4m3fnuz), fp4
// pairs (every code is finite), e8m0 127 (1.0), and little-endian 16- and 32-bit values near 1.
inline std::uint8_t fp8_byte(std::size_t i) { return std::uint8_t(0x30 + (i * 7) % 16); }
inline std::uint8_t fp4x2_byte(std::size_t i) { return std::uint8_t((i * 37) % 256); }
inline std::uint8_t e8m0_byte(std::size_t) { return 127; }
inline std::uint8_t bf16_byte(std::size_t i) { return i % 2 ? 0x3f : std::uint8_t((i * 13) % 128); }  // 0.5..1
inline std::uint8_t fp32_one_byte(std::size_t i) {
  constexpr std::uint8_t one[4] = {0x00, 0x00, 0x80, 0x3f};  // 1.0f
  return one[i % 4];
}

inline constexpr int warmup_calls = 3, timed_calls = 20;

// Seconds of one call of launch() (a status-returning launch on the null stream): the median of
// timed_calls, each after a flush, after warmup_calls untimed ones.
template <class Launch>
result<double> time_launch(Launch&& launch) {
  static buffer flush(std::size_t(512) << 20);
  if (!flush.ok()) return status{status_code::launch_failed, "tuner: cannot allocate the 512 MiB cache flush"};
  hipEvent_t start, stop;
  if (status s = hip_status(hipEventCreate(&start), "hipEventCreate"); !s.ok()) return s;
  if (status s = hip_status(hipEventCreate(&stop), "hipEventCreate"); !s.ok()) return s;
  std::vector<double> seconds;
  status failed;
  for (int call = 0; call < warmup_calls + timed_calls && failed.ok(); ++call) {
    (void)hipMemsetAsync(flush.as<void>(), 0, flush.bytes(), nullptr);
    (void)hipEventRecord(start, nullptr);
    failed = launch();
    (void)hipEventRecord(stop, nullptr);
    if (failed.ok()) failed = hip_status(hipEventSynchronize(stop), "hipEventSynchronize");
    float ms = 0;
    if (failed.ok()) failed = hip_status(hipEventElapsedTime(&ms, start, stop), "hipEventElapsedTime");
    if (call >= warmup_calls) seconds.push_back(ms * 1e-3);
  }
  (void)hipEventDestroy(start), (void)hipEventDestroy(stop);
  if (!failed.ok()) return failed;
  std::nth_element(seconds.begin(), seconds.begin() + seconds.size() / 2, seconds.end());
  return seconds[seconds.size() / 2];
}

// Each plan's time with launch(plan), in order; the first failure names its plan.
template <class Plan, class Launch, class Name>
result<std::vector<double>> time_each(const std::vector<Plan>& plans, Launch&& launch, Name&& name) {
  std::vector<double> times;
  for (const Plan& pl : plans) {
    result<double> t = time_launch([&] { return launch(pl); });
    if (!t) return status{t.error().code(), name(pl) + ": " + t.error().message()};
    times.push_back(t.value());
  }
  return times;
}

// The workspace the plans need at most (split-K partials).
template <class Plan, class Bytes>
std::size_t largest_workspace(const std::vector<Plan>& plans, Bytes&& bytes_of) {
  std::size_t most = 0;
  for (const Plan& pl : plans) most = std::max(most, bytes_of(pl.splits));
  return most;
}

}  // namespace gpu
}  // namespace wavekit::tuner
