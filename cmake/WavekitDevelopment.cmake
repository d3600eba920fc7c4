# wavekit's own development build: backend selection, toolchain checks, test helpers.
# Included only when wavekit is the top-level project.

set(WAVEKIT_SUPPORTED_DEVICE_ARCHS gfx942 gfx950)

function(wavekit_require_supported_archs what)
  foreach(arch IN LISTS ARGN)
    if(NOT arch IN_LIST WAVEKIT_SUPPORTED_DEVICE_ARCHS)
      message(FATAL_ERROR "${what}: '${arch}' is not a wavekit device target. "
                          "wavekit targets gfx942 (MI300X/MI325X) and gfx950 (MI355X) only.")
    endif()
  endforeach()
endfunction()

if(NOT WAVEKIT_BACKEND MATCHES "^(emu|hip)$")
  message(FATAL_ERROR "WAVEKIT_BACKEND must be 'emu' (CPU emulator) or 'hip' (real GPU), not '${WAVEKIT_BACKEND}'")
endif()
wavekit_require_supported_archs(WAVEKIT_CODEGEN_ARCHS ${WAVEKIT_CODEGEN_ARCHS})

if(WAVEKIT_BACKEND STREQUAL "hip")
  # A real ROCm install, found the standard way (hip-lang for the HIP language, hip for hip::host).
  if(NOT CMAKE_HIP_ARCHITECTURES)
    set(CMAKE_HIP_ARCHITECTURES "gfx942;gfx950")
  endif()
  wavekit_require_supported_archs(CMAKE_HIP_ARCHITECTURES ${CMAKE_HIP_ARCHITECTURES})
  enable_language(HIP)
  find_package(hip CONFIG REQUIRED)
  if(hip_VERSION VERSION_LESS 6.2)
    message(FATAL_ERROR "The GPU build needs ROCm >= 6.2 (found HIP ${hip_VERSION} in ${hip_DIR}).")
  endif()
else()
  set(WAVEKIT_EMU_ARCH "gfx942" CACHE STRING "Target the CPU emulator behaves as (gfx942 or gfx950)")
  wavekit_require_supported_archs(WAVEKIT_EMU_ARCH ${WAVEKIT_EMU_ARCH})
endif()

find_program(WAVEKIT_CCACHE ccache)
if(WAVEKIT_CCACHE)
  set(CMAKE_CXX_COMPILER_LAUNCHER ${WAVEKIT_CCACHE})
  set(CMAKE_HIP_COMPILER_LAUNCHER ${WAVEKIT_CCACHE})
endif()

find_package(Python3 3.9 REQUIRED COMPONENTS Interpreter)  # the .venv one, see CMakeLists.txt

# Warnings for wavekit's own translation units (the INTERFACE target pushes none on consumers).
add_library(wavekit_dev_flags INTERFACE)
target_compile_options(wavekit_dev_flags INTERFACE
  $<$<COMPILE_LANG_AND_ID:CXX,Clang,GNU>:-Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion>)
target_link_libraries(wavekit_dev_flags INTERFACE wavekit::wavekit)

if(WAVEKIT_CODEGEN_ARCHS)
  include(WavekitDeviceToolchain)
endif()

# The CPU emulator (wavekit_emulated), as downstream projects get it.
include(wavekitEmulator)
if(NOT TARGET wavekit::emulator_gfx942)
  message(FATAL_ERROR "wavekit's development build needs Boost.Context for the CPU emulator "
                      "(Debian: apt-get install libboost-context-dev)")
endif()
