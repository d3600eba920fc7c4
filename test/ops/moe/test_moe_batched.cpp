// The MoE experts in the batched expert-parallel layout (ops/moe/batched.hpp) against
// host::reference_moe (each row in use is a token with one choice, weight 1): counts from 0 to
// max_tokens, both weight orders, each M tile size; garbage in the input rows past a count must
// not leak into the rows in use; no host synchronisation inside the call; the statuses. The same
// for fp8 block-scaled weights (test/support/moe_blockscale_case.hpp's three checks), with the
// input in T or arriving quantized (1x128 or per token).
#include <hip/hip_runtime.h>
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "support/device_fp8.hpp"
#include "support/graph_safety.hpp"
#include "support/moe_blockscale_case.hpp"
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

// fp8 block-scaled weights: the rows as tokens of an unbatched problem, checked as the standard
// layout is (row r of the gated product is token r's one choice).
template <class T, class Fp8>
void check_batched_blockscale(const moe::batched_problem& bp, const std::vector<int>& counts, test::moe_input input,
                              const std::string& expect_config) {
  const int rows = bp.local_experts * bp.max_tokens;
  const moe::problem p{rows, bp.hidden, bp.expert_dim, bp.local_experts, 1, 0, bp.local_experts, bp.weight_order};
  std::vector<int> ids(rows, -1);
  for (int e = 0; e < bp.local_experts; ++e)
    for (int i = 0; i < counts[e]; ++i) ids[e * bp.max_tokens + i] = e;
  test::moe_blockscale_case<T, Fp8> t(
      p, ids, 43, moe::batched_workspace_bytes(bp, sizeof(T), moe::weight_format::fp8_blockscale).value(), input);
  std::fill(t.weights.begin(), t.weights.end(), 1.0f);  // the batched layout applies no routing weight
  // Rows past a count hold garbage (NaN) in the input, in T or quantized: never read.
  std::vector<T> x = t.x;
  std::vector<Fp8> xq = t.xq.q;
  for (int r = 0; r < rows; ++r)
    if (ids[r] < 0)
      for (int c = 0; c < bp.hidden; ++c)
        x[std::size_t(r) * bp.hidden + c] = T::from_bits(0x7fff),
                                       xq[std::size_t(r) * bp.hidden + c] = Fp8::from_bits(0x80);
  hipMemcpy(t.d_x, x.data(), x.size() * sizeof(T), hipMemcpyHostToDevice);
  hipMemcpy(t.d_x_fp8, xq.data(), xq.size(), hipMemcpyHostToDevice);
  int* d_counts = t.upload(counts);
  const auto sa = t.args();
  moe::batched_blockscale_args<T, Fp8> a{sa.x,    d_counts,      sa.gate,           sa.up,
                                         sa.down, sa.gate_scale, sa.up_scale,       sa.down_scale,
                                         sa.out,  sa.workspace,  sa.workspace_bytes};
  a.x_fp8 = sa.x_fp8, a.x_scale = sa.x_scale, a.x_scales = sa.x_scales;
  status s;
  const auto unsafe = test::graph_unsafe_calls_of([&](hipStream_t stream) { s = wavekit::moe_batched(bp, a, stream); });
  INFO(bp.str() << ", input " << static_cast<int>(input) << ": " << s.message());
  REQUIRE(s.ok());
  CHECK(unsafe.empty());
  REQUIRE(hipDeviceSynchronize() == hipSuccess);
  CHECK(moe::config_name(moe::blockscale_config_of(moe::choose_batched_config(bp))) == expect_config);
  const moe::batched_workspace w = moe::plan_batched_workspace(bp, moe::block_m_of(moe::choose_batched_config(bp)),
                                                               sizeof(T), moe::weight_format::fp8_blockscale);
  std::vector<int> row_slot(rows);
  for (int r = 0; r < rows; ++r) row_slot[r] = ids[r] >= 0 ? r : -1;
  CHECK(t.check({w.hidden, w.hidden_fp8, w.hidden_scale, w.x_fp8, w.x_scale, rows}, row_slot, expect_config.c_str(),
                /*every_token=*/false) == 0);
}

}  // namespace

TEST_CASE("moe batched fp8: counts 0..max_tokens, both weight orders, each M tile, quantized inputs", "[emu][moe]") {
  test::with_device_fp8([&](auto fp8_format) {
    using fp8 = decltype(fp8_format);
    namespace bs = moe::blockscale;
    check_batched_blockscale<bf16, fp8>({4, 32, 128, 128, layout::k_contiguous}, {0, 5, 32, 17}, test::moe_input::half,
                                        bs::config_decode::name());
    check_batched_blockscale<fp16, fp8>({3, 64, 256, 128, layout::mn_contiguous}, {64, 1, 40},
                                        test::moe_input::fp8_per_128, bs::config_medium::name());
    check_batched_blockscale<bf16, fp8>({2, 256, 128, 128, layout::k_contiguous}, {200, 0},
                                        test::moe_input::fp8_per_token, bs::config_prefill::name());
  });
}

TEST_CASE("moe batched fp8: every bad input gets its status before any launch", "[emu][moe]") {
  test::with_device_fp8([&](auto fp8_format) {
    using fp8 = decltype(fp8_format);
    const moe::batched_problem p{2, 32, 128, 128, layout::k_contiguous};
    auto status_of = [](const moe::batched_problem& q, const moe::batched_blockscale_args<bf16, fp8>& a) {
      return wavekit::moe_batched(q, a, nullptr);
    };
    const std::string what = "moe (batched) " + p.str() + ": ";
    CHECK(status_of(p, {}).message() == what + "argument gate_scale is null");
    moe::batched_blockscale_args<bf16, fp8> a{};
    const float* const* table = reinterpret_cast<const float* const*>(std::uintptr_t{256});
    a.gate_scale = a.up_scale = a.down_scale = table;
    CHECK(status_of(p, a).message() ==
          what + "exactly one of the arguments x and x_fp8 must be given (x is null, x_fp8 is null)");
    CHECK(status_of({2, 32, 128, 64, layout::k_contiguous}, a).message() ==
          "moe (batched) 2 experts x 32 tokens, hidden 128, expert dim 64, weights k_contiguous: with fp8 block-scaled "
          "weights hidden and expert_dim must be multiples of 128 (the 128x128 scale blocks)");
    CHECK(status_of({2, 24, 128, 128, layout::k_contiguous}, a).code() == status_code::bad_shape);
    CHECK(moe::launch_batched<moe::blockscale::config_medium>(p, a, nullptr).code() ==
          status_code::bad_config);  // 64-row tiles do not divide 32 rows
    // The other fp8 format: the device does not read it.
    CHECK(wavekit::moe_batched(p, moe::batched_blockscale_args<bf16, test::other_fp8_t<fp8>>{}, nullptr).code() ==
          status_code::bad_format);
  });
}

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
