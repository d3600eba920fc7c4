// The words ops build their table keys and values from (planning/tables/key.hpp): element type names for
// the dtypes column, the config id a table's config column names, and a config-and-splits plan as
// a value.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <cstddef>
#include <optional>
#include <string_view>
#include <type_traits>

#include "wavekit/arch/matrix_formats.hpp"
#include "wavekit/arch/target.hpp"
#include "wavekit/core/numeric_types.hpp"
#include "wavekit/planning/tables/key.hpp"

namespace wavekit::planning {

// An element type's name in the dtypes column: its format's own ("e4m3fnuz", "bf16", "e2m1"),
// "fp32" for float.
template <class T>
constexpr const char* dtype_name() {
  if constexpr (std::is_same_v<T, float>)
    return "fp32";
  else
    return T::format::name;
}

// The fp8 format target t's matrix cores read (arch::fp8_of), by name: e4m3fn on gfx950, else
// e4m3fnuz.
inline const char* fp8_dtype_name(arch::target t) {
  return t == arch::target::gfx950 ? dtype_name<arch::fp8_of<arch::target::gfx950>>()
                                   : dtype_name<arch::fp8_of<arch::target::gfx942>>();
}

// The id among `all` (an op's all_configs) whose config_id_name (core/shipped_configs.hpp) is
// `name`, or none: how an op reads a table's config column.
template <class Id, std::size_t N>
std::optional<Id> config_named(std::string_view name, const Id (&all)[N]) {
  for (Id id : all)
    if (name == config_id_name(id)) return id;
  return std::nullopt;
}

// A plan of a config id and K splits (every GEMM's but the MX GEMV's) as a table value, and back:
// none when the value names no config among `all`.
template <class Plan>
value split_plan_value(const Plan& pl) {
  return {config_id_name(pl.config), pl.splits};
}
template <class Plan, class Id, std::size_t N>
std::optional<Plan> split_plan_named(const value& v, const Id (&all)[N]) {
  const std::optional<Id> id = config_named(v.config, all);
  if (!id) return std::nullopt;
  return Plan{*id, v.splits};
}

}  // namespace wavekit::planning
