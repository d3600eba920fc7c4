// MLA decode (ops/mla_decode: the decode kernel and, with several splits, the reduce) against
// host::reference_mla_decode at test/support/mla_case.hpp's bound, on the CPU emulator and, in the
// GPU build, on the device: heads 1 to 128, uneven lengths in a batch, KV lengths 0, 1 and around
// a page, ragged and paged caches (pages of 1, 16, 64), one split and many, several query rows per
// sequence (speculative decoding), the same bits on every run, no host synchronisation inside the
// call, and every bad input's status.
#include <hip/hip_runtime.h>
#include <catch2/catch.hpp>

#include <cstring>
#include <string>
#include <vector>

#include "support/graph_safety.hpp"
#include "support/mla_case.hpp"
#include "wavekit/ops/mla_decode.hpp"

using namespace wavekit;
namespace mla = wavekit::ops::mla_decode;

namespace {

// Runs with the given plan (or the device's own), checks, and runs again for the same bits.
void run_case(test::mla_case& t, const mla::split_plan* forced, const char* label) {
  const mla::split_plan plan = forced ? *forced : wavekit::mla_decode_plan(t.p, t.view()).value();
  status s;
  const auto a = t.args(plan);
  const auto unsafe =
      test::graph_unsafe_calls_of([&](hipStream_t stream) { s = wavekit::mla_decode(t.p, t.view(), a, plan, stream); });
  INFO(label << ": " << t.p.str() << ", chunk " << plan.chunk << " x " << plan.splits << ": " << s.message());
  REQUIRE(s.ok());
  CHECK(unsafe.empty());
  REQUIRE(hipDeviceSynchronize() == hipSuccess);
  CHECK(t.check(label) == 0);
  std::vector<bf16> first(t.q.size() / 576 * 512), second(first.size());
  hipMemcpy(first.data(), t.d_out, first.size() * 2, hipMemcpyDeviceToHost);
  REQUIRE(wavekit::mla_decode(t.p, t.view(), a, plan, nullptr).ok());
  REQUIRE(hipDeviceSynchronize() == hipSuccess);
  hipMemcpy(second.data(), t.d_out, second.size() * 2, hipMemcpyDeviceToHost);
  CHECK(std::memcmp(first.data(), second.data(), first.size() * 2) == 0);
}

}  // namespace

TEST_CASE("mla_decode: heads 1 to 128, one split and many, ragged cache", "[emu][mla]") {
  for (int heads : {1, 12, 16, 64, 128}) {
    test::mla_case t(heads, {70, 1, 0, 33}, {1, 1, 1, 1}, 0, 10 + heads);
    run_case(t, nullptr, "device plan");
    const mla::split_plan many{32, 3};  // 70 rows in three splits of a tile each
    run_case(t, &many, "3 splits");
  }
}

TEST_CASE("mla_decode: paged caches, lengths around a page", "[emu][mla]") {
  for (int page : {1, 16, 64}) {
    test::mla_case t(16, {page - 1 > 0 ? page - 1 : 2, page + 1, 1, 0, 3 * page + 5}, {1, 1, 1, 1, 1}, page, page);
    run_case(t, nullptr, "paged");
    const mla::split_plan many{32, 8};
    run_case(t, &many, "paged, split");
  }
}

TEST_CASE("mla_decode: several query rows per sequence (speculative decoding)", "[emu][mla]") {
  test::mla_case t(16, {40, 3, 100}, {4, 2, 3}, 16, 5);
  run_case(t, nullptr, "q_len 2-4");
  const mla::split_plan many{32, 4};
  run_case(t, &many, "q_len 2-4, split");
  test::mla_case wide(128, {50}, {2}, 0, 6);  // 256 rows: two workgroups of the 128-row config
  run_case(wide, nullptr, "128 heads x 2 queries");
}
