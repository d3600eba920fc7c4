// The op registry (ops/registry.hpp) against the one list of codegen instances
// (planning/instances.hpp): every instance family belongs to exactly one op's entry, or is one of the
// registry's shared families, so a new family cannot slip past the tools that loop over the entries.
#include <catch2/catch.hpp>

#include <set>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "wavekit/ops/registry.hpp"
#include "wavekit/planning/instances.hpp"

using namespace wavekit;

namespace {

// How many entries (and shared families) own the family called `name`.
int owners_of(std::string_view name) {
  int owners = 0;
  ops::for_each_op([&](auto op) {
    for (std::string_view f : decltype(op)::families) owners += f == name;
  });
  for (std::string_view f : ops::shared_families) owners += f == name;
  return owners;
}

}  // namespace

TEST_CASE("every instance family is owned by exactly one entry or shared", "[ops][registry]") {
  for (const planning::instance_family& f : planning::instance_families) {
    INFO("family " << f.name << " (op " << f.op << "): name it in one ops/<op>/entry.hpp's families");
    CHECK(owners_of(f.name) == 1);
  }
}

TEST_CASE("entry names are unique, and an op with tables keys them by its own name", "[ops][registry]") {
  std::set<std::string> names;
  ops::for_each_op([&](auto op) {
    using entry = decltype(op);
    INFO(entry::name);
    CHECK(names.insert(std::string(entry::name)).second);
    CHECK(ops::op_index(entry::name) >= 0);
    // The tuner and the tables find a tuned op by its family's op (planning/planner.hpp).
    if constexpr (!std::is_void_v<typename entry::descriptor>) CHECK(entry::descriptor::family.op == entry::name);
  });
  CHECK(ops::op_index("gemm_nonexistent") == -1);
}

TEST_CASE("support rows name their op's calls", "[ops][registry]") {
  ops::for_each_op([&](auto op) {
    using entry = decltype(op);
    std::vector<ops::support_row> rows;
    entry::support_rows(rows);
    INFO(entry::name);
    CHECK_FALSE(rows.empty());
    // moe's entry also writes the rows of its batched form and its routing (moe_batched, moe_route).
    for (const ops::support_row& r : rows) CHECK(r.op.rfind(entry::name, 0) == 0);
  });
}
