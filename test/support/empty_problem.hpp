// The empty-problem rule every op keeps (M = 0, tokens = 0, batch = 0): the call succeeds, checks
// no pointer (an empty tensor's data pointer may be null) and launches nothing. On the emulator the
// launches are counted (emu::launch_counters::launches); on a GPU the call must succeed and leave
// no error behind.
#pragma once

#include <hip/hip_runtime.h>
#include <catch2/catch.hpp>

#include "wavekit/core/status.hpp"

namespace wavekit::test {

template <class Call>
void check_launches_nothing(Call&& call) {
#if defined(WAVEKIT_EMULATOR)
  emu::reset_counters();
#endif
  const status s = call();
  INFO(s.message());
  CHECK(s.ok());
#if defined(WAVEKIT_EMULATOR)
  CHECK(emu::accumulated_counters().launches == 0);
#else
  CHECK(hipGetLastError() == hipSuccess);
#endif
}

}  // namespace wavekit::test
