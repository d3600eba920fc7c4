// MLA decode at amd-mixed-mla's sizes on the emulator's counters: (4, 8192) and (32, 1024) at 16
// heads, (4, 8192) at DeepSeek's 128, and a balanced plan over lengths far apart, read each KV row once, and in all at
// most 1.1 x (the batch's KV rows + q + out + what the plan's splits add: split_extra_read_bytes) with no LDS bank
// conflicts, and the (4, 8192) output against the host reference; the same with fp8 queries over
// an fp8 cache (the fp8 products' kernel: amd-mixed-mla's a8w8 form), and on gfx950 for an MXFP4
// cache (its rows and their block scales once: a quarter of a bf16 cache's bytes and 18 more a
// row). The largest MLA cases: full tier, both
// targets (gfx942's 32 banks, gfx950's 64).
#include <hip/hip_runtime.h>
#include <catch2/catch.hpp>

#include <cstdio>
#include <type_traits>
#include <utility>
#include <vector>

#include "support/device_fp8.hpp"
#include "support/mla_case.hpp"
#include "wavekit/ops/mla_decode.hpp"
#include "wavekit/ops/mla_decode/model.hpp"

using namespace wavekit;
namespace mla = wavekit::ops::mla_decode;

namespace {

// A batch of `batch` sequences of kv rows, one query each, run with the device's plan: the bytes
// read against the KV rows, queries and outputs once. KV: the cache's type; Q: the queries'.
template <class KV = bf16, class Q = bf16>
void check_traffic(const std::vector<int>& lens, int heads, const mla::split_plan* forced = nullptr) {
  const int batch = static_cast<int>(lens.size());
  double kv_rows = 0;
  for (int len : lens) kv_rows += len;
  test::mla_case<KV, Q> t(heads, lens, std::vector<int>(batch, 1), 0, 8);
  const mla::split_plan plan = forced ? *forced : wavekit::mla_decode_plan<KV, Q>(t.p, t.view()).value();
  const auto a = t.args(plan);
#if defined(WAVEKIT_EMULATOR)
  emu::reset_counters();
#endif
  REQUIRE(wavekit::mla_decode(t.p, t.view(), a, plan, nullptr).ok());
  REQUIRE(hipDeviceSynchronize() == hipSuccess);
#if defined(WAVEKIT_EMULATOR)
  // Each KV row once, whatever the splits; the rest what the plan's splits add (the queries again
  // and the partials read back, which the model weighs against their parallelism).
  const double kv_read = double(emu::accumulated_counters().bytes_read_from(t.d_cache));
  const double read = double(emu::accumulated_counters().global_bytes_read);
  const double kv_bytes = kv_rows * 576 * mla::kv_bits_of<KV> / 8;  // the codes; scales apart
  const double scale_bytes = std::is_same_v<KV, fp4x2_e2m1> ? kv_rows * mla::scale_blocks : 0.0;
  const int q_bits = mla::q_bits_of<Q>;
  const double ideal = kv_bytes + scale_bytes + double(batch) * heads * (576 * q_bits / 8 + 512 * 2) +
                       mla::split_extra_read_bytes(t.p, t.view(), plan, q_bits);
  std::printf(
      "mla decode traffic (%d heads, %d sequences of %.0f rows, %d splits, %d workers): %.2f MB read, %.2f MB "
      "planned, ratio %.3f\n",
      heads, batch, kv_rows / batch, plan.splits, plan.workers, read / 1e6, ideal / 1e6, read / ideal);
  CHECK(kv_read <= 1.02 * kv_bytes);
  if constexpr (std::is_same_v<KV, fp4x2_e2m1>)
    CHECK(double(emu::accumulated_counters().bytes_read_from(t.d_block_scales)) <= 1.02 * scale_bytes);
  CHECK(read <= 1.1 * ideal);
  // The tiles' layouts and the transposes' lane order: no LDS bank conflicts on either target.
  CHECK(emu::accumulated_counters().lds_bank_conflict_cycles == 0);
#endif
}

}  // namespace

TEST_CASE("mla_decode: amd-mixed-mla's (4, 8192) and (32, 1024) read each KV row once", "[emu][mla]") {
  for (const auto& [batch, kv] : {std::pair{4, 8192}, std::pair{32, 1024}})
    check_traffic(std::vector<int>(batch, kv), 16);
}

TEST_CASE("mla_decode: fp8 queries over an fp8 cache (fp8 products) read each KV row once", "[emu][mla]") {
  test::with_device_fp8([&](auto fp8_format) {
    using fp8 = decltype(fp8_format);
    // amd-mixed-mla's form (rows16); every config's bank conflicts: the LDS census.
    check_traffic<fp8, fp8>(std::vector<int>(4, 8192), 16);
  });
}

TEST_CASE("mla_decode: an MXFP4 cache's codes and scales read once at (4, 8192) (gfx950)", "[emu][mla]") {
  if (arch::current_device_arch().kind == arch::target::gfx950)
    check_traffic<fp4x2_e2m1>(std::vector<int>(4, 8192), 16);
}

TEST_CASE("mla_decode: 128 heads read each KV row once (one workgroup of 128 rows)", "[emu][mla]") {
  check_traffic(std::vector<int>(4, 8192), 128);
}

TEST_CASE("mla_decode: the balanced schedule reads each KV row once, its pieces once each way", "[emu][mla]") {
  // Lengths far apart (one sequence most of the batch's tiles), 64 workers: runs cut across many
  // workers and whole ones; the extra reads are the segments' queries and the pieces
  // (split_extra_read_bytes of a balanced plan).
  const mla::split_plan balanced = mla::split_plan::balanced_over(64);
  check_traffic({8192, 100, 3000, 1}, 16, &balanced);
}

TEST_CASE("mla_decode: 4 sequences of 8192 rows against the reference", "[emu][mla]") {
  test::mla_case<bf16> t(16, {8192, 8192, 8192, 8192}, {1, 1, 1, 1}, 0, 8);
  const mla::split_plan plan = wavekit::mla_decode_plan(t.p, t.view()).value();
  REQUIRE(wavekit::mla_decode(t.p, t.view(), t.args(plan), plan, nullptr).ok());
  REQUIRE(hipDeviceSynchronize() == hipSuccess);
  CHECK(t.check("4 x 8192") == 0);
}
