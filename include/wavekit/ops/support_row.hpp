// One row of the README's support matrix (tools/support_matrix): an op's element types, layout and
// scales in words, and the question that decides its cells, supports() on a representative legal
// shape of that form. Each op's entry (ops/<op>/entry.hpp) writes its rows with these (plain C++).
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <functional>
#include <string>
#include <type_traits>

#include "wavekit/arch/target.hpp"
#include "wavekit/core/numeric_types.hpp"
#include "wavekit/core/status.hpp"

namespace wavekit::ops {

struct support_row {
  std::string op, elements, layout, scales;
  std::function<status(arch::target)> ask;  // the op's supports() for this row's form
};

// An fp8 format as the matrix's rows spell it.
template <class Fp8>
std::string fp8_name() {
  return std::is_same_v<Fp8, fp8_e4m3fnuz> ? "fp8 e4m3fnuz" : "fp8 e4m3fn";
}

}  // namespace wavekit::ops
