// ops/mla_decode's host side: every rule of the problem and of the sequences' tables gives its
// status (naming the table and the rule), and the split plan follows the batch, the KV lengths,
// the heads and the device's CUs (a few sequences of 8K rows split into many chunks, a large
// batch not at all, many heads split less, the longest sequence bounded by max_splits), and the
// kernel config a problem gets.
#include <catch2/catch.hpp>

#include <limits>
#include <string>
#include <vector>

#include "wavekit/arch/device_facts.hpp"
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

TEST_CASE("mla_decode: the split plan", "[unit][mla]") {
  const auto& mi300x = arch::facts_of<arch::target::gfx942>;
  const int tile = 64;
  // amd-mixed-mla's smallest batch: 4 sequences of 8192 rows, 16 heads: many splits of the minimum
  // chunk (about 37 rows per head, in whole tiles).
  CHECK(mla::min_chunk(16, 1, tile) == 640);
  CHECK(mla::min_chunk(16, 1, tile, 1) == 1216);  // an fp8 cache: half the bytes a row, twice the rows
  {
    ragged_batch b({8192, 8192, 8192, 8192});
    const auto plan = mla::choose_splits(ragged(4, 16, 4 * 8192), b.view(), mi300x, tile);
    CHECK(plan.chunk == 640);
    CHECK(plan.splits == 13);
    CHECK(plan.reduce());
    // What it was chosen for besides the lengths: the launch refuses it for anything else.
    CHECK(plan.kv_element_bytes == 2);
    CHECK(plan.heads == 16);
    CHECK(plan.compute_units == 304);
    CHECK(mla::choose_splits(ragged(4, 16, 4 * 8192), b.view(), mi300x, tile, 1).kv_element_bytes == 1);
  }
  // 256 sequences of 8192 rows: 2M rows over 608 workgroups: 3 chunks of 3456 rows.
  {
    ragged_batch b(std::vector<int>(256, 8192));
    const auto plan = mla::choose_splits(ragged(256, 16, 256 * 8192), b.view(), mi300x, tile);
    CHECK(plan.chunk == 3456);
    CHECK(plan.splits == 3);
  }
  // 128 heads: the partial outputs cost 8 times more, so the chunks are 8 times longer.
  CHECK(mla::min_chunk(128, 1, tile) == 4672);
  {
    ragged_batch b({8192, 8192, 8192, 8192});
    const auto plan = mla::choose_splits(ragged(4, 128, 4 * 8192), b.view(), mi300x, tile);
    CHECK(plan.chunk == 4672);
    CHECK(plan.splits == 2);
  }
  // Short sequences, a large batch: one split, no reduce.
  {
    ragged_batch b(std::vector<int>(1024, 100));
    const auto plan = mla::choose_splits(ragged(1024, 16, 1024 * 100), b.view(), mi300x, tile);
    CHECK(plan.splits == 1);
    CHECK(!plan.reduce());
    CHECK(plan.covers(plan.chunk));
    CHECK(!plan.covers(plan.chunk + 1));
  }
  // One very long sequence with 1 head: at most max_splits chunks; empty sequences: one split.
  {
    ragged_batch b({1 << 20});
    const auto plan = mla::choose_splits(ragged(1, 1, 1 << 20), b.view(), mi300x, tile);
    CHECK(plan.splits <= mla::max_splits);
    CHECK(plan.covers(1 << 20));
    ragged_batch empty({0, 0});
    CHECK(mla::choose_splits(ragged(2, 16, 0), empty.view(), mi300x, tile).splits == 1);
  }
  // gfx950 has 256 CUs: the same batch splits into chunks of at least as many rows.
  {
    ragged_batch b(std::vector<int>(256, 8192));
    const auto plan =
        mla::choose_splits(ragged(256, 16, 256 * 8192), b.view(), arch::facts_of<arch::target::gfx950>, tile);
    CHECK(plan.chunk == 4096);
    CHECK(plan.splits == 2);
  }
}

TEST_CASE("mla_decode: the config holds every sequence's rows in one workgroup", "[unit][mla]") {
  // Rows = query rows x heads of the longest sequence: up to 64 the 4-wave config, up to 128 the
  // 8-wave one (DeepSeek's 128 heads: one read of each KV row), beyond that several of it.
  CHECK(mla::choose_config(ragged(2, 16, 100), ragged_batch({50, 50}, 4).view()) == mla::config_id::rows64);
  CHECK(mla::choose_config(ragged(2, 64, 100), ragged_batch({50, 50}).view()) == mla::config_id::rows64);
  CHECK(mla::choose_config(ragged(2, 65, 100), ragged_batch({50, 50}).view()) == mla::config_id::rows128);
  CHECK(mla::choose_config(ragged(2, 128, 100), ragged_batch({50, 50}).view()) == mla::config_id::rows128);
  CHECK(mla::choose_config(ragged(2, 128, 100), ragged_batch({50, 50}, 2).view()) == mla::config_id::rows128);
  CHECK(mla::config_rows64::rows == 64);
  CHECK(mla::config_rows128::rows == 128);
}
