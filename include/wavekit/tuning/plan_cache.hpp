// Each plan query's answer kept for the process (plain C++, no HIP): a one-call API asks for the
// same problem's plan on every call, and the model's search over an op's configs and K splits
// costs microseconds of host time (bench/bench_plan_query), the table lookup a fraction of one.
// A query is the text of everything its answer depends on (op, target, element types, the
// problem's fields, the workspace); merging a table clears what was kept, since a tuned entry may
// change an answer. The cache holds at most `capacity` queries and starts over when full (a
// serving process asks few shapes; a sweep over M must not grow it without bound). Lookups take a
// shared lock, insertions an exclusive one.
//
//   static tuning::plan_cache<plan> cache;
//   return cache.get(tuning::query_text("gemm_half", t, dtypes, workspace, {p.m, p.n, p.k, int(p.order)}),
//                    [&] { return tuned_or_model(...); });
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "wavekit/arch/target.hpp"
#include "wavekit/tuning/registry.hpp"

namespace wavekit::tuning {

// The text of a query: its op, target, element types, workspace and the problem's fields (enums
// as their values).
inline std::string query_text(std::string_view op, arch::target t, std::string_view dtypes, std::size_t workspace,
                              std::initializer_list<long long> fields) {
  std::string q(op);
  q += ' ';
  q += arch::to_string(t);
  q += ' ';
  q += dtypes;
  q += ' ';
  q += std::to_string(workspace);
  for (long long f : fields) q += ' ' + std::to_string(f);
  return q;
}

template <class Plan>
class plan_cache {
 public:
  static constexpr std::size_t capacity = 4096;

  // The plan kept for `query`, or compute()'s, kept from now on.
  template <class Compute>
  Plan get(const std::string& query, Compute&& compute) {
    const std::uint64_t generation = tables_generation();
    {
      std::shared_lock lock(mutex_);
      if (generation == generation_)
        if (const auto it = plans_.find(query); it != plans_.end()) return it->second;
    }
    const Plan plan = compute();
    std::unique_lock lock(mutex_);
    if (generation != generation_ || plans_.size() >= capacity) {
      plans_.clear();
      generation_ = generation;
    }
    plans_.insert_or_assign(query, plan);
    return plan;
  }

 private:
  std::shared_mutex mutex_;
  std::uint64_t generation_ = 0;
  std::unordered_map<std::string, Plan> plans_;
};

}  // namespace wavekit::tuning
