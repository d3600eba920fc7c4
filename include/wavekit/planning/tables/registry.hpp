// Tuned tables merged into one lookup (plain C++, no HIP). The process's registry is built on first
// use: the shipped tables (tuning/*.txt, embedded by planning/tables/shipped_tables.hpp) first, then the
// files named in WAVEKIT_TUNING_FILES (':' separated, in order), then whatever load_file adds. An
// entry whose key is already there replaces it; every other entry stays. So a user table holds
// only the shapes its author measured, and a later file wins over an earlier one.
//
//   namespace planning = wavekit::planning;
//   if (wavekit::status s = planning::load_file("mi300x.txt"); !s) std::puts(s.message().c_str());
//   std::optional<planning::value> v = planning::find(key, [&] { return model_choice; });
//
// A table with a bad line is used not at all (its status names each file:line and rule): a file
// named in the environment that fails prints that status to stderr once and is skipped, and
// environment_tables_status() returns it. Lookups take a shared lock; loads an exclusive one.
// The tables know no op's configs (planning/ includes no op), so an entry naming a config its op
// lacks, or splits its problem cannot take, still replaces the earlier entry of its key: the op's
// plan query then runs the model's plan and prints a wavekit-tuning-unusable line to stderr, once
// per key (tuned_or_model.hpp; set_unusable_sink sends the lines elsewhere).
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "wavekit/core/result.hpp"
#include "wavekit/core/status.hpp"
#include "wavekit/planning/tables/key.hpp"
#include "wavekit/planning/tables/miss_log.hpp"
#include "wavekit/planning/tables/shipped_tables.hpp"
#include "wavekit/planning/tables/table_text.hpp"

namespace wavekit::planning {

inline constexpr const char* tables_variable = "WAVEKIT_TUNING_FILES";

class registry {
 public:
  registry() = default;
  registry(const registry& other) {
    std::shared_lock lock(other.mutex_);
    entries_ = other.entries_;
    generation_.store(other.generation());
  }
  registry& operator=(const registry&) = delete;

  // Each entry replaces the one of its key, if any.
  void merge(const std::vector<entry>& entries) {
    std::unique_lock lock(mutex_);
    for (const entry& e : entries) entries_.insert_or_assign(e.key, e.value);
    generation_.fetch_add(1, std::memory_order_release);
  }
  // How many merges the tables have seen: a kept plan is stale once this moves (plan_cache.hpp).
  std::uint64_t generation() const { return generation_.load(std::memory_order_acquire); }
  // A table's text or file merged whole, or its status and nothing merged.
  status merge_text(std::string_view text, const std::string& source) {
    result<std::vector<entry>> table = parse_table(text, source);
    if (!table) return table.error();
    merge(table.value());
    return status::success();
  }
  status merge_file(const std::string& path) {
    result<std::vector<entry>> table = read_table_file(path);
    if (!table) return table.error();
    merge(table.value());
    return status::success();
  }

  std::optional<value> find(const key& k) const {
    std::shared_lock lock(mutex_);
    const auto it = entries_.find(k);
    if (it == entries_.end()) return std::nullopt;
    return it->second;
  }
  // Every entry, ordered by key.
  std::vector<entry> entries() const {
    std::shared_lock lock(mutex_);
    std::vector<entry> all;
    for (const auto& [k, v] : entries_) all.push_back({k, v});
    return all;
  }

 private:
  mutable std::shared_mutex mutex_;
  std::map<key, value> entries_;
  std::atomic<std::uint64_t> generation_{0};
};

// The parts of a ':'-separated path list, empty ones skipped ("a.txt::b.txt" is two files).
inline std::vector<std::string> split_path_list(std::string_view list) {
  std::vector<std::string> paths;
  std::size_t at = 0;
  while (at <= list.size()) {
    std::size_t end = list.find(':', at);
    if (end == std::string_view::npos) end = list.size();
    if (end > at) paths.emplace_back(list.substr(at, end - at));
    at = end + 1;
  }
  return paths;
}

namespace detail {

// The process's tables and miss log, built by the first call that needs them (a function-local
// static: thread-safe construction).
struct process_tables {
  registry tables;
  miss_log misses;
  // Always on: an entry the op cannot run is a mistake in a table, printed like a bad table file.
  miss_log unusable{miss_log::to_stderr, miss_log::default_capacity, "wavekit-tuning-unusable"};
  status environment;  // the first failure among WAVEKIT_TUNING_FILES's files, or success

  process_tables() {
    for (const shipped_table& t : shipped_tables)
      if (status s = tables.merge_text(t.text, t.source); !s.ok())
        std::fprintf(stderr, "wavekit: shipped tuning table not used: %s\n", s.message().c_str());
    if (const char* list = std::getenv(tables_variable))
      for (const std::string& path : split_path_list(list))
        if (status s = tables.merge_file(path); !s.ok()) {
          std::fprintf(stderr, "wavekit: %s: table not used: %s\n", tables_variable, s.message().c_str());
          if (environment.ok()) environment = s;
        }
    if (miss_logging_requested(std::getenv(miss_log_variable))) misses.set_sink(miss_log::to_stderr);
  }
};

inline process_tables& process() {
  static process_tables tables;
  return tables;
}

}  // namespace detail

// The tuned value of k in the process's tables.
inline std::optional<value> find(const key& k) { return detail::process().tables.find(k); }

// The same, and on a miss the miss log's line for k (when logging is on), with the model's choice
// `model()` (a planning::value, asked only when the line prints). What an op's plan query calls.
template <class Model>
std::optional<value> find(const key& k, Model&& model) {
  detail::process_tables& p = detail::process();
  std::optional<value> v = p.tables.find(k);
  if (!v) p.misses.record(k, std::forward<Model>(model));
  return v;
}

// Logs, once per key, that the tables' value `tuned` for k cannot run the call (`reason`: the op's
// status) and the model's plan (model(), a planning::value) ran instead. What tuned_or_model calls.
template <class Model>
void record_unusable(const key& k, const value& tuned, const std::string& reason, Model&& model) {
  detail::process().unusable.record_line(k,
                                         [&] { return unusable_line(k, tuned, std::forward<Model>(model)(), reason); });
}

// Merges a table file over the process's tables; a bad file merges nothing and returns its status.
inline status load_file(const std::string& path) { return detail::process().tables.merge_file(path); }

// The first failure among the files WAVEKIT_TUNING_FILES named (success when all merged).
inline const status& environment_tables_status() { return detail::process().environment; }

// How many merges the process's tables have seen (the shipped tables' and the environment's
// included): plan caches start over when it moves.
inline std::uint64_t tables_generation() { return detail::process().tables.generation(); }

// Every entry the process's tables hold now, ordered by key.
inline std::vector<entry> entries() { return detail::process().tables.entries(); }

// Where miss lines go from now on, whatever WAVEKIT_LOG_TUNING_MISSES says: a program's own log,
// or a test's capture; a null sink turns the log off. Keys already logged stay logged.
inline void set_miss_sink(miss_log::sink s) { detail::process().misses.set_sink(std::move(s)); }

// Where unusable-entry lines go from now on (stderr until then); a null sink turns them off.
inline void set_unusable_sink(miss_log::sink s) { detail::process().unusable.set_sink(std::move(s)); }

}  // namespace wavekit::planning
