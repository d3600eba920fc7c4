// lds_census_<target>: the LDS census of one emulated target (census.hpp) as a JSON array, one
// entry a line: {op, arch, config, problem, lds_instructions, lds_bank_conflict_cycles}.
//
//   lds_census_gfx942                 print it
//   lds_census_gfx942 --write FILE    rewrite FILE (docs/perf/lds_census_gfx942.json)
//   lds_census_gfx942 --check FILE    fail, naming the first stale line and the fix, unless FILE is current
//
// tools/perf_report.py joins the committed files into the performance report's rows.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "lds_census/census.hpp"
#include "wavekit/arch/target.hpp"
#include "wavekit/ops/registry.hpp"

namespace {

using namespace wavekit;

std::string quoted(const std::string& s) {
  std::string q = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') q += '\\';
    q += c;
  }
  return q + "\"";
}

std::string to_json(const lds_census::entries& all, const char* arch) {
  std::string s = "[\n";
  for (std::size_t i = 0; i < all.size(); ++i) {
    const lds_census::entry& e = all[i];
    s += "{\"op\": " + quoted(e.op) + ", \"arch\": " + quoted(arch) + ", \"config\": " + quoted(e.config) +
         ", \"problem\": " + quoted(e.problem) + ", \"lds_instructions\": " + std::to_string(e.lds_instructions) +
         ", \"lds_bank_conflict_cycles\": " + std::to_string(e.lds_bank_conflict_cycles) + "}" +
         (i + 1 < all.size() ? ",\n" : "\n");
  }
  return s + "]\n";
}

// The first line where `want` and `have` differ, for the failure message.
std::string first_difference(const std::string& want, const std::string& have) {
  std::istringstream w(want), h(have);
  std::string a, b;
  while (true) {
    const bool more_w = static_cast<bool>(std::getline(w, a)), more_h = static_cast<bool>(std::getline(h, b));
    if (!more_w && !more_h) return "";
    if (!more_w || !more_h || a != b)
      return "the census gives\n  " + (more_w ? a : "(nothing)") + "\nthe file has\n  " + (more_h ? b : "(nothing)");
  }
}

// The registered censuses in the op registry's order, an op's several by name, so that the output
// does not depend on the order the linker ran the registrations in. A census of an op the
// registry lacks stops the run: its entries would join no report row.
std::vector<lds_census::census> ordered_censuses() {
  std::vector<lds_census::census> all = lds_census::registered();
  for (const lds_census::census& c : all)
    if (ops::op_index(c.op) < 0) {
      std::fprintf(stderr, "lds_census: census %s names op '%s', which ops/registry.hpp does not list\n",
                   c.name.c_str(), c.op.c_str());
      std::exit(1);
    }
  std::sort(all.begin(), all.end(), [](const lds_census::census& a, const lds_census::census& b) {
    const int ia = ops::op_index(a.op), ib = ops::op_index(b.op);
    return ia != ib ? ia < ib : a.name < b.name;
  });
  return all;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc == 3 ? argv[1] : "";
  if (argc != 1 && !(argc == 3 && (mode == "--write" || mode == "--check"))) {
    std::fprintf(stderr, "usage: %s [--write FILE | --check FILE]\n", argv[0]);
    return 2;
  }
  lds_census::entries all;
  for (const lds_census::census& c : ordered_censuses()) c.run(all);
  const std::string text = to_json(all, arch::to_string(arch::current_target));
  if (mode.empty()) {
    std::fputs(text.c_str(), stdout);
    return 0;
  }
  const std::string path = argv[2];
  if (mode == "--write") {
    std::ofstream(path, std::ios::binary) << text;
    return 0;
  }
  std::ifstream in(path, std::ios::binary);
  const std::string have((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (have == text) {
    std::printf("%s is current (%zu entries)\n", path.c_str(), all.size());
    return 0;
  }
  std::printf("FAIL %s is stale: %s\nregenerate with `cmake --build --preset ci --target lds_census`\n", path.c_str(),
              first_difference(text, have).c_str());
  return 1;
}
