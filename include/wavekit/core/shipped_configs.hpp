// What an op's one list of shipped configurations declares, written once for every op. The list is
// an X-macro whose lines are X(name, parameters...) and the op first defines an alias config_<name>
// per line (WAVEKIT_SHIPPED_CONFIG_ALIASES(LIST) defines config_<name> = config<parameters...>
// where the parameters are the op's config template's own); WAVEKIT_DECLARE_SHIPPED_CONFIGS(LIST),
// in the op's namespace, then declares:
//   enum class config_id { <name>, ... }   one identifier per line, in the list's order
//   all_configs[]                          those identifiers, for plans that try each
//   shipped_configs                        std::tuple<config_<name>...>, for tests over each
//   with_config(id, f)                     f(config_<name>{}) for a run-time identifier
//   config_id_name(id)                     "<name>" (the codegen instances and tuned tables use it)
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <tuple>

#include "wavekit/core/type_list.hpp"

#define WAVEKIT_SHIPPED_CONFIG_ALIAS_(name, ...) using config_##name = config<__VA_ARGS__>;
#define WAVEKIT_SHIPPED_CONFIG_ALIASES(LIST) LIST(WAVEKIT_SHIPPED_CONFIG_ALIAS_)

#define WAVEKIT_SHIPPED_CONFIG_ID_(name, ...) name,
#define WAVEKIT_SHIPPED_CONFIG_ENTRY_(name, ...) config_id::name,
#define WAVEKIT_SHIPPED_CONFIG_TYPE_(name, ...) , config_##name
#define WAVEKIT_SHIPPED_CONFIG_CASE_(name, ...) \
  case config_id::name: return f(config_##name{});
#define WAVEKIT_SHIPPED_CONFIG_NAME_(name, ...) \
  case config_id::name: return #name;

#define WAVEKIT_DECLARE_SHIPPED_CONFIGS(LIST)                                                      \
  enum class config_id { LIST(WAVEKIT_SHIPPED_CONFIG_ID_) };                                       \
  inline constexpr config_id all_configs[] = {LIST(WAVEKIT_SHIPPED_CONFIG_ENTRY_)};                \
  using shipped_configs = ::wavekit::tuple_after_first_t<void LIST(WAVEKIT_SHIPPED_CONFIG_TYPE_)>; \
  template <class F>                                                                               \
  decltype(auto) with_config(config_id id, F&& f) {                                                \
    switch (id) { LIST(WAVEKIT_SHIPPED_CONFIG_CASE_) }                                             \
    return f(std::tuple_element_t<0, shipped_configs>{});                                          \
  }                                                                                                \
  inline const char* config_id_name(config_id id) {                                                \
    switch (id) { LIST(WAVEKIT_SHIPPED_CONFIG_NAME_) }                                             \
    return "?";                                                                                    \
  }
