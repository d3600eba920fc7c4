// One tuned-table entry merged into this process's tables (planning/tables/registry.hpp), as a user's
// table file would be: for tests that check a call takes a table's plan. Plain C++.
#pragma once

#include <catch2/catch.hpp>

#include <cstdio>
#include <string>

#include "wavekit/planning/tables/registry.hpp"
#include "wavekit/planning/tables/table_text.hpp"

namespace wavekit::test {

// `file`: a scratch name in the working directory, distinct per test (removed once merged).
inline void load_tuned_entry(const planning::key& k, const planning::value& v, const std::string& file) {
  REQUIRE(planning::write_table_file(file, {{k, v}}, "a test's entry").ok());
  const status merged = planning::load_file(file);
  std::remove(file.c_str());
  INFO(merged.message());
  REQUIRE(merged.ok());
  REQUIRE(planning::find(k) == v);
}

}  // namespace wavekit::test
