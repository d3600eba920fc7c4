// One row of the README's support matrix (tools/support_matrix): an op's element types, layout and
// scales in words, and the question that decides its cells, supports() on a representative legal
// shape of that form. Each op's entry (ops/<op>/entry.hpp) writes its rows with these (plain C++).
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <functional>
#include <string>
#include <type_traits>
#include <vector>

#include "wavekit/arch/target.hpp"
#include "wavekit/core/layout.hpp"
#include "wavekit/core/numeric_types.hpp"
#include "wavekit/core/scale_granularity.hpp"
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

// The rows of an op that quantizes bf16 / fp16 rows to fp8 (rmsnorm_quant, swiglu_quant): each fp8
// format (fnuz, then OCP), per-tensor and 1x128 scales, both layouts; ask(Fp8{}, scales, order, t)
// is the op's supports() on its representative shape.
template <class Ask>
void fp8_quantizer_rows(std::vector<support_row>& rows, const std::string& op, Ask ask) {
  auto add = [&]<class Fp8>() {
    for (scale_granularity s : {scale_granularity::tensor, scale_granularity::group_1x128})
      for (layout order : {layout::k_contiguous, layout::mn_contiguous})
        rows.push_back({op, "bf16 / fp16 -> " + fp8_name<Fp8>(), to_string(order),
                        s == scale_granularity::tensor ? "per tensor fp32" : "1x128 fp32",
                        [=](arch::target t) { return ask(Fp8{}, s, order, t); }});
  };
  add.template operator()<fp8_e4m3fnuz>();
  add.template operator()<fp8_e4m3fn>();
}

}  // namespace wavekit::ops
