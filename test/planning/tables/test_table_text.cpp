// planning/tables/table_text.hpp: the text a table is kept in. Written tables read back to the same entries;
// each broken rule is a status naming file:line and the rule; a UTF-8 byte order mark is skipped;
// a table file is a regular file within the size cap, refused otherwise without waiting or reading.
#include <catch2/catch.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <string>
#include <thread>
#include <vector>

#if defined(__unix__)
#include <sys/stat.h>
#endif

#include "wavekit/planning/tables/table_text.hpp"

namespace planning = wavekit::planning;
using wavekit::arch::target;

namespace {

const std::string header = "op arch cus dtypes layout m_bucket n k e_local top_k config splits\n";

std::vector<planning::entry> sample_entries() {
  return {
      {{"gemm_fp8_blockscale", target::gfx942, 304, "e4m3fnuz,e4m3fnuz,bf16", "mn_contiguous", 1024, 1536, 7168},
       {"medium", 1}},
      {{"gemm_half", target::gfx950, 256, "bf16,bf16,bf16", "k_contiguous", 1, 4096, 4096}, {"decode", 16}},
      {{"gemm_mx", target::gfx950, 256, "mxfp8,mxfp8,bf16", "k_contiguous", 4, 7168, 2048}, {"gemv4", 4}},
      {{"moe", target::gfx942, 80, "e4m3fnuz,bf16", "k_contiguous", 8192, 2048, 7168, 32, 8}, {"prefill", 1}},
  };
}

bool same(const std::vector<planning::entry>& a, const std::vector<planning::entry>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i].key != b[i].key || a[i].value != b[i].value) return false;
  return true;
}

// The status of a table whose only entry is `line`.
std::string problem_with(const std::string& line) {
  const wavekit::result<std::vector<planning::entry>> r = planning::parse_table("# a table\n" + header + line, "t.txt");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code() == wavekit::status_code::bad_config);
  return r.error().message();
}

const std::string good = "gemm_half gfx942 304 bf16,bf16,bf16 k_contiguous 64 4096 4096 0 0 decode 4";

// read_table_file(path)'s status message ("" when it reads a table), or, when the read has not
// returned within 5 seconds (it waits on a FIFO's writer or reads a device without end), a failure
// that ends the process: the reading thread cannot be stopped.
std::string refusal_within_seconds(const std::string& path) {
  std::packaged_task<std::string()> read([path] {
    const wavekit::result<std::vector<planning::entry>> r = planning::read_table_file(path);
    return r.ok() ? std::string() : r.error().message();
  });
  std::future<std::string> done = read.get_future();
  std::thread(std::move(read)).detach();
  if (done.wait_for(std::chrono::seconds(5)) != std::future_status::ready) {
    std::fprintf(stderr, "read_table_file(\"%s\") did not return within 5 s\n", path.c_str());
    std::fflush(stderr);
    std::_Exit(1);
  }
  return done.get();
}

}  // namespace

TEST_CASE("a written table reads back to the same entries", "[tuning]") {
  const std::vector<planning::entry> entries = sample_entries();
  const std::string text = planning::write_table(entries, "two lines\nof comment", {"a note", "", "third"});
  const wavekit::result<std::vector<planning::entry>> back = planning::parse_table(text, "written");
  REQUIRE(back.ok());
  CHECK(same(back.value(), entries));
  // Comments, the header and aligned columns; notes after their entries.
  CHECK(text.rfind("# two lines\n# of comment\nop ", 0) == 0);
  CHECK(text.find(" 0     0 medium       1  # a note\n") != std::string::npos);
  CHECK(text.find(" decode      16\n") != std::string::npos);
  CHECK(text.find(" gemv4        4  # third\n") != std::string::npos);
  // Written again, the same text.
  CHECK(planning::write_table(back.value(), "two lines\nof comment", {"a note", "", "third"}) == text);
}

TEST_CASE("a table file round trip", "[tuning]") {
  const std::string path = "test_table_text_round_trip.txt";
  REQUIRE(planning::write_table_file(path, sample_entries(), "written by a test").ok());
  const wavekit::result<std::vector<planning::entry>> back = planning::read_table_file(path);
  REQUIRE(back.ok());
  CHECK(same(back.value(), sample_entries()));
  std::remove(path.c_str());

  const wavekit::result<std::vector<planning::entry>> missing = planning::read_table_file("no/such/table.txt");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().message() == "no/such/table.txt: cannot open the tuning table");
}

TEST_CASE("comments, blank lines, tabs and CRLF are not entries", "[tuning]") {
  const std::string text = "\n# comment\n   # indented comment\n" + header + "\n\t\n" +
                           "gemm_half\tgfx942  304 bf16,bf16,bf16 k_contiguous 64 4096 4096 0 0 decode 4  # note\r\n";
  const wavekit::result<std::vector<planning::entry>> r = planning::parse_table(text, "t.txt");
  REQUIRE(r.ok());
  REQUIRE(r.value().size() == 1);
  CHECK(r.value()[0].value == planning::value{"decode", 4});
  CHECK(r.value()[0].key.m_bucket == 64);
  // Only comments (or nothing): an empty table.
  CHECK(planning::parse_table("", "t.txt").value().empty());
  CHECK(planning::parse_table("# nothing yet\n", "t.txt").value().empty());
  CHECK(planning::parse_table(header, "t.txt").value().empty());
}

TEST_CASE("each broken rule names file:line and the rule", "[tuning]") {
  const auto replaced = [](int field, const std::string& with) {
    std::vector<std::string> f;
    std::size_t at = 0;
    while (at < good.size()) {
      const std::size_t end = std::min(good.find(' ', at), good.size());
      f.push_back(good.substr(at, end - at));
      at = end + 1;
    }
    f[field] = with;
    std::string line;
    for (const std::string& s : f) line += (line.empty() ? "" : " ") + s;
    return line;
  };
  // The entry is line 3 (a comment line, the header).
  CHECK(problem_with(good + " extra") == "t.txt:3: an entry has 12 fields (the header's columns), not 13");
  CHECK(problem_with("gemm_half gfx942") == "t.txt:3: an entry has 12 fields (the header's columns), not 2");
  CHECK(problem_with(replaced(0, "Gemm-Half")) == "t.txt:3: op must be a word of a-z, 0-9 and _ (got 'Gemm-Half')");
  // A field's bytes are quoted printable: others as \xNN, at most 32 bytes of it.
  CHECK(problem_with(replaced(0, std::string("op\x1b[2J\xff\\", 8))) ==
        "t.txt:3: op must be a word of a-z, 0-9 and _ (got 'op\\x1b[2J\\xff\\x5c')");
  CHECK(problem_with(replaced(10, std::string(40, '@'))) ==
        "t.txt:3: config must be a word of a-z, 0-9 and _ (got '" + std::string(32, '@') + "'... (40 bytes))");
  CHECK(problem_with(replaced(1, "gfx90a")) == "t.txt:3: arch must be gfx942 or gfx950 (got 'gfx90a')");
  CHECK(problem_with(replaced(1, "host")) == "t.txt:3: arch must be gfx942 or gfx950 (got 'host')");
  CHECK(problem_with(replaced(2, "0")) == "t.txt:3: cus must be a positive integer (got '0')");
  CHECK(problem_with(replaced(2, "many")) == "t.txt:3: cus must be a positive integer (got 'many')");
  CHECK(problem_with(replaced(3, "bf16;bf16")) ==
        "t.txt:3: dtypes must be a word of a-z, 0-9, _ and , (got 'bf16;bf16')");
  CHECK(problem_with(replaced(4, "K")) == "t.txt:3: layout must be a word of a-z, 0-9 and _ (got 'K')");
  CHECK(problem_with(replaced(5, "1000")) == "t.txt:3: m_bucket must be a power of two, M rounded up (got 1000)");
  CHECK(problem_with(replaced(5, "-64")) == "t.txt:3: m_bucket must be a positive integer (got '-64')");
  CHECK(problem_with(replaced(6, "4096.0")) == "t.txt:3: n must be a positive integer (got '4096.0')");
  CHECK(problem_with(replaced(7, "99999999999")) == "t.txt:3: k must be a positive integer (got '99999999999')");
  CHECK(problem_with(replaced(8, "-1")) == "t.txt:3: e_local must be a non-negative integer (got '-1')");
  CHECK(problem_with(replaced(9, "+2")) == "t.txt:3: top_k must be a non-negative integer (got '+2')");
  CHECK(problem_with(replaced(8, "8")) == "t.txt:3: e_local and top_k are both 0 (a GEMM) or both positive (MoE)");
  CHECK(problem_with(replaced(10, "Large")) == "t.txt:3: config must be a word of a-z, 0-9 and _ (got 'Large')");
  CHECK(problem_with(replaced(11, "0")) == "t.txt:3: splits must be a positive integer (got '0')");
  CHECK(problem_with("moe gfx942 304 bf16,bf16 k_contiguous 64 2048 7168 8 2 decode 2") ==
        "t.txt:3: splits must be 1 for MoE entries (its grouped GEMMs do not split K)");
}

TEST_CASE("the header comes first, exactly; a key appears once in a file", "[tuning]") {
  const wavekit::result<std::vector<planning::entry>> no_header = planning::parse_table("# c\n" + good + "\n", "u.txt");
  REQUIRE_FALSE(no_header.ok());
  CHECK(no_header.error().message() ==
        "u.txt:2: the first line that is not a comment must be the header 'op arch cus dtypes layout m_bucket n k "
        "e_local top_k config splits'");
  const wavekit::result<std::vector<planning::entry>> reordered =
      planning::parse_table("arch op cus dtypes layout m_bucket n k e_local top_k config splits\n", "u.txt");
  REQUIRE_FALSE(reordered.ok());
  CHECK(reordered.error().message().rfind("u.txt:1: the first line that is not a comment must be the header", 0) == 0);

  const wavekit::result<std::vector<planning::entry>> twice =
      planning::parse_table(header + good + "\n# between\n" + good + "\n", "u.txt");
  REQUIRE_FALSE(twice.ok());
  CHECK(twice.error().message() == "u.txt:4: the same key as line 2 (one entry per key in a file)");
}

TEST_CASE("every bad line is reported, and a bad table yields no entries", "[tuning]") {
  const std::string text = header + good + "\n" + "gemm_half gfx942 304 bf16,bf16,bf16 k_contiguous 48 1 1 0 0 x 1\n" +
                           "gemm_half gfx951 304 bf16,bf16,bf16 k_contiguous 64 2 2 0 0 x 1\n";
  const wavekit::result<std::vector<planning::entry>> r = planning::parse_table(text, "v.txt");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message() ==
        "v.txt:3: m_bucket must be a power of two, M rounded up (got 48)\n"
        "v.txt:4: arch must be gfx942 or gfx950 (got 'gfx951')");
}

TEST_CASE("a UTF-8 byte order mark before the first line is skipped", "[tuning]") {
  const std::string bom = "\xEF\xBB\xBF";
  for (const std::string& text : {header + good + "\n", "# comment\n" + header + good + "\n"}) {
    const wavekit::result<std::vector<planning::entry>> plain = planning::parse_table(text, "t.txt");
    const wavekit::result<std::vector<planning::entry>> marked = planning::parse_table(bom + text, "t.txt");
    REQUIRE(plain.ok());
    INFO((marked.ok() ? std::string() : marked.error().message()));
    REQUIRE(marked.ok());
    CHECK(same(marked.value(), plain.value()));
  }
  CHECK(planning::parse_table(bom, "t.txt").value().empty());
  // Elsewhere it is a byte of a field.
  CHECK_FALSE(planning::parse_table(header + bom + good + "\n", "t.txt").ok());
  // And from a file.
  const std::string path = "test_table_text_bom.txt";
  std::ofstream(path, std::ios::binary) << bom << header << good << "\n";
  const wavekit::result<std::vector<planning::entry>> read = planning::read_table_file(path);
  std::remove(path.c_str());
  REQUIRE(read.ok());
  CHECK(read.value().size() == 1);
}

TEST_CASE("a table file that is a directory is refused naming the path and rule", "[tuning]") {
  const std::string path = "test_table_text_directory.txt";
  std::filesystem::create_directory(path);
  const std::string message = refusal_within_seconds(path);
  std::filesystem::remove(path);
  CHECK(message == path + ": a tuning table must be a regular file; this is a directory");
}

#if defined(__unix__)
TEST_CASE("a table file that is a FIFO is refused without waiting for a writer", "[tuning]") {
  const std::string path = "test_table_text.fifo";
  std::filesystem::remove(path);
  REQUIRE(mkfifo(path.c_str(), 0600) == 0);
  const std::string message = refusal_within_seconds(path);
  std::filesystem::remove(path);
  CHECK(message == path + ": a tuning table must be a regular file; this is a FIFO");
}
#endif

TEST_CASE("/dev/zero as a table file is refused at once", "[tuning]") {
  if (!std::filesystem::exists("/dev/zero")) return;
  CHECK(refusal_within_seconds("/dev/zero") ==
        "/dev/zero: a tuning table must be a regular file; this is a "
        "character device");
}

TEST_CASE("a table file larger than 4 MiB is refused unread and one of exactly 4 MiB is read", "[tuning]") {
  CHECK(planning::table_file_max_bytes == 4u << 20);
  const std::string path = "test_table_text_large.txt";
  {
    std::ofstream out(path, std::ios::binary);
    const std::string table = header + good + "\n";
    out << table << std::string(planning::table_file_max_bytes - table.size(), '\n');
  }
  REQUIRE(std::filesystem::file_size(path) == planning::table_file_max_bytes);
  const wavekit::result<std::vector<planning::entry>> at_cap = planning::read_table_file(path);
  REQUIRE(at_cap.ok());
  CHECK(at_cap.value().size() == 1);
  // One byte more.
  std::filesystem::resize_file(path, planning::table_file_max_bytes + 1);
  CHECK(refusal_within_seconds(path) == path + ": a tuning table is at most 4194304 bytes (4 MiB); this file has " +
                                            std::to_string(planning::table_file_max_bytes + 1));
  std::filesystem::remove(path);
}
