// A short, deterministic fuzz run of the table parser (planning/tables/table_text.hpp): thousands of tables
// mutated from the shipped ones and a hand-written one (bytes flipped, replaced, inserted, deleted;
// lines duplicated, spliced, truncated; numbers at the edges of int), and random bytes. Each must
// give either entries that keep every rule (they write and read back to themselves) or a status
// naming the source, and a registry merges them or nothing. A crash or hang fails the test; a
// failure prints the input's index (the seed is fixed, so every run makes the same inputs).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "wavekit/planning/tables/registry.hpp"
#include "wavekit/planning/tables/shipped_tables.hpp"
#include "wavekit/planning/tables/table_text.hpp"

namespace planning = wavekit::planning;

namespace {

// Entries of every kind the format holds: GEMMs, the MX GEMV, MoE; comments, tabs, CRLF.
const std::string hand_written =
    "# a hand-written table\n"
    "op arch cus dtypes layout m_bucket n k e_local top_k config splits\n"
    "gemm_half gfx942 304 bf16,bf16,bf16 k_contiguous 64 4096 4096 0 0 decode 4  # note\n"
    "gemm_mx\tgfx950 256 mxfp8,mxfp8,bf16 k_contiguous 4 7168 2048 0 0 gemv4 4\r\n"
    "moe gfx942 80 e4m3fnuz,bf16 k_contiguous 8192 2048 7168 32 8 prefill 1\n"
    "\n"
    "gemm_fp8_scaled gfx950 256 e4m3fn,e4m3fn,fp16 mn_contiguous 1 576 7168 0 0 skinny 16\n";

// Words that sit at the edges of the rules (NUL and other bytes come from the random ones).
// clang-format off
const std::vector<std::string> tokens = {
    "0", "1", "-1", "+1", "2147483647", "2147483648", "99999999999999999999", "1024", "1000", "0x10", "1e3", "007",
    "gfx942", "gfx950", "host", "moe", "gemm_half", "large", "bf16,bf16", "e4m3fnuz,,", "op", "splits", "A",
    "\xEF\xBB\xBF", "\xFF", "#", "\r\n", "\t", " ", "\n", ","};
// clang-format on

struct fuzzer {
  std::mt19937 rng{27};  // its outputs are the standard's on every library

  std::size_t below(std::size_t n) { return n ? rng() % n : 0; }
  char byte() { return char(rng() & 0xff); }

  // The text with 1 to 8 mutations.
  std::string mutate(std::string text, const std::vector<std::string_view>& corpus) {
    for (std::size_t m = 1 + below(8); m > 0; --m) {
      const std::size_t at = below(text.size() + 1), kind = below(9);
      if (kind == 0 && at < text.size()) {  // a bit flipped
        text[at] = char(text[at] ^ (1 << below(8)));
      } else if (kind == 1 && at < text.size()) {  // a random byte in place of one
        text[at] = byte();
      } else if (kind == 2) {  // a few random bytes inserted
        for (std::size_t n = 1 + below(4); n > 0; --n) text.insert(at, 1, byte());
      } else if (kind == 3) {  // a range deleted
        text.erase(at, below(64));
      } else if (kind == 4) {  // a token inserted, or in place of the field that starts here
        const std::size_t end = std::min(text.find_first_of(" \t\n", at), text.size());
        text.replace(at, below(2) ? 0 : end - at, tokens[below(tokens.size())]);
      } else if (kind == 5) {  // a line (the one holding `at`) repeated somewhere
        const std::size_t start = at ? text.rfind('\n', at - 1) + 1 : 0;  // npos + 1 is 0
        const std::size_t end = std::min(text.find('\n', start), text.size());
        text.insert(below(text.size() + 1), text.substr(start, end - start + 1));
      } else if (kind == 6) {  // a piece of another input spliced in
        const std::string_view other = corpus[below(corpus.size())];
        text.insert(at, other.substr(below(other.size()), below(200)));
      } else if (kind == 7) {  // truncated
        text.resize(at);
      } else {  // a newline, so that mutations reach the header and line structure
        text.insert(at, 1, '\n');
      }
    }
    return text;
  }

  std::string random_bytes() {
    std::string s(below(2048), '\0');
    for (char& c : s) c = byte();
    return s;
  }
};

// The parser's answer for one input keeps the contract (see the header comment).
void check_answer(const std::string& text, std::size_t index) {
  const wavekit::result<std::vector<planning::entry>> r = planning::parse_table(text, "fuzz.txt");
  INFO("input " << index << " (" << text.size() << " bytes)");
  planning::registry merged;
  const wavekit::status merge = merged.merge_text(text, "fuzz.txt");
  REQUIRE(merge.ok() == r.ok());
  if (!r.ok()) {
    REQUIRE(r.error().code() == wavekit::status_code::bad_config);
    REQUIRE(r.error().message().rfind("fuzz.txt:", 0) == 0);
    REQUIRE(merged.entries().empty());
    return;
  }
  for (const planning::entry& e : r.value()) {
    REQUIRE(e.key.cus > 0);
    REQUIRE(e.key.n > 0);
    REQUIRE(e.key.k > 0);
    REQUIRE(e.value.splits > 0);
    REQUIRE(planning::m_bucket(e.key.m_bucket) == e.key.m_bucket);
    REQUIRE((e.key.e_local == 0) == (e.key.top_k == 0));
  }
  const wavekit::result<std::vector<planning::entry>> back =
      planning::parse_table(planning::write_table(r.value()), "written.txt");
  REQUIRE(back.ok());
  REQUIRE(back.value().size() == r.value().size());
  for (std::size_t i = 0; i < back.value().size(); ++i) {
    REQUIRE(back.value()[i].key == r.value()[i].key);
    REQUIRE(back.value()[i].value == r.value()[i].value);
  }
  REQUIRE(merged.entries().size() == r.value().size());  // one entry per key in a file
}

}  // namespace

TEST_CASE("the table parser answers every fuzzed table with entries or a status", "[tuning]") {
  std::vector<std::string_view> corpus = {hand_written};
  for (const planning::shipped_table& t : planning::shipped_tables) corpus.emplace_back(t.text);
  fuzzer f;
  std::size_t index = 0, parsed = 0;
  for (; index < 8000; ++index) {
    const std::string text = f.mutate(std::string(corpus[index % corpus.size()]), corpus);
    check_answer(text, index);
    parsed += planning::parse_table(text, "fuzz.txt").ok();
  }
  for (; index < 10000; ++index) check_answer(f.random_bytes(), index);
  // Both answers were exercised (a run that refuses everything would test little).
  CHECK(parsed > 100);
  CHECK(parsed < 7800);
}
