// The tuning-miss log: with WAVEKIT_LOG_TUNING_MISSES set (non-empty, not "0"), each problem whose
// key no table holds prints one line to stderr, the first time only (one line, wrapped here):
//
//   wavekit-tuning-miss op=gemm_half arch=gfx942 cus=304 dtypes=bf16,bf16,bf16 layout=k_contiguous
//     m_bucket=64 n=4096 k=4096 e_local=0 top_k=0 model=decode,4
//
// The fields are the table's columns and model= the plan the op chose without a table, so a user
// can collect a workload's misses, tune them (tools/tuner) or paste the model's choice into a
// table. Once per key and process: a serving loop calls the same shapes millions of times.
//
// Its sibling, the unusable-entry log (planning/tuned_or_model.hpp), is the same class printing
// unusable_line()s. Each remembers the keys it logged, at most `capacity` of them (4096 by default,
// far more than the shapes of a deployment): the key past the cap prints one last line saying the
// log is full and every later new key prints nothing, so a sweep over shapes cannot grow the set
// without bound, and no key ever prints twice.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <cstddef>
#include <cstdio>
#include <functional>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <utility>

#include "wavekit/planning/tables/key.hpp"

namespace wavekit::planning {

inline constexpr const char* miss_log_variable = "WAVEKIT_LOG_TUNING_MISSES";

// Whether the variable's value asks for the log: set, non-empty and not "0".
inline bool miss_logging_requested(const char* variable_value) {
  return variable_value && *variable_value && std::string_view(variable_value) != "0";
}

// The line of a miss, without its newline.
inline std::string miss_line(const key& k, const value& model) {
  return "wavekit-tuning-miss " + to_string(k) + " model=" + to_string(model);
}

// The line of a table entry the op cannot run for the call (so the model's plan ran), without its
// newline: `reason` is the op's status (the splits rule, a config that is not the op's).
inline std::string unusable_line(const key& k, const value& tuned, const value& model, const std::string& reason) {
  return "wavekit-tuning-unusable " + to_string(k) + " tuned=" + to_string(tuned) + " model=" + to_string(model) +
         ": " + reason;
}

class miss_log {
 public:
  using sink = std::function<void(const std::string& line)>;  // a line without its newline
  static constexpr std::size_t default_capacity = 4096;

  static void to_stderr(const std::string& line) {
    std::fprintf(stderr, "%s\n", line.c_str());
    std::fflush(stderr);
  }

  // A null sink logs nothing. `kind` begins the line that says the log is full.
  explicit miss_log(sink s = {}, std::size_t capacity = default_capacity, std::string kind = "wavekit-tuning-miss")
      : sink_(std::move(s)), capacity_(capacity), kind_(std::move(kind)) {}

  void set_sink(sink s) {
    std::lock_guard lock(mutex_);
    sink_ = std::move(s);
  }
  bool enabled() const {
    std::lock_guard lock(mutex_);
    return bool(sink_);
  }

  // Logs a miss of k unless it was logged before; the model's choice (model(), a planning::value) is
  // asked only for a line that prints, so a disabled log costs one lock.
  template <class Model>
  void record(const key& k, Model&& model) {
    record_line(k, [&] { return miss_line(k, std::forward<Model>(model)()); });
  }

  // Logs line() (a std::string, asked only when it prints) unless k was logged before.
  template <class Line>
  void record_line(const key& k, Line&& line) {
    sink s;
    bool full = false;
    {
      std::lock_guard lock(mutex_);
      if (!sink_ || full_ || logged_.count(k)) return;
      full = full_ = logged_.size() >= capacity_;
      if (!full) logged_.insert(k);
      s = sink_;
    }
    if (full)
      s(kind_ + " log full: " + std::to_string(capacity_) + " keys logged; later keys print nothing");
    else
      s(std::forward<Line>(line)());
  }

 private:
  mutable std::mutex mutex_;
  sink sink_;
  std::size_t capacity_;
  std::string kind_;
  bool full_ = false;
  std::set<key> logged_;
};

}  // namespace wavekit::planning
