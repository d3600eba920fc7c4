// A value or the status that says why there is none: what wavekit's queries return, so that a
// question about an illegal problem gets the same message a launch would.
//
//   wavekit::result<std::size_t> ws = wavekit::gemm_fp8_blockscale_workspace_bytes<Args>(p);
//   if (!ws) return ws.error();            // e.g. "... K must be a multiple of 128"
//   allocate(ws.value());
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <utility>

#include "wavekit/core/status.hpp"

namespace wavekit {

template <class T>
class [[nodiscard]] result {
 public:
  result(T value) : value_(std::move(value)) {}  // NOLINT: implicit, as a return value
  // A failure; an ok status carries no value and is a programming error.
  result(status failure) : error_(std::move(failure)) {  // NOLINT: implicit, as a return value
    if (error_.ok()) fail("a wavekit::result made from an ok status has no value");
  }

  bool ok() const { return value_.has_value(); }
  explicit operator bool() const { return ok(); }
  // The failure (an ok status when there is a value).
  const status& error() const { return error_; }
  // The value; asking a failed result for it ends the program with the failure's message.
  const T& value() const {
    if (!ok()) fail(("value() of a failed result: " + error_.message()).c_str());
    return *value_;
  }

 private:
  [[noreturn]] static void fail(const char* why) {
    std::fprintf(stderr, "wavekit: %s\n", why);
    std::fflush(nullptr);
    std::abort();
  }

  status error_;
  std::optional<T> value_;
};

}  // namespace wavekit
