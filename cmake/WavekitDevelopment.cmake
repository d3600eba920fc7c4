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

# Python runs the codegen report and the ml_dtypes cross-check. scripts/setup-debian.sh makes
# a virtual environment in .venv with llvmlite, numpy and ml_dtypes; prefer it when present.
if(NOT DEFINED Python3_EXECUTABLE AND EXISTS ${PROJECT_SOURCE_DIR}/.venv/bin/python3)
  set(Python3_EXECUTABLE ${PROJECT_SOURCE_DIR}/.venv/bin/python3)
endif()
find_package(Python3 3.9 REQUIRED COMPONENTS Interpreter)

# Warnings for wavekit's own translation units (the INTERFACE target pushes none on consumers).
add_library(wavekit_dev_flags INTERFACE)
target_compile_options(wavekit_dev_flags INTERFACE
  $<$<COMPILE_LANG_AND_ID:CXX,Clang,GNU>:-Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion>)
target_link_libraries(wavekit_dev_flags INTERFACE wavekit::wavekit)

if(WAVEKIT_CODEGEN_ARCHS)
  include(WavekitDeviceToolchain)
endif()

# The CPU emulator: kernels and host code built as plain C++ against wavekit's HIP shim
# (include/wavekit/emu/hip), emulating gfx942 or gfx950. wavekit_emulated(<target> <arch>)
# makes a target an emulator build.
find_package(Boost 1.74 CONFIG REQUIRED COMPONENTS context)
function(wavekit_emulated target arch)
  wavekit_require_supported_archs("wavekit_emulated(${target})" ${arch})
  string(TOUPPER ${arch} ARCH)
  target_include_directories(${target} BEFORE PRIVATE ${PROJECT_SOURCE_DIR}/include/wavekit/emu)
  target_compile_definitions(${target} PRIVATE WAVEKIT_EMULATOR WAVEKIT_EMULATE_${ARCH})
  # clang warns that 64-byte vector arguments change the x86 ABI; all callers are built alike.
  target_compile_options(${target} PRIVATE -Wno-psabi)
  target_link_libraries(${target} PRIVATE Boost::context)
  # kernel<<<...>>>(...) is HIP syntax: a launcher rewrites it for the C++ compiler.
  set(launcher ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tools/emu_chevron_launcher.py)
  if(WAVEKIT_CCACHE)
    list(APPEND launcher ${WAVEKIT_CCACHE})
  endif()
  set_target_properties(${target} PROPERTIES CXX_COMPILER_LAUNCHER "${launcher}")
endfunction()
