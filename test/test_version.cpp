// wavekit/version.hpp: the macros agree with each other and with the CMake project's version.
#include <catch2/catch.hpp>

#include <string>

#include "wavekit/version.hpp"

static_assert(WAVEKIT_VERSION == WAVEKIT_VERSION_MAJOR * 10000 + WAVEKIT_VERSION_MINOR * 100 + WAVEKIT_VERSION_PATCH,
              "WAVEKIT_VERSION orders versions");

TEST_CASE("version: the header's version is the CMake project's", "[unit]") {
  CHECK(std::string(WAVEKIT_VERSION_STRING) == WAVEKIT_PROJECT_VERSION);
  CHECK(std::string(WAVEKIT_VERSION_STRING) == std::to_string(WAVEKIT_VERSION_MAJOR) + "." +
                                                   std::to_string(WAVEKIT_VERSION_MINOR) + "." +
                                                   std::to_string(WAVEKIT_VERSION_PATCH));
}
