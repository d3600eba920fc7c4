// Routing ids as a router gives them, seeded: the tests', the benchmarks' and the performance
// report's (tools/perf_model) MoE layers route the same tokens. Plain C++.
#pragma once

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

namespace wavekit::test {

// top_k distinct experts of `experts` per token, as a router gives them (seeded).
inline std::vector<int> random_ids(int tokens, int top_k, int experts, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<int> all(experts), ids;
  std::iota(all.begin(), all.end(), 0);
  for (int t = 0; t < tokens; ++t) {
    std::shuffle(all.begin(), all.end(), rng);
    ids.insert(ids.end(), all.begin(), all.begin() + top_k);
  }
  return ids;
}

// top_k of `routed` experts per token, then the shared expert (id routed): top_k + 1 ids a token.
inline std::vector<int> random_ids_with_shared(int tokens, int top_k, int routed, std::uint32_t seed) {
  const std::vector<int> chosen = random_ids(tokens, top_k, routed, seed);
  std::vector<int> ids;
  for (int t = 0; t < tokens; ++t) {
    ids.insert(ids.end(), chosen.begin() + std::size_t(t) * top_k, chosen.begin() + std::size_t(t + 1) * top_k);
    ids.push_back(routed);
  }
  return ids;
}

}  // namespace wavekit::test
