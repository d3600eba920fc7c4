// The words ops build their table keys and values from (tuning/key.hpp): element type names for
// the dtypes column and the config id a table's config column names.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>
#include <type_traits>

#include "wavekit/core/numeric_types.hpp"

namespace wavekit::tuning {

// An element type's name in the dtypes column: its format's own ("e4m3fnuz", "bf16", "e2m1"),
// "fp32" for float.
template <class T>
constexpr const char* dtype_name() {
  if constexpr (std::is_same_v<T, float>)
    return "fp32";
  else
    return T::format::name;
}

// The id among `all` (an op's all_configs) whose config_id_name (core/shipped_configs.hpp) is
// `name`, or none: how an op reads a table's config column.
template <class Id, std::size_t N>
std::optional<Id> config_named(std::string_view name, const Id (&all)[N]) {
  for (Id id : all)
    if (name == config_id_name(id)) return id;
  return std::nullopt;
}

}  // namespace wavekit::tuning
