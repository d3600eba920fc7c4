// The LDS census: for each kernel config the performance report can show, one small problem run
// on the emulator through the config's whole launch path (every kernel of it), checked against the
// host reference the tests use, and the emulator's LDS counters summed over those launches
// (docs/performance-model.md says why: the report's own shapes take minutes to hours to emulate).
// Each census_<name>.cpp registers a census that appends its configs' entries; lds_census.cpp
// runs them and prints or checks the entries.
#pragma once

#include <hip/hip_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "wavekit/core/numeric_types.hpp"
#include "wavekit/core/status.hpp"

namespace wavekit::lds_census {

// What one config did in LDS on its census problem. `config` is the name the report's rows carry
// for it: the config type's name(), MLA's kernel as the codegen profiles name it, the report's
// words for the ops without a config type.
struct entry {
  std::string op, config, problem;
  std::uint64_t lds_instructions = 0, lds_bank_conflict_cycles = 0;
};

using entries = std::vector<entry>;

// A census of a kernel that failed or computed a wrong result would measure the wrong thing:
// the whole census stops, naming the config.
[[noreturn]] inline void fail(const std::string& op, const std::string& config, const std::string& problem,
                              const std::string& why) {
  std::fprintf(stderr, "lds_census: %s %s on %s: %s\n", op.c_str(), config.c_str(), problem.c_str(), why.c_str());
  std::exit(1);
}

// Runs launch() (which returns the launch's status) with the emulator's counters reset, then
// check() (the number of results outside the reference's bound), and records the LDS counters of
// every launch launch() made.
template <class Launch, class Check>
void measure(entries& out, std::string op, std::string config, std::string problem, Launch&& launch, Check&& check) {
  emu::reset_counters();
  if (const status s = launch(); !s.ok()) fail(op, config, problem, "launch refused: " + s.message());
  if (hipDeviceSynchronize() != hipSuccess) fail(op, config, problem, "the launch failed on the emulator");
  const emu::launch_counters counters = emu::accumulated_counters();
  if (const int bad = check(); bad != 0)
    fail(op, config, problem, std::to_string(bad) + " results outside the host reference's bound");
  out.push_back({std::move(op), std::move(config), std::move(problem), counters.lds_instructions,
                 counters.lds_bank_conflict_cycles});
}

// The name of an element type as the problems print it ("bf16", "e4m3fnuz"; packed fp4 pairs:
// "MXFP4", the cache form they are the codes of).
template <class T>
std::string type_name() {
  if constexpr (std::is_same_v<T, fp4x2_e2m1>)
    return "MXFP4";
  else
    return T::format::name;
}

// The censuses: one a translation unit (census_<name>.cpp: one heavy instantiation a unit), each
// appending its configs' entries in the order of its config list. A census registers itself with
// a namespace-scope `registration` (CMake builds every census_*.cpp it finds), naming its op as the
// op registry does (ops/registry.hpp); lds_census.cpp runs them in the registry's order, an op's
// several censuses by name.
struct census {
  std::string op, name;
  void (*run)(entries& out);
};

inline std::vector<census>& registered() {
  static std::vector<census> all;  // filled before main by the registrations
  return all;
}

struct registration {
  registration(std::string op, std::string name, void (*run)(entries& out)) {
    registered().push_back({std::move(op), std::move(name), run});
  }
};

}  // namespace wavekit::lds_census
