// The op registry: every op with a public API, one line each, in the order the tools print them.
// An op's entry (ops/<op>/entry.hpp) holds what the tools know of it by name, and the tools loop
// over this list instead of keeping lists of their own:
//   - tools/support_matrix: the README's support matrix, each entry's support_rows();
//   - tools/perf_model and tools/perf_report.py: the report's sections (name, report_title), each
//     op's rows from perf_model's model_rows<entry>;
//   - tools/lds_census: its output in this order (each census_<name>.cpp registers itself);
//   - tools/tuner: the ops with a plan descriptor, each with its tuner case (op_cases.hpp).
// test/ops/test_registry.cpp checks the entries against planning/instances.hpp: every instance
// family is owned by one entry, or is one of shared_families below. Plain C++.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <string_view>

#include "wavekit/ops/gemm_bias_act/entry.hpp"
#include "wavekit/ops/gemm_fp8_blockscale/entry.hpp"
#include "wavekit/ops/gemm_fp8_direct/entry.hpp"
#include "wavekit/ops/gemm_fp8_scaled/entry.hpp"
#include "wavekit/ops/gemm_half/entry.hpp"
#include "wavekit/ops/gemm_mx/entry.hpp"
#include "wavekit/ops/mla_decode/entry.hpp"
#include "wavekit/ops/moe/entry.hpp"
#include "wavekit/ops/rmsnorm_quant/entry.hpp"
#include "wavekit/ops/swiglu_quant/entry.hpp"
#include "wavekit/planning/instances.hpp"

namespace wavekit::ops {

template <class... Entries>
struct op_list {
  // f(Entry{}) for each entry, in the list's order.
  template <class F>
  static constexpr void for_each(F&& f) {
    (f(Entries{}), ...);
  }
};

// clang-format off
using registry = op_list<
    gemm_fp8_direct::entry,
    gemm_fp8_blockscale::entry,
    gemm_fp8_scaled::entry,
    gemm_half::entry,
    gemm_bias_act::entry,
    gemm_mx::entry,
    moe::entry,
    mla_decode::entry,
    rmsnorm_quant::entry,
    swiglu_quant::entry>;
// clang-format on

// Instance families no one op owns: the split-K reduce every split GEMM launches, which the
// planning level models itself (planning/model/profiles.hpp).
inline constexpr std::string_view shared_families[] = {"splitk_reduce"};

// f(Entry{}) for each op, in the registry's order.
template <class F>
constexpr void for_each_op(F&& f) {
  registry::for_each(f);
}

// The op's place in the registry's order, or -1 when no entry has that name.
constexpr int op_index(std::string_view name) {
  int index = -1, at = 0;
  for_each_op([&](auto op) {
    if (decltype(op)::name == name) index = at;
    ++at;
  });
  return index;
}

// Every family an entry names is on planning/instances.hpp's list: family_named does not compile
// for a name the list lacks.
template <class Entry>
consteval bool families_listed() {
  for (std::string_view f : Entry::families) (void)planning::family_named(f);
  return true;
}
static_assert([] {
  bool all = true;
  for_each_op([&](auto op) { all = all && families_listed<decltype(op)>(); });
  return all;
}());

}  // namespace wavekit::ops
