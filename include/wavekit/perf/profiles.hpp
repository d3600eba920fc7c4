// Finding a kernel's codegen profile (perf/codegen_profiles.hpp) by its instance and kernel name.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <string_view>

#include "wavekit/perf/codegen_profiles.hpp"
#include "wavekit/perf/kernel_profile.hpp"

namespace wavekit::perf {

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

// The profile of the first kernel on target t, in any instance, whose name starts with `prefix`
// and ends with `suffix` (a kernel several instances compile, such as a pipeline's sort).
inline const kernel_profile* find_kernel(arch::target t, std::string_view prefix, std::string_view suffix = {}) {
  for (const kernel_profile& p : codegen_profiles)
    if (p.target == t && p.kernel.starts_with(prefix) && p.kernel.ends_with(suffix)) return &p;
  return nullptr;
}

}  // namespace wavekit::perf
