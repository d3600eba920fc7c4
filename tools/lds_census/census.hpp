// The LDS census: for each kernel config the performance report can show, one small problem run
// on the emulator through the config's whole launch path (every kernel of it), checked against the
// host reference the tests use, and the emulator's LDS counters summed over those launches
// (docs/performance-model.md says why: the report's own shapes take minutes to hours to emulate).
// Each op's census_<op>.cpp appends its configs' entries; lds_census.cpp prints or checks them.
#pragma once

#include <hip/hip_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <type_traits>
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

// One function per op or weight format, each its own translation unit (one heavy instantiation a
// unit); each appends its entries in the order of its config list.
void census_gemm_fp8_blockscale(entries& out);
void census_gemm_fp8_scaled(entries& out);
void census_gemm_half(entries& out);
void census_gemm_mx(entries& out);
void census_gemm_fp8_direct(entries& out);
void census_mla_decode(entries& out);
void census_moe_half(entries& out);
void census_moe_fp8(entries& out);
void census_moe_mx(entries& out);
void census_glue(entries& out);  // rmsnorm_quant, swiglu_quant

}  // namespace wavekit::lds_census
