// The Catch2 runner of device tests built for a real GPU (label gpu): exits 77, which ctest reports
// as skipped, when there is no gfx942 or gfx950 device to run them on.
#define CATCH_CONFIG_RUNNER
#include <hip/hip_runtime.h>
#include <catch2/catch.hpp>

#include <cstdio>
#include <cstring>

int main(int argc, char** argv) {
  int count = 0;
  if (hipGetDeviceCount(&count) != hipSuccess || count == 0) {
    std::printf("no GPU: skipped\n");
    return 77;
  }
  hipDeviceProp_t prop{};
  if (hipGetDeviceProperties(&prop, 0) != hipSuccess ||
      (std::strncmp(prop.gcnArchName, "gfx942", 6) != 0 && std::strncmp(prop.gcnArchName, "gfx950", 6) != 0)) {
    std::printf("device %s is neither gfx942 nor gfx950: skipped\n", prop.gcnArchName);
    return 77;
  }
  return Catch::Session().run(argc, argv);
}
