// supports() against the launch: the status an op's supports() gives and the one its launch
// returns (the launch's own checks, in its order, with valid pointers) agree in code and text.
#pragma once

#include <catch2/catch.hpp>

#include "wavekit/arch/target.hpp"
#include "wavekit/core/status.hpp"

namespace wavekit::test {

inline constexpr arch::target kernel_targets[] = {arch::target::gfx942, arch::target::gfx950};

// A refusal: both say no, with the same code and the same message.
inline void check_same_refusal(const status& supported, const status& launched) {
  INFO("launch: " << launched.message());
  INFO("supports: " << supported.message());
  CHECK_FALSE(launched.ok());
  CHECK(supported.code() == launched.code());
  CHECK(supported.message() == launched.message());
}

// 16-byte aligned bytes that stand in for every pointer argument: the checks compared here never
// read through them.
inline void* dummy_pointer() {
  alignas(256) static unsigned char bytes[256];
  return bytes;
}

}  // namespace wavekit::test
