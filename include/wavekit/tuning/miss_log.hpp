// The tuning-miss log: with WAVEKIT_LOG_TUNING_MISSES set (non-empty, not "0"), each problem whose
// key no table holds prints one line to stderr, the first time only (one line, wrapped here):
//
//   wavekit-tuning-miss op=gemm_half arch=gfx942 cus=304 dtypes=bf16,bf16,bf16 layout=k_contiguous
//     m_bucket=64 n=4096 k=4096 e_local=0 top_k=0 model=decode,4
//
// The fields are the table's columns and model= the plan the op chose without a table, so a user
// can collect a workload's misses, tune them (tools/tuner) or paste the model's choice into a
// table. Once per key and process: a serving loop calls the same shapes millions of times.
#pragma once

#include <cstdio>
#include <functional>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <utility>

#include "wavekit/tuning/key.hpp"

namespace wavekit::tuning {

inline constexpr const char* miss_log_variable = "WAVEKIT_LOG_TUNING_MISSES";

// Whether the variable's value asks for the log: set, non-empty and not "0".
inline bool miss_logging_requested(const char* variable_value) {
  return variable_value && *variable_value && std::string_view(variable_value) != "0";
}

// The line of a miss, without its newline.
inline std::string miss_line(const key& k, const value& model) {
  return "wavekit-tuning-miss " + to_string(k) + " model=" + to_string(model);
}

class miss_log {
 public:
  using sink = std::function<void(const std::string& line)>;  // a line without its newline

  static void to_stderr(const std::string& line) {
    std::fprintf(stderr, "%s\n", line.c_str());
    std::fflush(stderr);
  }

  // A null sink logs nothing.
  explicit miss_log(sink s = {}) : sink_(std::move(s)) {}

  void set_sink(sink s) {
    std::lock_guard lock(mutex_);
    sink_ = std::move(s);
  }
  bool enabled() const {
    std::lock_guard lock(mutex_);
    return bool(sink_);
  }

  // Logs a miss of k unless it was logged before; the model's choice (model(), a tuning::value) is
  // asked only for a line that prints, so a disabled log costs one lock.
  template <class Model>
  void record(const key& k, Model&& model) {
    sink s;
    {
      std::lock_guard lock(mutex_);
      if (!sink_ || !logged_.insert(k).second) return;
      s = sink_;
    }
    s(miss_line(k, std::forward<Model>(model)()));
  }

 private:
  mutable std::mutex mutex_;
  sink sink_;
  std::set<key> logged_;
};

}  // namespace wavekit::tuning
