// Results of host-side validation: a code for programs and a message for people.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>

#include "wavekit/core/lazy_text.hpp"

namespace wavekit {

enum class status_code {
  ok,
  null_pointer,
  bad_shape,            // a size is negative or not a multiple the op needs, an id out of range
  bad_alignment,        // a pointer or leading dimension breaks the op's vector-load alignment
  too_large,            // an extent or byte offset past what 32-bit buffer offsets address
  bad_config,           // a tile configuration or plan that cannot run this problem, a bad setting
  workspace_too_small,  // the workspace given holds fewer bytes than the plan needs
  unsupported_target,   // the device or target is neither gfx942 nor gfx950
  bad_format,           // an element format this op, path or target does not read
  launch_failed,        // the runtime refused the launch
};

// Human-readable name of a status code ("bad_shape").
constexpr const char* to_string(status_code c) {
  switch (c) {
    case status_code::ok: return "ok";
    case status_code::null_pointer: return "null_pointer";
    case status_code::bad_shape: return "bad_shape";
    case status_code::bad_alignment: return "bad_alignment";
    case status_code::too_large: return "too_large";
    case status_code::bad_config: return "bad_config";
    case status_code::workspace_too_small: return "workspace_too_small";
    case status_code::unsupported_target: return "unsupported_target";
    case status_code::bad_format: return "bad_format";
    case status_code::launch_failed: return "launch_failed";
  }
  return "unknown";
}

// [[nodiscard]]: a status that is dropped is a refusal nobody sees (the kernel did not run).
class [[nodiscard]] status {
 public:
  status() = default;
  status(status_code code, std::string message) : code_(code), message_(std::move(message)) {}
  static status success() { return {}; }

  bool ok() const { return code_ == status_code::ok; }
  explicit operator bool() const { return ok(); }
  status_code code() const { return code_; }
  const std::string& message() const { return message_; }

 private:
  status_code code_ = status_code::ok;
  std::string message_;
};

// A pointer argument of an op and its rule: not null, aligned to `align` bytes because of `why`.
struct pointer_argument {
  const char* name;
  const void* ptr;
  std::uintptr_t align;
  const char* why;
};

// The status of the first argument that breaks its rule ("<what>argument a is null", "<what>argument
// b must be 16-byte aligned (16-byte vector loads)"), or success. `what` names the op and problem.
inline status check_pointer_arguments(text_ref what, std::initializer_list<pointer_argument> arguments) {
  for (const pointer_argument& arg : arguments) {
    if (!arg.ptr) return {status_code::null_pointer, what + "argument " + arg.name + " is null"};
    if (reinterpret_cast<std::uintptr_t>(arg.ptr) % arg.align)
      return {status_code::bad_alignment, what + "argument " + arg.name + " must be " + std::to_string(arg.align) +
                                              "-byte aligned (" + arg.why + ")"};
  }
  return status::success();
}

}  // namespace wavekit
