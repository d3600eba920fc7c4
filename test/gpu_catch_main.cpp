// The Catch2 runner of device tests built for a real GPU (label gpu): exits 77, which ctest reports
// as skipped, when there is no gfx942 or gfx950 device to run them on.
#define CATCH_CONFIG_RUNNER
#include <hip/hip_runtime.h>
#include <catch2/catch.hpp>

#include <cstdio>

#include "wavekit/arch/device.hpp"

int main(int argc, char** argv) {
  const wavekit::arch::device_arch device = wavekit::arch::current_device_arch();
  if (device.name.empty()) {
    std::printf("no GPU: skipped\n");
    return 77;
  }
  if (device.kind == wavekit::arch::target::host) {
    std::printf("device %s is neither gfx942 nor gfx950: skipped\n", device.name.c_str());
    return 77;
  }
  return Catch::Session().run(argc, argv);
}
