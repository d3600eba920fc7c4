// Finding a kernel's codegen profile (model/codegen_profiles.hpp) by its instance, named as the
// one list of instances names it (planning/instances.hpp), and its kernel's name.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <string>
#include <string_view>

#include "wavekit/planning/instances.hpp"
#include "wavekit/planning/model/codegen_profiles.hpp"
#include "wavekit/planning/model/kernel_profile.hpp"

namespace wavekit::planning {

// The profile of instance `instance` on target t whose kernel name starts with `prefix` and ends
// with `suffix` (any kernel of the instance if both are empty), or nullptr: a config without a
// codegen instance has none.
inline const kernel_profile* find_profile(arch::target t, std::string_view instance, std::string_view prefix = {},
                                          std::string_view suffix = {}) {
  for (const kernel_profile& p : codegen_profiles)
    if (p.target == t && p.instance == instance && p.kernel.starts_with(prefix) && p.kernel.ends_with(suffix))
      return &p;
  return nullptr;
}

// The same in a hand-written family's one instance (family_named("mla_decode")).
inline const kernel_profile* find_profile(arch::target t, const instance_family& f, std::string_view prefix = {},
                                          std::string_view suffix = {}) {
  return find_profile(t, instance_name(f), prefix, suffix);
}

// Whether instance `instance` is one of family f's.
constexpr bool in_family(std::string_view instance, const instance_family& f) {
  if (f.configs.empty()) return instance == f.name;
  return instance.size() > f.name.size() && instance.starts_with(f.name) && instance[f.name.size()] == '_';
}

// The profile of the first kernel on target t, in any instance of op `op`'s families, whose name
// starts with `prefix` and ends with `suffix`: a kernel several of the op's instances compile
// (the MoE sort), which the report lists under the first of them.
inline const kernel_profile* find_op_kernel(arch::target t, std::string_view op, std::string_view prefix,
                                            std::string_view suffix = {}) {
  for (const kernel_profile& p : codegen_profiles) {
    if (p.target != t || !p.kernel.starts_with(prefix) || !p.kernel.ends_with(suffix)) continue;
    for (const instance_family& f : instance_families)
      if (f.op == op && in_family(p.instance, f)) return &p;
  }
  return nullptr;
}

// The split-K reduce of every GEMM's bf16 output on target t.
inline const kernel_profile* splitk_reduce_profile(arch::target t) {
  return find_profile(t, family_named("splitk_reduce"), "splitk_reduce<bf16");
}

}  // namespace wavekit::planning
