// The one list of the kernel instances wavekit compiles for its codegen reports, and so of the
// names every other part finds them by (plain C++, no HIP):
//   - codegen/CMakeLists.txt reads the lines below (the list's exact form, one instance family a
//     line, is what it parses) and writes an instance per configuration, variant and target of a
//     family with a config list, or compiles the family's one hand-written file
//     (codegen/instances/<name>.hip, or <name>_<target>.hip); a file the list lacks, or a line
//     without its file, stops the configure;
//   - tools/perf_profiles.py checks every kernel of the reports against the list before writing
//     planning/model/codegen_profiles.hpp, whose rows the model finds by these names;
//   - each op's plan descriptor (ops/<op>/plan.hpp) names its family here (family_named: a name
//     not on the list does not compile) and its tuned-table key and report rows by the family's op;
//   - tools/perf_report.py refuses a report row whose op is not on the list.
//
// A family with a config list holds the instances <name>_<config>_<variant>, where <config> runs
// over the X(...) lines of the list header (ops/<op>/configs*.hpp: config_id_name) and <variant>
// over `variants`; a hand-written family is the one instance <name>.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <string>
#include <string_view>

namespace wavekit::planning {

struct instance_family {
  std::string_view op;        // the op it belongs to: tuned-table keys and report rows say this
  std::string_view name;      // the instances' name, or their prefix (header comment)
  std::string_view configs;   // the config list (under include/wavekit/), or "" when hand-written
  std::string_view variants;  // with a config list: the variants, space separated
  std::string_view targets;   // with a config list: the targets ("": every codegen target)
};

// clang-format off
inline constexpr instance_family instance_families[] = {
    {"gemm_fp8_blockscale", "gemm_fp8_blockscale", "ops/gemm_fp8_blockscale/configs.hpp", "k_contiguous mn_contiguous", ""},
    {"gemm_fp8_blockscale", "gemm_fp8_blockscale_custom_bk128_64x128", "", "", ""},
    {"gemm_fp8_blockscale", "gemm_fp8_blockscale_custom_bk128_mfma32_32x64", "", "", ""},
    {"gemm_fp8_blockscale", "gemm_fp8_blockscale_custom_one_stage_64x128", "", "", ""},
    {"gemm_fp8_blockscale", "gemm_fp8_blockscale_custom_one_stage_bk128_32x64", "", "", ""},
    {"gemm_fp8_blockscale", "gemm_fp8_blockscale_custom_wide_64x256", "", "", ""},
    {"gemm_half", "gemm_half", "ops/gemm_half/configs.hpp", "k_contiguous mn_contiguous", ""},
    {"gemm_half", "gemm_bias_act", "", "", ""},
    {"gemm_fp8_scaled", "gemm_fp8_scaled", "ops/gemm_fp8_scaled/configs.hpp", "k_contiguous mn_contiguous", ""},
    {"gemm_fp8_direct", "gemm_fp8_direct_fnuz", "", "", ""},
    {"gemm_fp8_direct", "gemm_fp8_direct_ocp", "", "", ""},
    {"gemm_mx", "gemm_mx", "ops/gemm_mx/configs.hpp", "fp8_e4m3fn fp4_e2m1", "gfx950"},
    {"gemm_mx", "gemm_mx_gemv", "", "", ""},
    {"gemm_mx", "gemm_mx_quantizing_a", "", "", ""},
    {"gemm", "splitk_reduce", "", "", ""},
    {"moe", "moe", "ops/moe/configs.hpp", "gate_up down_weighted", ""},
    {"moe", "moe_fp8", "ops/moe/configs_blockscale.hpp", "gate_up down_weighted", ""},
    {"moe", "moe_mx", "", "", ""},
    {"moe", "moe_quantize_1x128", "", "", ""},
    {"moe", "moe_routing_sort_combine", "", "", ""},
    {"moe", "quantize_1x32_mx", "", "", ""},
    {"mla_decode", "mla_decode", "", "", ""},
    {"mla_decode", "mla_decode_reduce", "", "", ""},
    {"mla_decode", "mla_decode_balanced", "", "", ""},
    {"rmsnorm_quant", "rmsnorm_quant", "", "", ""},
    {"swiglu_quant", "swiglu_quant", "", "", ""},
};
// clang-format on

// The family called `name`; a name not on the list is a compile error where it is asked for in a
// constant expression (every op's descriptor asks so).
consteval const instance_family& family_named(std::string_view name) {
  for (const instance_family& f : instance_families)
    if (f.name == name) return f;
  throw "planning::family_named: no such instance family in planning/instances.hpp";
}

// Whether `op` is the op of some family.
constexpr bool listed_op(std::string_view op) {
  for (const instance_family& f : instance_families)
    if (f.op == op) return true;
  return false;
}

// The name of a config-list family's instance of config `config` and variant `variant`
// (gemm_half_large_k_contiguous), or a hand-written family's one name.
inline std::string instance_name(const instance_family& f, std::string_view config = {},
                                 std::string_view variant = {}) {
  std::string name(f.name);
  if (f.configs.empty()) return name;
  return name.append("_").append(config).append("_").append(variant);
}

}  // namespace wavekit::planning
