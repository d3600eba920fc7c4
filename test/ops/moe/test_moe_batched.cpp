// The MoE experts in the batched expert-parallel layout (ops/moe/batched.hpp) against
// host::reference_moe (each row in use is a token with one choice, weight 1): counts from 0 to
// max_tokens, both weight orders, each M tile size; garbage in the input rows past a count must
// not leak into the rows in use; no host synchronisation inside the call; the statuses.
#include <hip/hip_runtime.h>
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "support/graph_safety.hpp"
#include "support/moe_case.hpp"
#include "wavekit/ops/moe.hpp"

using namespace wavekit;
namespace moe = wavekit::ops::moe;

namespace {

// The rows as tokens of an unbatched problem: row e * max_tokens + i is expert e's i-th token when
// i < counts[e], else a token with no local expert (id -1).
template <class T>
void check_batched(const moe::batched_problem& bp, const std::vector<int>& counts, const std::string& expect_config) {
  const int rows = bp.local_experts * bp.max_tokens;
  const moe::problem p{rows, bp.hidden, bp.expert_dim, bp.local_experts, 1, 0, bp.local_experts, bp.weight_order};
  std::vector<int> ids(rows, -1);
  for (int e = 0; e < bp.local_experts; ++e)
    for (int i = 0; i < counts[e]; ++i) ids[e * bp.max_tokens + i] = e;
  test::moe_case<T> t(p, ids, 41, moe::batched_workspace_bytes(bp).value());
  // Rows past a count hold garbage (NaN) in the input: never read.
  std::vector<T> x = t.x;
  for (int r = 0; r < rows; ++r)
    if (ids[r] < 0)
      for (int c = 0; c < bp.hidden; ++c) x[std::size_t(r) * bp.hidden + c] = T::from_bits(0x7fff);
  hipMemcpy(t.d_x, x.data(), x.size() * sizeof(T), hipMemcpyHostToDevice);
  std::fill(t.weights.begin(), t.weights.end(), 1.0f);  // the batched layout applies no routing weight
  int* d_counts = test::moe_case<T>::upload(counts);
  const moe::batched_args<T> a{t.d_x, d_counts, t.d_gate, t.d_up, t.d_down, t.d_out, t.workspace, t.workspace_bytes};
  status s;
  const auto unsafe = test::graph_unsafe_calls_of([&](hipStream_t stream) { s = wavekit::moe_batched(bp, a, stream); });
  INFO(bp.str() << ": " << s.message());
  REQUIRE(s.ok());
  CHECK(unsafe.empty());
  REQUIRE(hipDeviceSynchronize() == hipSuccess);
  CHECK(moe::config_name(moe::choose_batched_config(bp)) == expect_config);
  // Compare the rows in use; the others are unspecified.
  const auto ref = host::reference_moe(p, t.x, ids, t.weights, t.w);
  const std::vector<T> got = t.output();
  const double ulp = std::is_same_v<T, bf16> ? 0x1p-7 : 0x1p-10;
  int bad = 0;
  for (int r = 0; r < rows; ++r) {
    if (ids[r] < 0) continue;
    for (int c = 0; c < bp.hidden; ++c) {
      const std::size_t i = std::size_t(r) * bp.hidden + c;
      const double g = widen_to_float(got[i]), e = ref.out[i];
      const double bound =
          (3 * ulp + (bp.hidden + bp.expert_dim) * 0x1p-23) * ref.magnitude[i] + 2 * ulp * std::fabs(e);
      if (!(std::fabs(g - e) <= bound) && bad++ < 5)
        FAIL_CHECK("row " << r << " col " << c << ": " << g << ", reference " << e << " (bound " << bound << ")");
    }
  }
  CHECK(bad == 0);
  hipFree(d_counts);
}

}  // namespace

TEST_CASE("moe batched: counts 0..max_tokens, both weight orders, each M tile", "[emu][moe]") {
  check_batched<bf16>({4, 32, 128, 64, layout::mn_contiguous}, {0, 5, 32, 17}, moe::config_decode::name());
  check_batched<fp16>({3, 64, 128, 64, layout::k_contiguous}, {64, 1, 40}, moe::config_medium::name());
  check_batched<bf16>({2, 256, 128, 64, layout::mn_contiguous}, {200, 0}, moe::config_prefill::name());
}

TEST_CASE("moe batched: every bad input gets its status before any launch", "[emu][moe]") {
  const moe::batched_problem p{2, 32, 128, 64, layout::mn_contiguous};
  auto status_of = [](const moe::batched_problem& q) {
    return wavekit::moe_batched(q, moe::batched_args<bf16>{}, nullptr);
  };
  CHECK(status_of(p).message() == "moe (batched) " + p.str() + ": argument x is null");
  CHECK(status_of({2, 24, 128, 64, layout::mn_contiguous}).message() ==
        "moe (batched) 2 experts x 24 tokens, hidden 128, expert dim 64, weights mn_contiguous: max_tokens must be a "
        "positive multiple of 16 (the smallest M tile)");
  CHECK(status_of({0, 32, 128, 64, layout::mn_contiguous}).code() == status_code::bad_shape);
  CHECK(status_of({2, 32, 100, 64, layout::mn_contiguous}).code() == status_code::bad_shape);
  CHECK(status_of({2, 32, 128, 64, static_cast<layout>(3)}).code() == status_code::bad_shape);
  CHECK(status_of({4096, 4096, 8192, 64, layout::mn_contiguous}).code() == status_code::too_large);
  CHECK(moe::launch_batched<moe::config_medium>(p, moe::batched_args<bf16>{}, nullptr).code() ==
        status_code::bad_config);  // 64-row tiles do not divide 32 rows
}
