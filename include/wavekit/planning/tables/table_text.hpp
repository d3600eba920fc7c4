// The text form of a tuned table: what tuning/*.txt, the tuner's output and the files named in
// WAVEKIT_TUNING_FILES hold. One entry a line, columns separated by spaces or tabs (dtypes hold
// commas, so not CSV), '#' starts a comment (whole lines or the rest of one), blank lines are
// skipped, and the first other line is the header naming the columns in this order:
//
//   op                  arch   cus dtypes                 layout        m_bucket    n    k e_local top_k config splits
//   gemm_fp8_blockscale gfx942 304 e4m3fnuz,e4m3fnuz,bf16 mn_contiguous     1024 1536 7168       0     0 medium      1
//
// Rules (a broken one is a status naming file:line and the rule): 12 fields; op, layout and
// config are words of [a-z0-9_], dtypes of [a-z0-9_,]; arch gfx942 or gfx950; cus, n, k and
// splits positive integers; m_bucket a power of two (planning::m_bucket); e_local and top_k both 0
// (a GEMM) or both positive (MoE, whose splits are 1); one entry per key in a file. A UTF-8 byte
// order mark before the first line (what some Windows editors write) is skipped.
//
// A table file must be a regular file of at most table_file_max_bytes (4 MiB: the shipped tables
// are a few KiB, a deployment's every shape a few hundred): a directory, FIFO or device
// (/dev/zero) is refused before it is opened, so reading never waits on a writer or runs without
// end, and a larger file is refused unread. The parser itself takes any bytes: a bad table is a
// status, never a crash (test/planning/tables/test_table_fuzz.cpp).
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <algorithm>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "wavekit/core/result.hpp"
#include "wavekit/core/status.hpp"
#include "wavekit/planning/tables/key.hpp"

namespace wavekit::planning {

inline constexpr std::string_view table_columns[] = {"op", "arch", "cus",     "dtypes", "layout", "m_bucket",
                                                     "n",  "k",    "e_local", "top_k",  "config", "splits"};
inline constexpr int table_column_count = 12;
inline constexpr std::uintmax_t table_file_max_bytes = std::uintmax_t{4} << 20;
inline constexpr std::string_view utf8_byte_order_mark = "\xEF\xBB\xBF";

namespace detail {

inline bool is_word(std::string_view s, std::string_view extra = {}) {
  if (s.empty()) return false;
  for (char c : s)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || extra.find(c) != std::string_view::npos))
      return false;
  return true;
}

// A decimal int (no sign, no spaces), or nothing.
inline std::optional<int> parse_int(std::string_view s) {
  int v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || end != s.data() + s.size() || s.empty() || s[0] == '-' || s[0] == '+') return std::nullopt;
  return v;
}

inline std::vector<std::string_view> split_fields(std::string_view line) {
  std::vector<std::string_view> fields;
  std::size_t at = 0;
  while (at < line.size()) {
    while (at < line.size() && (line[at] == ' ' || line[at] == '\t' || line[at] == '\r')) ++at;
    std::size_t end = at;
    while (end < line.size() && line[end] != ' ' && line[end] != '\t' && line[end] != '\r') ++end;
    if (end > at) fields.push_back(line.substr(at, end - at));
    at = end;
  }
  return fields;
}

// A field as a status quotes it: printable ASCII as is, other bytes as \xNN, at most 32 bytes of
// it (a table of binary garbage must not put its bytes into a message or a terminal).
inline std::string quoted_field(std::string_view field) {
  constexpr std::size_t shown = 32;
  std::string out = "'";
  for (std::size_t i = 0; i < field.size() && i < shown; ++i) {
    const auto c = static_cast<unsigned char>(field[i]);
    if (c >= 0x20 && c < 0x7F && c != '\\') {
      out += static_cast<char>(c);
    } else {
      constexpr char hex[] = "0123456789abcdef";
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  out += field.size() > shown ? "'... (" + std::to_string(field.size()) + " bytes)" : "'";
  return out;
}

// The entry of one data line's fields, or the rule it breaks.
inline result<entry> parse_entry(const std::vector<std::string_view>& f) {
  auto broken = [](std::string rule) { return status{status_code::bad_config, std::move(rule)}; };
  if (int(f.size()) != table_column_count)
    return broken("an entry has " + std::to_string(table_column_count) + " fields (the header's columns), not " +
                  std::to_string(f.size()));
  entry e;
  if (!is_word(f[0])) return broken("op must be a word of a-z, 0-9 and _ (got " + quoted_field(f[0]) + ")");
  e.key.op = f[0];
  const std::optional<arch::target> t = parse_target(f[1]);
  if (!t) return broken("arch must be gfx942 or gfx950 (got " + quoted_field(f[1]) + ")");
  e.key.arch = *t;
  if (!is_word(f[3], ",")) return broken("dtypes must be a word of a-z, 0-9, _ and , (got " + quoted_field(f[3]) + ")");
  e.key.dtypes = f[3];
  if (!is_word(f[4])) return broken("layout must be a word of a-z, 0-9 and _ (got " + quoted_field(f[4]) + ")");
  e.key.layout = f[4];
  if (!is_word(f[10])) return broken("config must be a word of a-z, 0-9 and _ (got " + quoted_field(f[10]) + ")");
  e.value.config = f[10];

  struct number {
    int index;
    int* into;
    bool positive;  // else zero allowed
  };
  for (const number& n : {number{2, &e.key.cus, true}, number{5, &e.key.m_bucket, true}, number{6, &e.key.n, true},
                          number{7, &e.key.k, true}, number{8, &e.key.e_local, false}, number{9, &e.key.top_k, false},
                          number{11, &e.value.splits, true}}) {
    const std::optional<int> v = parse_int(f[n.index]);
    if (!v || (n.positive && *v == 0))
      return broken(std::string(table_columns[n.index]) + " must be a " +
                    (n.positive ? "positive integer" : "non-negative integer") + " (got " + quoted_field(f[n.index]) +
                    ")");
    *n.into = *v;
  }
  if (m_bucket(e.key.m_bucket) != e.key.m_bucket)
    return broken("m_bucket must be a power of two, M rounded up (got " + std::to_string(e.key.m_bucket) + ")");
  if ((e.key.e_local == 0) != (e.key.top_k == 0))
    return broken("e_local and top_k are both 0 (a GEMM) or both positive (MoE)");
  if (e.key.e_local > 0 && e.value.splits != 1)
    return broken("splits must be 1 for MoE entries (its grouped GEMMs do not split K)");
  return e;
}

}  // namespace detail

// The entries of a table's text, in file order; `source` names it in messages ("tuning/x.txt").
// Every bad line is reported (one "source:line: rule" a line of the status's message) and then
// nothing is returned: a table is used whole or not at all.
inline result<std::vector<entry>> parse_table(std::string_view text, const std::string& source) {
  std::vector<entry> entries;
  std::map<key, int> line_of;  // for duplicates
  std::string problems;
  bool header_seen = false;
  int line_number = 0;
  auto report = [&](int line, const std::string& rule) {
    problems += (problems.empty() ? "" : "\n") + source + ":" + std::to_string(line) + ": " + rule;
  };
  if (text.substr(0, utf8_byte_order_mark.size()) == utf8_byte_order_mark)
    text.remove_prefix(utf8_byte_order_mark.size());
  std::size_t at = 0;
  while (at <= text.size()) {
    std::size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(at, end - at);
    at = end + 1;
    ++line_number;
    if (std::size_t hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
    const std::vector<std::string_view> fields = detail::split_fields(line);
    if (fields.empty()) continue;
    if (!header_seen) {
      header_seen = true;
      if (!std::equal(fields.begin(), fields.end(), std::begin(table_columns), std::end(table_columns))) {
        std::string names;
        for (std::string_view c : table_columns) names += (names.empty() ? "" : " ") + std::string(c);
        report(line_number, "the first line that is not a comment must be the header '" + names + "'");
        break;  // without the columns, no entry can be read
      }
      continue;
    }
    result<entry> e = detail::parse_entry(fields);
    if (!e) {
      report(line_number, e.error().message());
      continue;
    }
    if (auto [it, fresh] = line_of.emplace(e.value().key, line_number); !fresh) {
      report(line_number, "the same key as line " + std::to_string(it->second) + " (one entry per key in a file)");
      continue;
    }
    entries.push_back(e.value());
  }
  if (!problems.empty()) return status{status_code::bad_config, problems};
  return entries;
}

// The text of a table: `comment` (each of its lines prefixed "# "), the header, then the entries in
// the given order, columns aligned, each followed by "  # <note>" where notes has a non-empty one.
inline std::string write_table(const std::vector<entry>& entries, std::string_view comment = {},
                               const std::vector<std::string>& notes = {}) {
  std::vector<std::vector<std::string>> rows;
  rows.emplace_back(std::begin(table_columns), std::end(table_columns));
  for (const entry& e : entries) {
    const key& k = e.key;
    rows.push_back({k.op, arch::to_string(k.arch), std::to_string(k.cus), k.dtypes, k.layout,
                    std::to_string(k.m_bucket), std::to_string(k.n), std::to_string(k.k), std::to_string(k.e_local),
                    std::to_string(k.top_k), e.value.config, std::to_string(e.value.splits)});
  }
  std::size_t width[table_column_count] = {};
  for (const auto& row : rows)
    for (int c = 0; c < table_column_count; ++c) width[c] = std::max(width[c], row[c].size());
  std::string out;
  for (std::size_t at = 0; at < comment.size();) {
    std::size_t end = comment.find('\n', at);
    if (end == std::string_view::npos) end = comment.size();
    const std::string_view text = comment.substr(at, end - at);
    out += (text.empty() ? "#" : "# " + std::string(text)) + "\n";
    at = end + 1;
  }
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const std::vector<std::string>& row = rows[r];
    std::string line;
    for (int c = 0; c < table_column_count; ++c) {
      // Words left-aligned, numbers right-aligned (the header follows its column's values).
      const bool numeric = c == 2 || (c >= 5 && c <= 9) || c == 11;
      const std::string pad(width[c] - row[c].size(), ' ');
      line += (c ? " " : "") + (numeric ? pad + row[c] : row[c] + (c + 1 < table_column_count ? pad : ""));
    }
    if (r > 0 && r - 1 < notes.size() && !notes[r - 1].empty()) line += "  # " + notes[r - 1];
    out += line + "\n";
  }
  return out;
}

namespace detail {

inline const char* file_kind(std::filesystem::file_type type) {
  switch (type) {
    case std::filesystem::file_type::directory: return "a directory";
    case std::filesystem::file_type::fifo: return "a FIFO";
    case std::filesystem::file_type::character: return "a character device";
    case std::filesystem::file_type::block: return "a block device";
    case std::filesystem::file_type::socket: return "a socket";
    default: return "not a regular file";
  }
}

}  // namespace detail

// A table file's entries, or the status of the file (missing, not a regular file, too large,
// unreadable) or of its bad lines.
inline result<std::vector<entry>> read_table_file(const std::string& path) {
  auto refused = [&](const std::string& why) { return status{status_code::bad_config, path + ": " + why}; };
  std::error_code error;
  const std::filesystem::file_status file = std::filesystem::status(path, error);  // follows links
  if (error || file.type() == std::filesystem::file_type::not_found) return refused("cannot open the tuning table");
  if (file.type() != std::filesystem::file_type::regular)
    return refused(std::string("a tuning table must be a regular file; this is ") + detail::file_kind(file.type()));
  const std::string cap = "a tuning table is at most " + std::to_string(table_file_max_bytes) + " bytes (4 MiB)";
  if (const std::uintmax_t bytes = std::filesystem::file_size(path, error); !error && bytes > table_file_max_bytes)
    return refused(cap + "; this file has " + std::to_string(bytes));
  std::ifstream in(path, std::ios::binary);
  if (!in) return refused("cannot open the tuning table");
  // Read in chunks up to one byte past the cap: a file that grew since its size was asked (or a
  // special file that reports none) is refused without being read to its end.
  std::string text, chunk(std::size_t{1} << 16, '\0');
  while (in.read(chunk.data(), std::streamsize(chunk.size())) || in.gcount() > 0) {
    text.append(chunk.data(), std::size_t(in.gcount()));
    if (text.size() > table_file_max_bytes) return refused(cap + "; this file has more");
  }
  if (in.bad()) return refused("reading the tuning table failed");
  return parse_table(text, path);
}

inline status write_table_file(const std::string& path, const std::vector<entry>& entries,
                               std::string_view comment = {}, const std::vector<std::string>& notes = {}) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return {status_code::bad_config, path + ": cannot write the tuning table"};
  out << write_table(entries, comment, notes);
  out.close();
  if (!out) return {status_code::bad_config, path + ": writing the tuning table failed"};
  return status::success();
}

}  // namespace wavekit::planning
