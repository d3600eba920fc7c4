// The MoE token sort (ops/moe/sort_kernel.hpp) against the layout ops/moe/sort.hpp defines,
// recomputed here on the host: experts with no slots, every slot to one expert, k = 1, a local
// expert range (expert parallelism), ids outside [0, experts), tile sizes 16 to 256, a
// seeded random sweep; the same list on every run; no host synchronisation inside the call
// (graph_safety.hpp); every bad input's status before any launch.
#include <hip/hip_runtime.h>
#include <catch2/catch.hpp>

#include <algorithm>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "support/graph_safety.hpp"
#include "wavekit/core/math.hpp"
#include "wavekit/ops/moe/sort_kernel.hpp"

using namespace wavekit;
namespace moe = wavekit::ops::moe;

namespace {

struct sorted_layout {
  std::vector<int> counts, offsets, sorted_slots, sorted_tokens, row_index, tile_expert, inverse;
  int invalid_ids = 0;
  bool operator==(const sorted_layout&) const = default;
};

// The layout by its definition (ops/moe/sort.hpp).
sorted_layout expected_layout(const moe::sort_problem& p, const std::vector<int>& ids) {
  const moe::sort_capacity cap = moe::capacity(p);
  sorted_layout l;
  l.counts.assign(p.local_experts, 0);
  l.inverse.assign(ids.size(), -1);
  l.sorted_slots.assign(cap.rows, -1);
  l.sorted_tokens.assign(cap.rows, -1);
  l.row_index.assign(cap.rows, -1);
  l.tile_expert.assign(cap.tiles, -1);
  for (int id : ids) {
    if (id < 0 || id >= p.experts) ++l.invalid_ids;
    if (id >= p.expert_begin && id < p.expert_begin + p.local_experts) ++l.counts[id - p.expert_begin];
  }
  int at = 0;
  for (int e = 0; e < p.local_experts; ++e) {
    l.offsets.push_back(at);
    int row = at;
    for (std::size_t s = 0; s < ids.size(); ++s)
      if (ids[s] == p.expert_begin + e)
        l.sorted_slots[row] = int(s), l.sorted_tokens[row] = int(s) / p.top_k, l.row_index[row] = row,
        l.inverse[s] = row, ++row;
    const int end = at + ceil_div(l.counts[e], p.tile_m) * p.tile_m;
    for (int t = at / p.tile_m; t < end / p.tile_m; ++t) l.tile_expert[t] = e;
    at = end;
  }
  l.offsets.push_back(at);
  return l;
}

template <class T>
std::vector<T> download(const T* p, std::size_t n) {
  std::vector<T> v(n);
  hipMemcpy(v.data(), p, n * sizeof(T), hipMemcpyDeviceToHost);
  return v;
}

struct sort_run {
  moe::sort_problem p;
  moe::sort_capacity cap;
  int* ids = nullptr;
  moe::sort_outputs out;

  sort_run(const moe::sort_problem& problem, const std::vector<int>& host_ids) : p(problem), cap(moe::capacity(p)) {
    auto alloc = [](int*& q, std::size_t n) {
      hipMalloc(&q, std::max<std::size_t>(n, 1) * sizeof(int));
      hipMemset(q, 0x7f, std::max<std::size_t>(n, 1) * sizeof(int));  // garbage where nothing is written
    };
    alloc(ids, host_ids.size());
    hipMemcpy(ids, host_ids.data(), host_ids.size() * sizeof(int), hipMemcpyHostToDevice);
    alloc(out.counts, p.local_experts), alloc(out.offsets, p.local_experts + 1);
    alloc(out.sorted_slots, cap.rows), alloc(out.sorted_tokens, cap.rows), alloc(out.row_index, cap.rows);
    alloc(out.tile_expert, cap.tiles);
    alloc(out.inverse, host_ids.size()), alloc(out.invalid_ids, 1);
  }
  ~sort_run() {
    for (int* q : {ids, out.counts, out.offsets, out.sorted_slots, out.sorted_tokens, out.row_index, out.tile_expert,
                   out.inverse, out.invalid_ids})
      hipFree(q);
  }
  sort_run(const sort_run&) = delete;
  sort_run& operator=(const sort_run&) = delete;

  sorted_layout run() {
    status s;
    const auto unsafe = test::graph_unsafe_calls_of([&](hipStream_t stream) { s = moe::sort(p, ids, out, stream); });
    INFO(p.str() << ": " << s.message());
    REQUIRE(s.ok());
    CHECK(unsafe.empty());
    REQUIRE(hipDeviceSynchronize() == hipSuccess);
    const std::size_t slots = std::size_t(p.tokens) * p.top_k;
    sorted_layout l{download(out.counts, p.local_experts), download(out.offsets, p.local_experts + 1),
                    download(out.sorted_slots, cap.rows),  download(out.sorted_tokens, cap.rows),
                    download(out.row_index, cap.rows),     download(out.tile_expert, cap.tiles),
                    download(out.inverse, slots)};
    l.invalid_ids = download(out.invalid_ids, 1)[0];
    return l;
  }
};

void check_sort(const moe::sort_problem& p, const std::vector<int>& ids) {
  sort_run r(p, ids);
  const sorted_layout want = expected_layout(p, ids), got = r.run();
  INFO(p.str());
  CHECK(got.counts == want.counts);
  CHECK(got.offsets == want.offsets);
  CHECK(got.sorted_slots == want.sorted_slots);
  CHECK(got.sorted_tokens == want.sorted_tokens);
  CHECK(got.row_index == want.row_index);
  CHECK(got.tile_expert == want.tile_expert);
  CHECK(got.inverse == want.inverse);
  CHECK(got.invalid_ids == want.invalid_ids);
  CHECK(r.run() == got);  // the same list again
}

std::vector<int> random_ids(int tokens, int top_k, int experts, std::mt19937& rng) {
  std::vector<int> ids;
  std::vector<int> all(experts);
  for (int e = 0; e < experts; ++e) all[e] = e;
  for (int t = 0; t < tokens; ++t) {
    std::shuffle(all.begin(), all.end(), rng);  // distinct experts per token, as a router gives
    ids.insert(ids.end(), all.begin(), all.begin() + top_k);
  }
  return ids;
}

}  // namespace

TEST_CASE("moe sort: the layout by its definition, on the device without host synchronisation", "[emu][moe]") {
  std::mt19937 rng(17);
  // Decode-size DeepSeek routing (8 + shared of 257), prefill-size, and tile sizes 16..256.
  check_sort({16, 9, 257, 0, 257, 32}, random_ids(16, 9, 257, rng));
  check_sort({512, 4, 8, 0, 8, 128}, random_ids(512, 4, 8, rng));
  check_sort({300, 6, 64, 0, 64, 16}, random_ids(300, 6, 64, rng));
  check_sort({37, 2, 5, 0, 5, 256}, random_ids(37, 2, 5, rng));
  // k = 1; experts with no slots; every slot to one expert.
  check_sort({100, 1, 32, 0, 32, 64}, std::vector<int>(100, 7));
  check_sort({65, 3, 3, 0, 3, 16}, random_ids(65, 3, 3, rng));
  // Expert parallelism: only [e0, e0 + local) is sorted here, the rest goes nowhere.
  check_sort({64, 8, 256, 96, 32, 32}, random_ids(64, 8, 256, rng));
  check_sort({64, 8, 256, 224, 32, 32}, random_ids(64, 8, 256, rng));
  // Ids outside [0, experts) are counted and go nowhere.
  std::vector<int> bad = random_ids(20, 4, 16, rng);
  bad[3] = -1, bad[17] = 16, bad[40] = 1 << 30;
  check_sort({20, 4, 16, 0, 16, 16}, bad);
  // No tokens: empty lists, zero offsets.
  check_sort({0, 4, 16, 0, 16, 32}, {});
}

TEST_CASE("moe sort: a seeded random sweep over legal shapes", "[emu][moe]") {
  std::mt19937 rng(2024);
  for (int trial = 0; trial < 12; ++trial) {
    const int experts = std::uniform_int_distribution<int>(1, 300)(rng);
    const int top_k = std::uniform_int_distribution<int>(1, std::min(9, experts))(rng);
    const int tokens = std::uniform_int_distribution<int>(0, 200)(rng);
    const int local = std::uniform_int_distribution<int>(1, experts)(rng);
    const int begin = std::uniform_int_distribution<int>(0, experts - local)(rng);
    const int tile_m = 16 << std::uniform_int_distribution<int>(0, 4)(rng);
    check_sort({tokens, top_k, experts, begin, local, tile_m}, random_ids(tokens, top_k, experts, rng));
  }
}

TEST_CASE("moe sort: every bad input gets its status before any launch", "[emu][moe]") {
  const moe::sort_problem p{16, 4, 32, 0, 32, 32};
  sort_run r(p, std::vector<int>(64, 0));
  auto status_of = [&](moe::sort_problem q, moe::sort_outputs o) { return moe::sort(q, r.ids, o, nullptr); };
  CHECK(status_of(p, r.out).ok());
  CHECK(status_of({16, 4, 32, 0, 32, 24}, r.out).message() ==
        "moe sort 16 tokens x top 4, experts [0, 32) of 32, tile 24: tile_m must be a multiple of 16 in [16, 256]");
  CHECK(status_of({16, 4, 32, 8, 32, 32}, r.out).message() ==
        "moe sort 16 tokens x top 4, experts [8, 40) of 32, tile 32: the local experts [expert_begin, expert_begin + "
        "local_experts) must lie in [0, experts)");
  // The range's end in 64 bits: an expert_begin near INT_MAX does not wrap into [0, experts).
  const int near_max = std::numeric_limits<int>::max() - 1;
  CHECK(status_of({16, 4, 32, near_max, 32, 32}, r.out).message() ==
        "moe sort 16 tokens x top 4, experts [2147483646, 2147483678) of 32, tile 32: the local experts [expert_begin, "
        "expert_begin + local_experts) must lie in [0, experts)");
  CHECK(status_of({16, 33, 32, 0, 32, 32}, r.out).code() == status_code::bad_shape);  // max_choices + 1
  CHECK(status_of({16, 4, 2000, 0, 1025, 32}, r.out).code() == status_code::bad_shape);
  CHECK(status_of({-1, 4, 32, 0, 32, 32}, r.out).code() == status_code::bad_shape);
  CHECK(status_of({16, 4, 0, 0, 1, 32}, r.out).code() == status_code::bad_shape);
  CHECK(status_of({1 << 27, 16, 32, 0, 32, 32}, r.out).code() == status_code::too_large);
  auto o = r.out;
  o.inverse = nullptr;
  CHECK(status_of(p, o).message() ==
        "moe sort 16 tokens x top 4, experts [0, 32) of 32, tile 32: argument inverse is null");
  o = r.out, o.tile_expert = reinterpret_cast<int*>(reinterpret_cast<char*>(o.tile_expert) + 2);
  CHECK(status_of(p, o).code() == status_code::bad_alignment);
  CHECK(moe::sort(p, nullptr, r.out, nullptr).code() == status_code::null_pointer);
}
