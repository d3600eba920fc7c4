// MLA decode (ops/mla_decode: the decode kernel and, with several splits, the reduce) against
// host::reference_mla_decode at test/support/mla_case.hpp's bound, on the CPU emulator and, in the
// GPU build, on the device: heads 1 to 128, uneven lengths in a batch, KV lengths 0, 1 and around
// a page, ragged and paged caches (pages of 1, 16, 64), one split and many, several query rows per
// sequence (speculative decoding), fp8 caches and fp8 queries, the same bits on every run, no host
// synchronisation inside the call, and every bad input's status.
#include <hip/hip_runtime.h>
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "support/device_fp8.hpp"
#include "support/empty_problem.hpp"
#include "support/graph_safety.hpp"
#include "support/mla_case.hpp"
#include "wavekit/ops/mla_decode.hpp"

using namespace wavekit;
namespace mla = wavekit::ops::mla_decode;

namespace {

// Runs with the given plan (or the device's own), checks, and runs again for the same bits.
template <class KV, class Q>
void run_case(test::mla_case<KV, Q>& t, const mla::split_plan* forced, const char* label) {
  const mla::split_plan plan = forced ? *forced : wavekit::mla_decode_plan<KV>(t.p, t.view()).value();
  status s;
  const auto a = t.args(plan);
  // NaN where a result is missing (an earlier run's output would pass for this one's).
  hipMemset(t.d_out, 0xff, t.q.size() / 576 * 512 * 2);
  const auto unsafe =
      test::graph_unsafe_calls_of([&](hipStream_t stream) { s = wavekit::mla_decode(t.p, t.view(), a, plan, stream); });
  INFO(label << ": " << t.p.str() << ", chunk " << plan.chunk << " x " << plan.splits << ", workers " << plan.workers
             << ": " << s.message());
  REQUIRE(s.ok());
  CHECK(unsafe.empty());
  REQUIRE(hipDeviceSynchronize() == hipSuccess);
  CHECK(t.check(label) == 0);
  std::vector<bf16> first(t.q.size() / 576 * 512), second(first.size());
  hipMemcpy(first.data(), t.d_out, first.size() * 2, hipMemcpyDeviceToHost);
  // A balanced plan's second call reuses the first's schedule (as a step's later layers do): the
  // counters the merges left at zero, the same bits.
  auto again = a;
  again.schedule_ready = plan.balanced();
  REQUIRE(wavekit::mla_decode(t.p, t.view(), again, plan, nullptr).ok());
  REQUIRE(hipDeviceSynchronize() == hipSuccess);
  hipMemcpy(second.data(), t.d_out, second.size() * 2, hipMemcpyDeviceToHost);
  CHECK(std::memcmp(first.data(), second.data(), first.size() * 2) == 0);
}

}  // namespace

TEST_CASE("mla_decode: heads 1 to 128, one split and many, ragged cache", "[emu][mla]") {
  // 16, 32, 64 and 128 rows fill a workgroup of each config (rows16, rows32, rows64, rows128); 1,
  // 12, 17 and 33 leave rows16's, rows32's or rows64's rows part-filled, 65 and 127 rows128's last
  // wave.
  for (int heads : {1, 12, 16, 17, 32, 33, 64, 65, 127, 128}) {
    test::mla_case<bf16> t(heads, {70, 1, 0, 33}, {1, 1, 1, 1}, 0, 10 + heads);
    run_case(t, nullptr, "device plan");
    const mla::split_plan many{32, 3};  // 70 rows in three splits of a tile each
    run_case(t, &many, "3 splits");
  }
}

TEST_CASE("mla_decode: 16 rows or fewer shared by four waves (rows16)", "[emu][mla]") {
  // Kimi's 8 heads, DeepSeek's 128 split 16 or 8 ways (8, 16), 12 and 1 head, one query row or
  // two (8 heads x 2 = 16 rows: the second query sees one row more, the causal mask in the last
  // tile); KV lengths of a tile and one over, ragged and paged, one split and several; every wave
  // takes a quarter of the K steps and the output columns and they share the softmax (the tile's
  // score pairs, one a wave).
  for (int heads : {1, 8, 12, 16}) {
    test::mla_case<bf16> t(heads, {32, 33, 95, 2}, {1, 1, 1, 1}, 16, 60 + heads);
    REQUIRE(mla::choose_config(t.p, t.view()) == mla::config_id::rows16);
    run_case(t, nullptr, "rows16, paged");
    const mla::split_plan many{32, 3};
    run_case(t, &many, "rows16, paged, 3 splits");
  }
  test::mla_case<bf16> two(8, {64, 1, 40}, {2, 2, 1}, 0, 70);
  REQUIRE(mla::choose_config(two.p, two.view()) == mla::config_id::rows16);
  run_case(two, nullptr, "rows16, 8 heads x 2 queries");
  const mla::split_plan many{32, 2};
  run_case(two, &many, "rows16, 8 heads x 2 queries, split");
  test::with_device_fp8([&](auto fp8_format) {
    using fp8 = decltype(fp8_format);
    test::mla_case<fp8> kv(16, {130, 7}, {1, 1}, 0, 71);
    run_case(kv, nullptr, "rows16, fp8 cache");
    test::mla_case<fp8, fp8> both(8, {100}, {2}, 16, 72);
    run_case(both, nullptr, "rows16, fp8 cache and queries");
  });
}

TEST_CASE("mla_decode: paged caches, lengths around a page", "[emu][mla]") {
  for (int page : {1, 16, 64}) {
    test::mla_case<bf16> t(16, {page - 1 > 0 ? page - 1 : 2, page + 1, 1, 0, 3 * page + 5}, {1, 1, 1, 1, 1}, page,
                           page);
    run_case(t, nullptr, "paged");
    const mla::split_plan many{32, 8};
    run_case(t, &many, "paged, split");
  }
}

TEST_CASE("mla_decode: several query rows per sequence (speculative decoding)", "[emu][mla]") {
  test::mla_case<bf16> t(16, {40, 3, 100}, {4, 2, 3}, 16, 5);
  run_case(t, nullptr, "q_len 2-4");
  const mla::split_plan many{32, 4};
  run_case(t, &many, "q_len 2-4, split");
  test::mla_case<bf16> wide(128, {50}, {2}, 0, 6);  // 256 rows: two workgroups of 128
  run_case(wide, nullptr, "128 heads x 2 queries");
}

TEST_CASE("mla_decode: rising scores (the running max moving by more and by less than the rescale margin)",
          "[emu][mla]") {
  // Scores rising 0.5 a row move every tile's max by 16 (23 in log2 units), past the margin of 12
  // log2 units (each tile rescales O); rising 0.05 a row, by 1.6 a tile (2.3 in log2 units), the
  // max stays put for several tiles while weights grow towards 2^12, then moves. Both within the
  // bound, one split and several (each split its own running max), on every config (16, 32, 64
  // and 128 heads), ragged and paged.
  static_assert(mla::decode_parts<mla::config_rows64, bf16>::rescale_margin == 12.0f);
  const mla::split_plan many{64, 5};
  for (int heads : {16, 32, 64, 128}) {
    test::mla_case<bf16> t(heads, {100, 37}, {1, 1}, heads == 16 ? 0 : 16, 21, 0.5f);
    run_case(t, nullptr, "scores rising 0.5 a row");
    run_case(t, &many, "scores rising 0.5 a row, split");
  }
  test::mla_case<bf16> slow(16, {320, 37}, {1, 1}, 0, 23, 0.05f);
  run_case(slow, nullptr, "scores rising 0.05 a row");
  run_case(slow, &many, "scores rising 0.05 a row, split");
  test::with_device_fp8([&](auto fp8_format) {
    using fp8 = decltype(fp8_format);
    test::mla_case<fp8, fp8> t(16, {200}, {1}, 0, 22, 0.05f);
    run_case(t, nullptr, "rising scores, fp8");
  });
}

TEST_CASE("mla_decode: the balanced schedule (workers sharing the batch's KV tiles)", "[emu][mla]") {
  // The configs it runs: rows16 (1 and 8 heads with up to two query rows, 16 with one) and rows32
  // (12 and 16 heads with two query rows: two row groups of a sequence where its rows pass 16),
  // uneven lengths with an empty sequence and a sequence without query rows, ragged and paged: one
  // worker (every run whole, several a worker), 3 and 7 (runs cut between two and more workers,
  // merged by the last to finish; a worker holding a run's tail and the next run's head), and more
  // workers than units (workers with nothing to do).
  struct shape {
    int heads;
    std::vector<int> q_lens;
    mla::config_id config;
  };
  const std::vector<shape> shapes{{1, {1, 2, 1, 0, 1, 1}, mla::config_id::rows16},
                                  {8, {1, 2, 1, 0, 1, 1}, mla::config_id::rows16},
                                  {16, {1, 1, 1, 0, 1, 1}, mla::config_id::rows16},
                                  {12, {1, 2, 1, 0, 2, 1}, mla::config_id::rows32},
                                  {16, {2, 2, 1, 0, 1, 2}, mla::config_id::rows32}};
  for (const shape& sh : shapes) {
    test::mla_case<bf16> t(sh.heads, {70, 1, 0, 33, 200, 9}, sh.q_lens, sh.heads == 8 ? 16 : 0, 80 + sh.heads);
    REQUIRE(mla::choose_config(t.p, t.view()) == sh.config);
    for (int workers : {1, 3, 7, 60}) {
      const mla::split_plan plan = mla::split_plan::balanced_over(workers);
      run_case(t, &plan, "balanced");
    }
  }
  test::with_device_fp8([&](auto fp8_format) {
    using fp8 = decltype(fp8_format);
    test::mla_case<fp8, fp8> both(16, {300, 40, 5}, {1, 1, 1}, 0, 90);
    test::mla_case<fp8> cache(16, {120, 64}, {2, 1}, 16, 91);
    for (int workers : {2, 5}) {
      const mla::split_plan plan = mla::split_plan::balanced_over(workers);
      run_case(both, &plan, "balanced, fp8 cache and queries");
      run_case(cache, &plan, "balanced, fp8 cache, paged, rows32");
    }
  });
  // The row configs too: rows64 (40 and 64 heads; 48 rows of three query rows) and rows128 (128
  // heads), uneven lengths with an empty sequence, ragged and paged, runs whole and cut.
  test::mla_case<bf16> r64(40, {70, 0, 33, 130}, {1, 1, 1, 1}, 0, 92);
  REQUIRE(mla::choose_config(r64.p, r64.view()) == mla::config_id::rows64);
  test::mla_case<bf16> r128(128, {45, 100, 3}, {1, 1, 1}, 16, 93);
  REQUIRE(mla::choose_config(r128.p, r128.view()) == mla::config_id::rows128);
  for (int workers : {1, 3, 7}) {
    const mla::split_plan plan = mla::split_plan::balanced_over(workers);
    run_case(r64, &plan, "balanced, rows64");
    run_case(r128, &plan, "balanced, rows128, paged");
  }
  test::with_device_fp8([&](auto fp8_format) {
    using fp8 = decltype(fp8_format);
    test::mla_case<fp8, fp8> both(16, {90, 40}, {3, 1}, 0, 94);  // 48 rows: rows64
    test::mla_case<fp8> cache(128, {64, 9}, {1, 1}, 16, 95);
    const mla::split_plan plan = mla::split_plan::balanced_over(3);
    run_case(both, &plan, "balanced, fp8 cache and queries, rows64");
    run_case(cache, &plan, "balanced, fp8 cache, paged, rows128");
  });
}

TEST_CASE("mla_decode: a balanced plan counts the batch's units in 32 bits", "[emu][mla]") {
  // 40 sequences of 2^31 - 1 rows in one page of 2^20 rows repeated (a paged cache may share
  // pages): 2^26 tiles each of one group of 16 rows, 2.7 * 10^9 units. Refused before any launch
  // (nothing is read: the pointers are never dereferenced); the grid of chunks is not refused.
  const int batch = 40, max_pages = 2048, page = 1 << 20;
  const mla::problem p{batch, 16, mla::kv_layout::paged, page, page, max_pages, 0.0625f};
  std::vector<int> qo(batch + 1), lens(batch, std::numeric_limits<int>::max()), table(batch * max_pages, 0);
  for (int b = 0; b <= batch; ++b) qo[b] = b;
  const mla::sequences_view s{qo, {}, lens, table};
  alignas(16) static unsigned char fake[64];
  mla::args<bf16> a;
  a.q = reinterpret_cast<const bf16*>(fake), a.cache = reinterpret_cast<const bf16*>(fake);
  a.qo_indptr = a.kv_lens = a.page_table = reinterpret_cast<const int*>(fake);
  a.out = reinterpret_cast<bf16*>(fake), a.workspace = fake, a.workspace_bytes = std::size_t{1} << 40;
  const status st = mla::validate_args(p, s, a, mla::split_plan::balanced_over(256));
  CHECK(st.code() == status_code::too_large);
  CHECK(st.message() == "mla_decode " + p.str() +
                            ": a balanced plan counts the batch's KV tiles of each row group (2684354560) in 32 bits: "
                            "plan with the grid of chunks");
  CHECK(mla::validate_args(p, s, a, mla::split_plan{(1 << 30) - 32, 2}).code() != status_code::too_large);
}

TEST_CASE("mla_decode: every bad input gets its status before any launch", "[emu][mla]") {
  test::mla_case<bf16> t(16, {40, 7}, {1, 1}, 16, 3);
  const mla::split_plan plan = wavekit::mla_decode_plan(t.p, t.view()).value();
  const std::string what = "mla_decode " + t.p.str() + ": ";
  auto a = t.args(plan);
  CHECK(wavekit::mla_decode(t.p, t.view(), a, plan, nullptr).ok());
  REQUIRE(hipDeviceSynchronize() == hipSuccess);
  a.page_table = nullptr;
  CHECK(wavekit::mla_decode(t.p, t.view(), a, plan, nullptr).message() == what + "argument page_table is null");
  a = t.args(plan), a.q = nullptr;
  CHECK(wavekit::mla_decode(t.p, t.view(), a, plan, nullptr).message() == what + "argument q is null");
  a = t.args(plan), a.cache = reinterpret_cast<const bf16*>(reinterpret_cast<const char*>(t.d_cache) + 2);
  CHECK(wavekit::mla_decode(t.p, t.view(), a, plan, nullptr).code() == status_code::bad_alignment);
  a = t.args(plan), a.kv_lens = nullptr;
  CHECK(wavekit::mla_decode(t.p, t.view(), a, plan, nullptr).message() == what + "argument kv_lens is null");
  // A plan that does not cover the lengths, a chunk not of whole tiles, a workspace too small.
  a = t.args(plan);
  CHECK(wavekit::mla_decode(t.p, t.view(), a, mla::split_plan{32, 1}, nullptr).message() ==
        what + "the split plan does not cover sequence 0's 40 KV rows");
  CHECK(wavekit::mla_decode(t.p, t.view(), a, mla::split_plan{48, 2}, nullptr).code() == status_code::bad_config);
  const mla::split_plan split{32, 2};
  a = t.args(split);
  REQUIRE(a.workspace_bytes > 0);
  const std::size_t need = a.workspace_bytes;
  a.workspace_bytes = 0;
  CHECK(wavekit::mla_decode(t.p, t.view(), a, split, nullptr).message() ==
        what + "the workspace must hold " + std::to_string(need) + " bytes (have 0)");
  CHECK(wavekit::mla_decode(t.p, t.view(), a, split, nullptr).code() == status_code::workspace_too_small);
  // The workspace query answers with the launch's plan rules (chunks of whole 32-row tiles) or the bytes.
  CHECK(mla::workspace_bytes(t.p, t.view(), split).value() == need);
  CHECK(mla::workspace_bytes(t.p, t.view(), mla::split_plan{32, 1}).value() == 0);
  CHECK(mla::workspace_bytes(t.p, t.view(), mla::split_plan{48, 2}).error().code() == status_code::bad_config);
  // No sequences: no pointer is checked, nothing is launched; the plan's rules still hold.
  const std::vector<int> no_sequences{0};
  const mla::problem empty{0, 16, mla::kv_layout::ragged, 1, 64, 0, 0.0625f};
  const mla::sequences_view none{no_sequences, no_sequences, {}, {}};
  test::check_launches_nothing(
      [&] { return wavekit::mla_decode(empty, none, mla::args<bf16>{}, mla::split_plan{32, 1}, nullptr); });
  CHECK(wavekit::mla_decode(empty, none, mla::args<bf16>{}, mla::split_plan{48, 1}, nullptr).code() ==
        status_code::bad_config);
  // The split partials' workspace: null and misaligned each get their own rule.
  a = t.args(split), a.workspace = nullptr;
  CHECK(wavekit::mla_decode(t.p, t.view(), a, split, nullptr).message() ==
        what + "argument workspace is null and the split partials need " + std::to_string(need) + " bytes of it");
  a = t.args(split), a.workspace = static_cast<char*>(a.workspace) + 4;
  CHECK(wavekit::mla_decode(t.p, t.view(), a, split, nullptr).code() == status_code::bad_alignment);
  // Tables: a page id past the cache, a decreasing qo_indptr (host copies are checked).
  std::vector<int> pages = t.page_table;
  pages[0] = 1000;
  mla::sequences_view bad = t.view();
  bad.page_table = pages;
  CHECK(wavekit::mla_decode(t.p, bad, t.args(plan), plan, nullptr).code() == status_code::bad_shape);
  const std::vector<int> qo{0, 2, 1};
  bad = t.view(), bad.qo_indptr = qo;
  CHECK(wavekit::mla_decode(t.p, bad, t.args(plan), plan, nullptr).code() == status_code::bad_shape);
  CHECK(!wavekit::mla_decode_plan({2, 200, mla::kv_layout::paged, 16, t.p.cache_rows, t.p.max_pages, 0.04f}, t.view()));
  // Balanced plans: 1 to max_workers workers, chunk 32 and one split; the workspace of their schedule.
  CHECK(
      wavekit::mla_decode(t.p, t.view(), a, mla::split_plan::balanced_over(mla::max_workers + 1), nullptr).message() ==
      what + "a balanced plan has 1 to 1024 workers, chunk 32 and 1 split (workers 0: the grid of chunks)");
  mla::split_plan balanced_split = mla::split_plan::balanced_over(4);
  balanced_split.splits = 2;
  CHECK(wavekit::mla_decode(t.p, t.view(), a, balanced_split, nullptr).code() == status_code::bad_config);
  const mla::split_plan balanced = mla::split_plan::balanced_over(4);
  a = t.args(balanced);
  a.workspace_bytes = mla::workspace_bytes(t.p, t.view(), balanced).value() - 4;
  CHECK(wavekit::mla_decode(t.p, t.view(), a, balanced, nullptr).code() == status_code::workspace_too_small);
  CHECK(mla::workspace_bytes(t.p, t.view(), balanced).value() ==
        mla::balanced_workspace(2, 16, 4, mla::config_rows16::rows).bytes);
  CHECK(wavekit::mla_decode(t.p, t.view(), a, mla::split_plan{1 << 30, 2}, nullptr).message() ==
        what + "the split plan's chunk * splits must stay below 2^31 (KV row indices)");
}

TEST_CASE("mla_decode: a plan serves the cache type, heads and device it was made for", "[emu][mla]") {
  // A plan sizes its chunk by a row's bytes, the heads and the device's CUs; used with another
  // cache type, problem or device the launch refuses it before anything runs, naming the rule. A
  // plan written by hand states its chunk and serves any.
  test::with_device_fp8([&](auto fp8_format) {
    using fp8 = decltype(fp8_format);
    test::mla_case<bf16> bf(16, {300, 40}, {1, 1}, 16, 51);
    test::mla_case<fp8> f8(16, {300, 40}, {1, 1}, 16, 52);
    const mla::split_plan for_bf16 = wavekit::mla_decode_plan(bf.p, bf.view()).value();
    const mla::split_plan for_fp8 = wavekit::mla_decode_plan<fp8>(f8.p, f8.view()).value();
    CHECK(for_bf16.kv_element_bits == 16);
    CHECK(for_fp8.kv_element_bits == 8);
    CHECK(for_bf16.heads == 16);
    CHECK(for_bf16.compute_units == arch::facts_for(arch::current_device_arch().kind).compute_units);
    CHECK(wavekit::mla_decode(bf.p, bf.view(), bf.args(for_bf16), for_bf16, nullptr).ok());
    CHECK(wavekit::mla_decode(f8.p, f8.view(), f8.args(for_fp8), for_fp8, nullptr).ok());
    REQUIRE(hipDeviceSynchronize() == hipSuccess);
    CHECK(wavekit::mla_decode(f8.p, f8.view(), f8.args(for_bf16), for_bf16, nullptr).message() ==
          "mla_decode " + f8.p.str() +
              ": argument plan was chosen for a bf16 cache and this call reads an fp8 cache (a split's rows are sized "
              "by a row's bytes): plan with mla_decode_plan<KV> of the cache's type");
    CHECK(wavekit::mla_decode(bf.p, bf.view(), bf.args(for_fp8), for_fp8, nullptr).message() ==
          "mla_decode " + bf.p.str() +
              ": argument plan was chosen for an fp8 cache and this call reads a bf16 cache (a split's rows are sized "
              "by a row's bytes): plan with mla_decode_plan<KV> of the cache's type");
    // The same refusals from supports() with the plan.
    const arch::target t = arch::current_device_arch().kind;
    CHECK(mla::supports<fp8>(f8.p, t, for_bf16).message() ==
          wavekit::mla_decode(f8.p, f8.view(), f8.args(for_bf16), for_bf16, nullptr).message());
    CHECK(mla::supports<fp8>(f8.p, t, for_fp8).ok());
    // A hand-written plan serves either cache.
    const mla::split_plan by_hand{64, 5};
    CHECK(wavekit::mla_decode(f8.p, f8.view(), f8.args(by_hand), by_hand, nullptr).ok());
    CHECK(wavekit::mla_decode(bf.p, bf.view(), bf.args(by_hand), by_hand, nullptr).ok());
    REQUIRE(hipDeviceSynchronize() == hipSuccess);
    CHECK(bf.check("hand-written plan") == 0);
  });
  // Heads: a plan for 16 heads used with 64.
  test::mla_case<bf16> h16(16, {200}, {1}, 0, 53), h64(64, {200}, {1}, 0, 54);
  const mla::split_plan for_16 = wavekit::mla_decode_plan(h16.p, h16.view()).value();
  CHECK(wavekit::mla_decode(h64.p, h64.view(), h64.args(for_16), for_16, nullptr).message() ==
        "mla_decode " + h64.p.str() +
            ": argument plan was chosen for 16 heads and this problem has 64 (a split's least rows grow with the "
            "heads): plan for this problem");
  // The device: a plan made for the other target's CU count.
  const arch::target here = arch::current_device_arch().kind;
  const arch::target other = here == arch::target::gfx950 ? arch::target::gfx942 : arch::target::gfx950;
  mla::split_plan elsewhere = for_16;
  elsewhere.compute_units = arch::facts_for(other).compute_units;
  const std::string refusal = "mla_decode " + h16.p.str() + ": argument plan was chosen for a device of " +
                              std::to_string(arch::facts_for(other).compute_units) + " CUs and this " +
                              arch::to_string(here) + " device has " +
                              std::to_string(arch::facts_for(here).compute_units) +
                              " (chunks are sized for the CUs): plan on the device that runs it";
  CHECK(wavekit::mla_decode(h16.p, h16.view(), h16.args(elsewhere), elsewhere, nullptr).message() == refusal);
  CHECK(mla::supports<bf16>(h16.p, here, elsewhere).message() == refusal);
  CHECK(mla::supports<bf16>(h16.p, other, elsewhere).ok());
}

TEST_CASE("mla_decode: an fp8 cache with its per-tensor scale", "[emu][mla]") {
  test::with_device_fp8([&](auto fp8_format) {
    using fp8 = decltype(fp8_format);
    test::mla_case<fp8> ragged(16, {70, 1, 0, 33}, {1, 1, 1, 1}, 0, 41);
    run_case(ragged, nullptr, "fp8, ragged");
    const mla::split_plan many{32, 3};
    run_case(ragged, &many, "fp8, 3 splits");
    test::mla_case<fp8> paged(64, {17, 40}, {1, 2}, 16, 42);
    run_case(paged, nullptr, "fp8, paged");
    // A scale that is not finite and positive; a bf16 cache given one.
    auto a = paged.args(wavekit::mla_decode_plan<fp8>(paged.p, paged.view()).value());
    a.kv_scale = 0.0f;
    CHECK(wavekit::mla_decode(paged.p, paged.view(), a, mla::split_plan{32, 2}, nullptr).message() ==
          "mla_decode " + paged.p.str() + ": kv_scale must be finite and positive");
    // The other fp8 format: the device does not read it.
    mla::args<test::other_fp8_t<fp8>> wrong{};
    CHECK(wavekit::mla_decode(paged.p, paged.view(), wrong, mla::split_plan{32, 2}, nullptr).code() ==
          status_code::bad_format);
  });
  test::mla_case<bf16> t(16, {5}, {1}, 0, 43);
  auto a = t.args(mla::split_plan{32, 1});
  a.kv_scale = 2.0f;
  CHECK(wavekit::mla_decode(t.p, t.view(), a, mla::split_plan{32, 1}, nullptr).message() ==
        "mla_decode " + t.p.str() + ": kv_scale is an fp8 or MXFP4 cache's scale; a bf16 cache has 1");
}

TEST_CASE("mla_decode: an MXFP4 cache with its e8m0 block scales (gfx950)", "[emu][mla]") {
  // amd-mixed-mla's third cache form: fp4x2 [rows][288] and an e8m0 scale per 32 values in a padded
  // table (test::mla_case: rows of 24, the padding NaN codes the kernel must not read), widened on
  // load. Every config (16, 32, 48 and 128 rows), ragged and paged, one split and several, bf16 and fp8
  // queries; on gfx942 the refusal.
  const arch::target here = arch::current_device_arch().kind;
  test::mla_case<fp4x2_e2m1> r16(16, {70, 1, 0, 33}, {1, 1, 1, 1}, 0, 81);
  if (here != arch::target::gfx950) {
    const mla::split_plan plan{32, 3};
    CHECK(wavekit::mla_decode(r16.p, r16.view(), r16.args(plan), plan, nullptr).message() ==
          "mla_decode " + r16.p.str() + ": an MXFP4 cache is widened by gfx950's scaled conversions; " +
              arch::to_string(here) + " has none");
    CHECK(mla::supports<fp4x2_e2m1>(r16.p, here).code() == status_code::unsupported_target);
    CHECK(mla::supports<fp4x2_e2m1>(r16.p, arch::target::gfx950).ok());
    return;
  }
  run_case(r16, nullptr, "MXFP4, rows16");
  const mla::split_plan many{32, 3};
  run_case(r16, &many, "MXFP4, rows16, 3 splits");
  test::mla_case<fp4x2_e2m1> r32(16, {90, 40}, {2, 1}, 16, 82);  // 32 rows: rows32, paged
  run_case(r32, nullptr, "MXFP4, rows32, paged");
  run_case(r32, &many, "MXFP4, rows32, paged, 3 splits");
  test::mla_case<fp4x2_e2m1> r64(16, {90, 40}, {3, 1}, 0, 86);  // 48 rows: rows64
  run_case(r64, nullptr, "MXFP4, rows64");
  run_case(r64, &many, "MXFP4, rows64, 3 splits");
  test::mla_case<fp4x2_e2m1> r128(128, {50, 3}, {1, 1}, 0, 83);
  run_case(r128, nullptr, "MXFP4, rows128");
  // The balanced schedule: the split tail's block scales handed on in the first tile and each next.
  for (int workers : {2, 5}) {
    const mla::split_plan plan = mla::split_plan::balanced_over(workers);
    run_case(r16, &plan, "MXFP4, rows16, balanced");
    run_case(r32, &plan, "MXFP4, rows32, paged, balanced");
  }
  run_case(r128, &many, "MXFP4, rows128, 3 splits");
  const mla::split_plan three = mla::split_plan::balanced_over(3);
  run_case(r64, &three, "MXFP4, rows64, balanced");
  test::mla_case<fp4x2_e2m1, fp8_e4m3fn> q8(16, {100}, {1}, 16, 84);
  run_case(q8, nullptr, "MXFP4, fp8 queries");
  // The plan records the cache's 4 bits; a bf16 cache's plan is refused.
  const mla::split_plan for_mx = wavekit::mla_decode_plan<fp4x2_e2m1>(r16.p, r16.view()).value();
  CHECK(for_mx.kv_element_bits == 4);
  const mla::split_plan for_bf16 = wavekit::mla_decode_plan(r16.p, r16.view()).value();
  CHECK(wavekit::mla_decode(r16.p, r16.view(), r16.args(for_bf16), for_bf16, nullptr).message() ==
        "mla_decode " + r16.p.str() +
            ": argument plan was chosen for a bf16 cache and this call reads an MXFP4 cache (a split's rows are sized "
            "by a row's bytes): plan with mla_decode_plan<KV> of the cache's type");
  // The scales' table: null, a stride short of a row's 18 scales; scales given with a bf16 cache.
  auto a = r16.args(many);
  a.kv_block_scales = nullptr;
  CHECK(wavekit::mla_decode(r16.p, r16.view(), a, many, nullptr).message() ==
        "mla_decode " + r16.p.str() + ": argument kv_block_scales is null (an MXFP4 cache's e8m0 scales)");
  a = r16.args(many), a.kv_block_scales_stride = 17;
  CHECK(wavekit::mla_decode(r16.p, r16.view(), a, many, nullptr).message() ==
        "mla_decode " + r16.p.str() +
            ": argument kv_block_scales_stride is 17; an MXFP4 row has 18 e8m0 scales (a stride of at least that)");
  test::mla_case<bf16> plain(16, {5}, {1}, 0, 85);
  auto b = plain.args(many);
  b.kv_block_scales_stride = 18;
  CHECK(wavekit::mla_decode(plain.p, plain.view(), b, many, nullptr).message() ==
        "mla_decode " + plain.p.str() +
            ": arguments kv_block_scales and kv_block_scales_stride are an MXFP4 cache's; this cache has none");
}

TEST_CASE("mla_decode: fp8 queries with their per-tensor scale", "[emu][mla]") {
  test::with_device_fp8([&](auto fp8_format) {
    using fp8 = decltype(fp8_format);
    // With a bf16 cache and with an fp8 one (DeepSeek's all-fp8 decode), one split and many, both
    // configs (16 and 128 heads), ragged and paged.
    test::mla_case<bf16, fp8> q8(16, {70, 1, 0, 33}, {1, 1, 1, 1}, 0, 51);
    run_case(q8, nullptr, "fp8 q, bf16 cache");
    const mla::split_plan many{32, 3};
    run_case(q8, &many, "fp8 q, bf16 cache, 3 splits");
    test::mla_case<fp8, fp8> all8(128, {40, 90}, {1, 2}, 16, 52);
    run_case(all8, nullptr, "fp8 q, fp8 cache, paged");
    run_case(all8, &many, "fp8 q, fp8 cache, paged, 3 splits");
    // A scale that is not finite and positive; bf16 queries given one; the other fp8 format.
    auto a = q8.args(mla::split_plan{32, 3});
    a.q_scale = std::numeric_limits<float>::infinity();
    CHECK(wavekit::mla_decode(q8.p, q8.view(), a, many, nullptr).message() ==
          "mla_decode " + q8.p.str() + ": q_scale must be finite and positive");
    a = q8.args(many);
    a.q = reinterpret_cast<const fp8*>(reinterpret_cast<std::uintptr_t>(a.q) + 4);
    CHECK(wavekit::mla_decode(q8.p, q8.view(), a, many, nullptr).code() == status_code::bad_alignment);
    mla::args<bf16, test::other_fp8_t<fp8>> wrong{};
    CHECK(wavekit::mla_decode(q8.p, q8.view(), wrong, many, nullptr).message().rfind("mla_decode (argument q): ", 0) ==
          0);
  });
  test::mla_case<bf16> t(16, {5}, {1}, 0, 53);
  auto a = t.args(mla::split_plan{32, 1});
  a.q_scale = 0.5f;
  CHECK(wavekit::mla_decode(t.p, t.view(), a, mla::split_plan{32, 1}, nullptr).message() ==
        "mla_decode " + t.p.str() + ": q_scale is fp8 queries' scale; bf16 queries have 1");
}

TEST_CASE("mla_decode: fp8 products round P as a model of the kernel's rounding does", "[emu][mla]") {
  // Sharper than the bound of every fp8-products check (2^-4 of the magnitude): with the running
  // max fixed after the first tile (falling scores), P^T's codes are the model's but where the
  // scores' fp32 error could round a weight the other way (mla_case::check_fp8_p). Every config
  // (16, 32, 64 and 128 rows), ragged and paged, one split.
  test::with_device_fp8([&](auto fp8_format) {
    using fp8 = decltype(fp8_format);
    int seed = 90;
    for (int heads : {16, 32, 64, 128})
      for (int page : {0, 16}) {
        test::mla_case<fp8, fp8> t(heads, {300, 75}, {1, 1}, page, seed++, -0.1f);
        const mla::split_plan one{320, 1};
        REQUIRE(wavekit::mla_decode(t.p, t.view(), t.args(one), one, nullptr).ok());
        REQUIRE(hipDeviceSynchronize() == hipSuccess);
        CHECK(t.check_fp8_p("fp8 P model") == 0);
      }
  });
}

TEST_CASE("mla_decode: a seeded random sweep over legal problems", "[emu][mla]") {
  std::mt19937 rng(2026);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const int page_sizes[] = {0, 1, 5, 16, 64};  // 0: the ragged layout
  for (int trial = 0; trial < 6; ++trial) {
    const int batch = pick(1, 5), heads = pick(1, 128), page = page_sizes[pick(0, 4)];
    std::vector<int> lens, q_lens;
    for (int b = 0; b < batch; ++b) lens.push_back(pick(0, 200)), q_lens.push_back(pick(0, 4));
    INFO("trial " << trial << ": " << batch << " sequences, " << heads << " heads, page " << page);
    const mla::split_plan forced{32 * pick(1, 3), 8};  // covers 96 x 8 rows: every length drawn
    if (trial % 2) {
      test::mla_case<bf16> t(heads, lens, q_lens, page, 300 + trial);
      run_case(t, pick(0, 1) ? nullptr : &forced, "sweep, bf16");
    } else {
      test::with_device_fp8([&](auto fp8_format) {
        using fp8 = decltype(fp8_format);
        if (trial % 4 == 0) {
          test::mla_case<fp8> t(heads, lens, q_lens, page, 300 + trial);
          run_case(t, pick(0, 1) ? nullptr : &forced, "sweep, fp8 cache");
        } else {
          test::mla_case<fp8, fp8> t(heads, lens, q_lens, page, 300 + trial);
          run_case(t, pick(0, 1) ? nullptr : &forced, "sweep, fp8 cache and queries");
        }
      });
    }
  }
  // Few rows (at most 32 a sequence: rows16 or rows32, groups of four waves sharing 16 rows), every
  // cache the device reads: bf16, its fp8, and on gfx950 MXFP4.
  const bool mx = arch::current_device_arch().kind == arch::target::gfx950;
  for (int trial = 0; trial < 6; ++trial) {
    const int batch = pick(1, 4), heads = pick(1, 16), page = page_sizes[pick(0, 4)];
    std::vector<int> lens, q_lens;
    for (int b = 0; b < batch; ++b) lens.push_back(pick(0, 200)), q_lens.push_back(pick(0, 2));
    INFO("few-row trial " << trial << ": " << batch << " sequences, " << heads << " heads, page " << page);
    const mla::split_plan forced{32 * pick(1, 3), 8};
    const mla::split_plan* plan = pick(0, 1) ? nullptr : &forced;
    if (trial % 3 == 0) {
      test::mla_case<bf16> t(heads, lens, q_lens, page, 400 + trial);
      run_case(t, plan, "few-row sweep, bf16");
    } else if (trial % 3 == 1 || !mx) {
      test::with_device_fp8([&](auto fp8_format) {
        test::mla_case<decltype(fp8_format)> t(heads, lens, q_lens, page, 400 + trial);
        run_case(t, plan, "few-row sweep, fp8 cache");
      });
    } else {
      test::mla_case<fp4x2_e2m1> t(heads, lens, q_lens, page, 400 + trial);
      run_case(t, plan, "few-row sweep, MXFP4 cache");
    }
  }
}
