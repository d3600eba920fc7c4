// ops/mla_decode's host side: every rule of the problem and of the sequences' tables gives its
// status (naming the table and the rule), and the split plan follows the batch, the KV lengths,
// the heads and the device's CUs (a few sequences of 8K rows split into many chunks, a large
// batch not at all, many heads split less, the longest sequence bounded by max_splits), and the
// kernel config a problem gets.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "wavekit/arch/device_facts.hpp"
#include "wavekit/ops/mla_decode/balanced_split.hpp"
#include "wavekit/ops/mla_decode/model.hpp"
#include "wavekit/ops/mla_decode/plan.hpp"
#include "wavekit/ops/mla_decode/problem.hpp"

using namespace wavekit;
namespace mla = wavekit::ops::mla_decode;

namespace {

const float scale = 0.0416667f;  // 1 / sqrt(576)

mla::problem ragged(int batch, int heads, int cache_rows) {
  return {batch, heads, mla::kv_layout::ragged, 1, cache_rows, 0, scale};
}

// Sequences of the given lengths, one query row each, laid end to end in a ragged cache.
struct ragged_batch {
  std::vector<int> qo, kv;
  explicit ragged_batch(const std::vector<int>& lens, int q_len = 1) : qo{0}, kv{0} {
    for (int len : lens) qo.push_back(qo.back() + q_len), kv.push_back(kv.back() + len);
  }
  mla::sequences_view view() const { return {qo, kv, {}, {}}; }
};

}  // namespace

TEST_CASE("mla_decode: the problem's rules", "[unit][mla]") {
  CHECK(mla::validate_shape(ragged(4, 16, 4096)).ok());
  CHECK(mla::validate_shape(ragged(4, 0, 4096)).message() ==
        "mla_decode 4 sequences, 0 heads, ragged cache of 4096 rows: heads must be in [1, 128]");
  CHECK(mla::validate_shape(ragged(4, 129, 4096)).code() == status_code::bad_shape);
  CHECK(mla::validate_shape(ragged(-1, 16, 4096)).code() == status_code::bad_shape);
  CHECK(mla::validate_shape({4, 16, static_cast<mla::kv_layout>(5), 1, 64, 0, scale}).code() == status_code::bad_shape);
  CHECK(mla::validate_shape({4, 16, mla::kv_layout::ragged, 16, 64, 0, scale}).message() ==
        "mla_decode 4 sequences, 16 heads, ragged cache of 64 rows: a ragged cache has page_size 1 and max_pages 0");
  CHECK(mla::validate_shape({4, 16, mla::kv_layout::paged, 16, 100, 8, scale}).message() ==
        "mla_decode 4 sequences, 16 heads, paged cache of 100 rows in pages of 16: cache_rows must be a non-negative "
        "multiple of page_size");
  CHECK(mla::validate_shape({4, 16, mla::kv_layout::paged, 16, 64, 0, scale}).code() == status_code::bad_shape);
  CHECK(mla::validate_shape({4, 16, mla::kv_layout::ragged, 1, 64, 0, 0.0f}).code() == status_code::bad_shape);
  CHECK(mla::validate_shape({4, 16, mla::kv_layout::ragged, 1, 64, 0, std::nanf("")}).code() == status_code::bad_shape);
  CHECK(mla::validate_shape(ragged(4, 16, 2 << 20)).message() ==
        "mla_decode 4 sequences, 16 heads, ragged cache of 2097152 rows: the cache exceeds 2^31 - 1 bytes (32-bit "
        "buffer offsets)");
  CHECK(mla::validate_shape({1, 16, mla::kv_layout::paged, 16, 64, (1 << 29) - 1, scale}).ok());
  CHECK(mla::validate_shape({1, 16, mla::kv_layout::paged, 16, 64, 1 << 29, scale}).message() ==
        "mla_decode 1 sequences, 16 heads, paged cache of 64 rows in pages of 16: a page table row exceeds 2^31 - 1 "
        "bytes (32-bit buffer offsets): max_pages * 4");
}

TEST_CASE("mla_decode: the sequences' tables", "[unit][mla]") {
  const mla::problem p = ragged(3, 16, 100);
  const std::string what = "mla_decode " + p.str() + ": ";
  ragged_batch ok({10, 0, 90});
  CHECK(mla::validate_sequences(p, ok.view()).ok());
  auto with = [&](std::vector<int> qo, std::vector<int> kv) {
    return mla::validate_sequences(p, mla::sequences_view{qo, kv, {}, {}});
  };
  CHECK(with({0, 1, 2}, {0, 10, 10, 100}).message() == what + "qo_indptr must hold batch + 1 entries");
  CHECK(with({1, 2, 3, 4}, {0, 10, 10, 100}).message() == what + "qo_indptr must start at 0");
  CHECK(with({0, 2, 1, 3}, {0, 10, 10, 100}).message() ==
        what + "qo_indptr: sequence 1 has -1 query rows; each has 0 to 4 (qo_indptr must not decrease)");
  CHECK(with({0, 5, 6, 7}, {0, 10, 10, 100}).code() == status_code::bad_shape);  // q_len 5
  CHECK(with({0, 4, 4, 5}, {0, 10, 10, 100}).ok());                              // q_len 4 and 0
  CHECK(with({0, 1, 2, 3}, {0, 10, 5, 100}).message() == what + "kv_indptr must not decrease (sequence 1)");
  CHECK(with({0, 1, 2, 3}, {0, 10, 10, 101}).message() == what + "kv_indptr runs past the cache's 100 rows (to 101)");
  CHECK(with({0, 1, 2, 3}, {-1, 10, 10, 100}).code() == status_code::bad_shape);
  CHECK(with({0, 1, 2, 3}, {0, 10, 100}).message() == what + "kv_indptr must hold batch + 1 entries");
  // q past 32-bit offsets: 4 query rows in each of 3641 sequences of 128 heads (2^31 bytes and more).
  {
    ragged_batch many(std::vector<int>(3641, 4), 4);
    CHECK(mla::validate_sequences(ragged(3641, 128, 4 * 3641), many.view()).message() ==
          "mla_decode " + ragged(3641, 128, 4 * 3641).str() + ": q exceeds 2^31 - 1 bytes (32-bit buffer offsets)");
    ragged_batch fewer(std::vector<int>(3640, 4), 4);
    CHECK(mla::validate_sequences(ragged(3640, 128, 4 * 3640), fewer.view()).ok());
  }

  // Paged: 4 pages of 16 rows; sequence b uses ceil(kv_lens[b] / 16) entries of its table row.
  const mla::problem pp{2, 16, mla::kv_layout::paged, 16, 64, 3, scale};
  const std::string pwhat = "mla_decode " + pp.str() + ": ";
  const std::vector<int> qo{0, 1, 2};
  auto paged = [&](std::vector<int> lens, std::vector<int> table) {
    return mla::validate_sequences(pp, mla::sequences_view{qo, {}, lens, table});
  };
  CHECK(paged({17, 0}, {3, 0, -7, 9, 9, 9}).ok());  // entries past a sequence's pages are not read
  CHECK(paged({40, 48}, {3, 0, -7, 1, 2, 0}).message() ==
        pwhat + "page_table: sequence 0 page 2 is -7; the cache has pages 0 to 3");
  CHECK(paged({17, 1}, {3, 4, 0, 1, 2, 0}).message() ==
        pwhat + "page_table: sequence 0 page 1 is 4; the cache has pages 0 to 3");
  CHECK(paged({49, 1}, {3, 0, 1, 1, 2, 0}).message() ==
        pwhat + "kv_lens: sequence 0 has 49 rows; a sequence holds 0 to max_pages * page_size");
  CHECK(paged({-1, 1}, {3, 0, 1, 1, 2, 0}).code() == status_code::bad_shape);
  CHECK(paged({1}, {3, 0, 1, 1, 2, 0}).message() == pwhat + "kv_lens must hold batch entries");
  CHECK(paged({1, 1}, {3, 0, 1, 1, 2}).message() == pwhat + "page_table must hold batch * max_pages entries");

  // Rows and pages in 64 bits. Huge pages: a length rounded up to whole pages would wrap in 32 bits
  // and leave every page id unchecked; a page past an empty cache is refused.
  {
    const int big_page = std::numeric_limits<int>::max() / 2 + 1;
    const mla::problem empty_cache{1, 16, mla::kv_layout::paged, big_page, 0, 2, scale};
    const std::vector<int> qo1{0, 1};
    CHECK(mla::validate_sequences(empty_cache,
                                  mla::sequences_view{qo1, {}, std::vector<int>{1600000000}, std::vector<int>{5, 5}})
              .message() ==
          "mla_decode " + empty_cache.str() + ": page_table: sequence 0 page 0 is 5; the cache has pages 0 to -1");
  }
  // max_pages * page_size past 2^31 (65536 pages of 65536 rows) is a legal table, not a refusal.
  {
    const mla::problem wide{1, 16, mla::kv_layout::paged, 65536, 65536, 65536, scale};
    std::vector<int> table(65536, 0);
    const std::vector<int> qo1{0, 1};
    CHECK(mla::validate_sequences(wide, mla::sequences_view{qo1, {}, std::vector<int>{65536}, table}).ok());
    CHECK(mla::validate_sequences(wide, mla::sequences_view{qo1, {}, std::vector<int>{65537}, table}).ok());
    table[1] = 1;
    CHECK(mla::validate_sequences(wide, mla::sequences_view{qo1, {}, std::vector<int>{65537}, table}).message() ==
          "mla_decode " + wide.str() + ": page_table: sequence 0 page 1 is 1; the cache has pages 0 to 0");
  }
  // qo_indptr differences of any ints: no overflow.
  CHECK(with({0, std::numeric_limits<int>::max(), std::numeric_limits<int>::min(), 0}, {0, 10, 10, 100}).code() ==
        status_code::bad_shape);
  // A split count of a length near INT_MAX: no overflow.
  CHECK(mla::split_plan{64, 1}.splits_of(std::numeric_limits<int>::max()) == 33554432);
}

TEST_CASE("mla_decode: the split plan is the model's", "[unit][mla]") {
  using arch::target;
  // Every candidate chunk of whole KV tiles (1 to max_splits splits of the longest sequence), as
  // choose_splits cuts them, with the model's time.
  const auto candidates = [](const mla::problem& p, const mla::sequences_view& s, target t, int kv_bits) {
    int longest = 0;
    for (int b = 0; b < p.batch; ++b) longest = std::max(longest, s.kv_len(b));
    std::vector<std::pair<mla::split_plan, planning::op_time>> out;
    for (int n = 1; n <= mla::max_splits; ++n) {
      mla::split_plan plan;
      plan.chunk = std::max(32, ((std::max(longest, 1) + n - 1) / n + 31) / 32 * 32);  // whole 32-row KV tiles
      plan.splits = plan.splits_of(longest);
      out.push_back({plan, planning::predict(mla::model_launches(p, s, kv_bits, t, plan), t)});
    }
    return out;
  };
  // The chosen plan: its chunk in whole KV tiles, within max_splits, covering every sequence, and
  // within the model's error of the fastest candidate, with no candidate in that band keeping more
  // waves in flight (up to two a SIMD: plan_choice.hpp's rule).
  const auto check_model_choice = [&](const mla::problem& p, const mla::sequences_view& s, target t, int kv_bits) {
    const mla::split_plan plan = mla::choose_splits(p, s, t, kv_bits);
    const planning::op_time chosen = planning::predict(mla::model_launches(p, s, kv_bits, t, plan), t);
    CHECK(plan.chunk % 32 == 0);
    CHECK(plan.splits <= mla::max_splits);
    for (int b = 0; b < p.batch; ++b) CHECK(plan.covers(s.kv_len(b)));
    double fastest = chosen.us;
    for (const auto& [c, time] : candidates(p, s, t, kv_bits)) fastest = std::min(fastest, time.us);
    CHECK(planning::within_model_error(chosen.us, fastest));
    for (const auto& [c, time] : candidates(p, s, t, kv_bits))
      if (planning::within_model_error(time.us, fastest))
        CHECK(std::min(time.launches[0].waves_in_flight, 2 * time.launches[0].simds) <=
              std::min(chosen.launches[0].waves_in_flight, 2 * chosen.launches[0].simds) * 1.1);
    // What it was chosen for besides the lengths: the launch refuses it for anything else.
    CHECK(plan.kv_element_bits == kv_bits);
    CHECK(plan.heads == p.heads);
    CHECK(plan.compute_units == arch::facts_for(t).compute_units);
    return plan;
  };
  // amd-mixed-mla's shapes (16 heads, fp8 and bf16 caches), aiter's 128-head decode, a single
  // long sequence at 32 heads, on both targets.
  for (target t : {target::gfx942, target::gfx950})
    for (int kv_bits : {8, 16, 4}) {
      if (kv_bits == 4 && t != target::gfx950) continue;  // MXFP4: gfx950
      for (const auto& [batch, len, heads] : std::vector<std::array<int, 3>>{
               {4, 1024, 16}, {32, 1024, 16}, {4, 8192, 16}, {256, 8192, 16}, {64, 21, 128}, {1, 8192, 32}}) {
        ragged_batch b(std::vector<int>(batch, len));
        check_model_choice(ragged(batch, heads, batch * len), b.view(), t, kv_bits);
      }
    }
  // The issue the model's splits answer: 32 sequences of 1024 rows at 16 heads put 32 workgroups
  // on 304 CUs without splitting; the model splits them.
  {
    ragged_batch b(std::vector<int>(32, 1024));
    CHECK(mla::choose_splits(ragged(32, 16, 32 * 1024), b.view(), target::gfx942, 16).splits > 1);
  }
  // Short sequences, a large batch: the grid is full without splitting: one split, no reduce.
  {
    ragged_batch b(std::vector<int>(1024, 100));
    const auto plan = check_model_choice(ragged(1024, 16, 1024 * 100), b.view(), target::gfx942, 16);
    CHECK(plan.splits == 1);
    CHECK(!plan.reduce());
    CHECK(plan.covers(plan.chunk));
    CHECK(!plan.covers(plan.chunk + 1));
  }
  // One very long sequence with 1 head: at most max_splits chunks; empty sequences: one split.
  {
    ragged_batch b({1 << 20});
    const auto plan = mla::choose_splits(ragged(1, 1, 1 << 20), b.view(), target::gfx942);
    CHECK(plan.splits <= mla::max_splits);
    CHECK(plan.covers(1 << 20));
    ragged_batch empty({0, 0});
    CHECK(mla::choose_splits(ragged(2, 16, 0), empty.view(), target::gfx942).splits == 1);
  }
  // The host (no device) plans as gfx942.
  {
    ragged_batch b({8192, 8192, 8192, 8192});
    CHECK(mla::choose_splits(ragged(4, 16, 4 * 8192), b.view(), target::host).chunk ==
          mla::choose_splits(ragged(4, 16, 4 * 8192), b.view(), target::gfx942).chunk);
  }
}

TEST_CASE("mla_decode: the balanced cut (every unit once, every run's pieces in their slots)", "[unit][mla]") {
  // Runs of random lengths (whole ones, ones cut between two workers and between many), workers
  // from one to one a unit: the workers' ranges partition the units evenly (none empty), worker_of
  // inverts begin, each run's segments cover its tiles once in worker order, a cut run's pieces
  // are the workers worker_of names, and no two pieces share a partial slot.
  std::mt19937 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<int> runs(1 + rng() % 12);
    for (int& tiles : runs) tiles = 1 + static_cast<int>(rng() % (trial % 3 == 0 ? 40 : 5));
    int units = 0;
    for (int tiles : runs) units += tiles;
    const int workers = 1 + static_cast<int>(rng() % units);  // at most one a unit (balanced_split's rule)
    const mla::balanced_split cut{units, workers};
    INFO("units " << units << ", workers " << workers);
    for (int w = 0; w < workers; ++w) {
      const int size = cut.begin(w + 1) - cut.begin(w);
      CHECK((size == units / workers || size == units / workers + 1));
    }
    for (int u = 0; u < units; ++u) {
      const int w = cut.worker_of(u);
      CHECK((cut.begin(w) <= u && u < cut.begin(w + 1)));
    }
    std::vector<int> slot_users(2 * workers, 0);
    int run_first = 0;
    for (int tiles : runs) {
      int covered = 0, pieces_seen = 0;
      for (int w = cut.worker_of(run_first); w < workers && cut.begin(w) < run_first + tiles; ++w) {
        REQUIRE(cut.begin(w) < cut.begin(w + 1));  // no range empty
        const int unit = std::max(run_first, cut.begin(w));
        const mla::segment seg = mla::segment_at(cut, w, unit, run_first, tiles);
        CHECK(seg.tile_begin == covered);
        covered = seg.tile_end;
        if (seg.whole) {
          CHECK((seg.tile_begin == 0 && seg.tile_end == tiles));
          continue;
        }
        CHECK(seg.first_worker == cut.worker_of(run_first));
        CHECK(seg.pieces == cut.worker_of(run_first + tiles - 1) - seg.first_worker + 1);
        CHECK(seg.slot == mla::piece_slot(seg.first_worker, w - seg.first_worker));
        ++slot_users[seg.slot], ++pieces_seen;
      }
      CHECK(covered == tiles);
      CHECK((pieces_seen == 0 || pieces_seen == cut.worker_of(run_first + tiles - 1) - cut.worker_of(run_first) + 1));
      run_first += tiles;
    }
    for (int users : slot_users) CHECK(users <= 1);
  }
}

TEST_CASE("mla_decode: the launch's plan, the grid of chunks or the balanced schedule", "[unit][mla]") {
  using arch::target;
  // Lengths that differ (the grid's chunk is sized by the longest sequence) at 16 and 128 heads
  // (rows16 and rows128): the model rates the balanced schedule; whichever it takes is within its
  // error of the other, and a balanced plan records what it was chosen for and has its kernel's
  // codegen figures.
  for (target t : {target::gfx942, target::gfx950})
    for (int heads : {16, 128}) {
      std::vector<int> lens;
      for (int i = 0; i < 64; ++i) lens.push_back(i % 8 == 0 ? 16384 : 200 + 37 * i);
      int rows = 0;
      for (int len : lens) rows += len;
      ragged_batch b(lens);
      const mla::problem p = ragged(64, heads, rows);
      const mla::split_plan chosen = mla::choose_plan(p, b.view(), t, 8, 8);
      const mla::split_plan grid = mla::choose_splits(p, b.view(), t, 8, 8);
      const double chosen_us = planning::predict(mla::model_launches(p, b.view(), 8, t, chosen, 8), t).us;
      const double grid_us = planning::predict(mla::model_launches(p, b.view(), 8, t, grid, 8), t).us;
      INFO(arch::to_string(t) << ", " << heads << " heads: chosen " << chosen_us << " us, grid " << grid_us << " us");
      CHECK(planning::within_model_error(chosen_us, std::min(chosen_us, grid_us)));
      const mla::split_plan balanced = mla::split_plan::balanced_over(arch::facts_for(t).compute_units);
      const auto launches = mla::model_launches(p, b.view(), 8, t, balanced, 8);
      REQUIRE(launches.size() >= 2);
      CHECK(launches[0].what == "balanced schedule");
      CHECK(launches[1].profile != nullptr);  // the balanced kernel's codegen figures
      if (chosen.balanced()) {
        CHECK(chosen.workers <= mla::max_workers);
        CHECK(chosen.heads == heads);
        CHECK(chosen.compute_units == arch::facts_for(t).compute_units);
      }
    }
  // What a balanced plan writes and reads beyond the output: each cut run's pieces, once each way.
  {
    ragged_batch b({100, 100});  // 2 sequences x 4 tiles at 16 heads: one group each
    const mla::balanced_figures f = mla::balanced_count(ragged(2, 16, 200), b.view(), 16, 32, 3);
    CHECK(f.units == 8);
    CHECK(f.cut_runs == 2);  // workers' ranges [0, 2), [2, 5), [5, 8): both runs cut
    CHECK(f.segments == 4);  // run 0 in workers 0 and 1, run 1 in workers 1 and 2
    CHECK(f.piece_rows == 4 * 16);
    CHECK(f.most_pieces == 2);
  }
}

TEST_CASE("mla_decode: the config holds every sequence's rows in one workgroup", "[unit][mla]") {
  // Rows = query rows x heads of the longest sequence: up to 16 the 4 waves sharing them, up to 32
  // two such groups in 8 waves, up to 64 the 4-wave config, up to 128 the 8-wave one (DeepSeek's
  // 128 heads: one read of each KV row), beyond that several of it.
  CHECK(mla::choose_config(ragged(2, 16, 100), ragged_batch({50, 50}, 4).view()) == mla::config_id::rows64);
  CHECK(mla::choose_config(ragged(2, 64, 100), ragged_batch({50, 50}).view()) == mla::config_id::rows64);
  CHECK(mla::choose_config(ragged(2, 65, 100), ragged_batch({50, 50}).view()) == mla::config_id::rows128);
  CHECK(mla::choose_config(ragged(2, 128, 100), ragged_batch({50, 50}).view()) == mla::config_id::rows128);
  CHECK(mla::choose_config(ragged(2, 128, 100), ragged_batch({50, 50}, 2).view()) == mla::config_id::rows128);
  CHECK(mla::choose_config(ragged(2, 16, 100), ragged_batch({50, 50}).view()) == mla::config_id::rows16);
  CHECK(mla::choose_config(ragged(2, 8, 100), ragged_batch({50, 50}, 2).view()) == mla::config_id::rows16);
  CHECK(mla::choose_config(ragged(2, 17, 100), ragged_batch({50, 50}).view()) == mla::config_id::rows32);
  CHECK(mla::choose_config(ragged(2, 16, 100), ragged_batch({50, 50}, 2).view()) == mla::config_id::rows32);
  CHECK(mla::choose_config(ragged(2, 32, 100), ragged_batch({50, 50}).view()) == mla::config_id::rows32);
  CHECK(mla::choose_config(ragged(2, 33, 100), ragged_batch({50, 50}).view()) == mla::config_id::rows64);
  CHECK(mla::config_rows32::rows == 32);
  CHECK(mla::config_rows32::name() == "mla_decode<w8, kv32, k4>");
  CHECK(mla::config_rows16::rows == 16);
  CHECK(mla::config_rows16::name() == "mla_decode<w4, kv32, k4>");
  CHECK(mla::config_rows64::name() == "mla_decode<w4, kv32>");
  CHECK(mla::config_rows64::rows == 64);
  CHECK(mla::config_rows128::rows == 128);
}
