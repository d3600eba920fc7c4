// Each plan query's answer kept for the process (plain C++, no HIP): a one-call API asks for the
// same problem's plan on every call, and the model's search over an op's configs and K splits
// costs microseconds of host time (bench/bench_plan_query), the table lookup a fraction of one.
// A query is everything its answer depends on (op, target, element types, the workspace, the
// problem's fields), kept as numbers and short text: a warm lookup formats nothing, it hashes and
// compares (docs/host-cost.md). Merging a table clears what was kept, since a tuned entry may
// change an answer. The cache holds at most `capacity` queries and starts over when full (a
// serving process asks few shapes; a sweep over M must not grow it without bound). Lookups take a
// shared lock, insertions an exclusive one.
//
//   static planning::plan_cache<plan> cache;
//   return cache.get(planning::query("gemm_half", t, dtypes, workspace, {p.m, p.n, p.k, int(p.order)}),
//                    [&] { return tuned_or_model(...); });
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "wavekit/arch/target.hpp"
#include "wavekit/planning/tables/registry.hpp"

namespace wavekit::planning {

// A plan query: its op, target, element types, workspace and the problem's fields (enums as their
// values), at most max_fields of them.
class query {
 public:
  static constexpr std::size_t max_fields = 12;

  query(std::string_view op, arch::target t, std::string_view dtypes, std::size_t workspace,
        std::initializer_list<long long> fields)
      : op_(op), target_(t), dtypes_(dtypes), workspace_(workspace), count_(fields.size()) {
    if (fields.size() > max_fields) {
      std::fprintf(stderr, "wavekit: planning::query holds at most %zu fields\n", max_fields);
      std::abort();
    }
    std::copy(fields.begin(), fields.end(), fields_.begin());
  }

  bool operator==(const query&) const = default;

  // FNV-1a over the fields' bytes.
  std::size_t hash() const noexcept {
    std::uint64_t h = 1469598103934665603ull;
    auto mix = [&h](const void* data, std::size_t bytes) {
      for (std::size_t i = 0; i < bytes; ++i) h = (h ^ static_cast<const unsigned char*>(data)[i]) * 1099511628211ull;
    };
    mix(op_.data(), op_.size());
    mix(&target_, sizeof target_);
    mix(dtypes_.data(), dtypes_.size());
    mix(&workspace_, sizeof workspace_);
    mix(fields_.data(), count_ * sizeof(long long));
    return static_cast<std::size_t>(h);
  }

  // The query as text, for people ("gemm_half gfx942 bf16,bf16 0 16 7168 2048 0").
  std::string str() const {
    std::string q(op_);
    q.append(" ").append(arch::to_string(target_)).append(" ").append(dtypes_).append(" ");
    q += std::to_string(workspace_);
    for (std::size_t i = 0; i < count_; ++i) q += ' ' + std::to_string(fields_[i]);
    return q;
  }

 private:
  std::string_view op_;  // an op's tuning_op: a literal, static storage
  arch::target target_;
  std::string dtypes_;  // tuning_dtypes' few characters: in the string's own buffer
  std::size_t workspace_;
  std::array<long long, max_fields> fields_{};
  std::size_t count_;
};

struct query_hash {
  std::size_t operator()(const query& q) const noexcept { return q.hash(); }
};

template <class Plan>
class plan_cache {
 public:
  static constexpr std::size_t capacity = 4096;

  // The plan kept for `q`, or compute()'s, kept from now on.
  template <class Compute>
  Plan get(const query& q, Compute&& compute) {
    const std::uint64_t generation = tables_generation();
    {
      std::shared_lock lock(mutex_);
      if (generation == generation_)
        if (const auto it = plans_.find(q); it != plans_.end()) return it->second;
    }
    const Plan plan = compute();
    std::unique_lock lock(mutex_);
    if (generation != generation_ || plans_.size() >= capacity) {
      plans_.clear();
      generation_ = generation;
    }
    plans_.insert_or_assign(q, plan);
    return plan;
  }

 private:
  std::shared_mutex mutex_;
  std::uint64_t generation_ = 0;
  std::unordered_map<query, Plan, query_hash> plans_;
};

}  // namespace wavekit::planning
