// wavekit's version, written in this one place: the CMake project (CMakeLists.txt) reads its
// VERSION from these three lines, so the installed package's version file and these macros never
// disagree, and a project that copies include/ has them too. CHANGELOG.md says what each changed.
#pragma once

#define WAVEKIT_VERSION_MAJOR 0
#define WAVEKIT_VERSION_MINOR 1
#define WAVEKIT_VERSION_PATCH 0

// One integer that orders versions: major * 10000 + minor * 100 + patch.
#define WAVEKIT_VERSION (WAVEKIT_VERSION_MAJOR * 10000 + WAVEKIT_VERSION_MINOR * 100 + WAVEKIT_VERSION_PATCH)

#define WAVEKIT_VERSION_STRINGIFY_(x) #x
#define WAVEKIT_VERSION_STRINGIFY(x) WAVEKIT_VERSION_STRINGIFY_(x)
// "major.minor.patch"
#define WAVEKIT_VERSION_STRING                     \
  WAVEKIT_VERSION_STRINGIFY(WAVEKIT_VERSION_MAJOR) \
  "." WAVEKIT_VERSION_STRINGIFY(WAVEKIT_VERSION_MINOR) "." WAVEKIT_VERSION_STRINGIFY(WAVEKIT_VERSION_PATCH)
