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
  # ROCm's own clang, not Debian's: the checks of WavekitDependencies.cmake are for CPU builds.
  find_package(hip CONFIG REQUIRED)
  if(hip_VERSION VERSION_LESS 6.2)
    message(FATAL_ERROR "The GPU build needs ROCm >= 6.2 (found HIP ${hip_VERSION} in ${hip_DIR}).")
  endif()
  # The contraction rule of the codegen report and the emulator (WavekitDeviceToolchain.cmake):
  # a * b + c fused within one expression only, so GPU results are the ones the emulator computes.
  add_compile_options($<$<COMPILE_LANGUAGE:HIP>:-ffp-contract=on>)
else()
  set(WAVEKIT_EMU_ARCH "gfx942" CACHE STRING "Target the CPU emulator behaves as (gfx942 or gfx950)")
  wavekit_require_supported_archs(WAVEKIT_EMU_ARCH ${WAVEKIT_EMU_ARCH})
endif()

include(WavekitDependencies)

# ccache with base_dir at the source tree: paths under it are hashed relative to it, so a clone in
# another folder (a CI checkout) hits the cache a previous build filled. (Debian 12's ccache 4.7
# takes no KEY=VALUE arguments, hence the environment.)
find_program(WAVEKIT_CCACHE ccache)
if(WAVEKIT_CCACHE)
  set(CMAKE_CXX_COMPILER_LAUNCHER ${CMAKE_COMMAND} -E env CCACHE_BASEDIR=${PROJECT_SOURCE_DIR} ${WAVEKIT_CCACHE})
  set(CMAKE_HIP_COMPILER_LAUNCHER ${CMAKE_COMMAND} -E env CCACHE_BASEDIR=${PROJECT_SOURCE_DIR} ${WAVEKIT_CCACHE})
  wavekit_record_dependency(${WAVEKIT_CCACHE} ccache "compiler cache of every compile")
endif()

# The tools of the build itself and the host compiler with what its driver runs to link.
wavekit_record_dependency(${CMAKE_COMMAND} cmake "configure, build, ctest")
if(CMAKE_GENERATOR MATCHES "Ninja")
  wavekit_record_dependency(${CMAKE_MAKE_PROGRAM} ninja-build "the Ninja generator")
endif()
if(NOT WAVEKIT_BACKEND STREQUAL "hip")
  wavekit_record_dependency(${CMAKE_CXX_COMPILER} clang-19 "host and emulated C++")
  wavekit_require_driver_programs(${CMAKE_CXX_COMPILER} FOR "linking host programs" ARGS)
endif()

# Python runs the emulator's launch rewriter, the codegen report and the cross-checks, with the
# packages of tools/requirements.txt (scripts/setup-debian.sh puts them in .venv).
find_package(Python3 3.9 COMPONENTS Interpreter)  # the .venv one, see CMakeLists.txt
wavekit_require_file("${Python3_EXECUTABLE}" PACKAGE python3 FOR "tools/ and the cross-checks" WHAT "Python 3")
# llvmlite only lowers gfx950's codegen (WavekitDeviceToolchain.cmake checks it there): a build
# without gfx950 codegen (the cpu preset) configures without it.
execute_process(COMMAND ${Python3_EXECUTABLE} -c "import numpy, ml_dtypes"
                RESULT_VARIABLE _wk_rc ERROR_VARIABLE _wk_err OUTPUT_QUIET)
if(NOT _wk_rc EQUAL 0)
  message(FATAL_ERROR "wavekit: ${Python3_EXECUTABLE} lacks the packages of tools/requirements.txt "
                      "(numpy, ml_dtypes); scripts/setup-debian.sh installs them into .venv")
endif()

# Warnings for wavekit's own translation units (the INTERFACE target pushes none on consumers).
add_library(wavekit_dev_flags INTERFACE)
target_compile_options(wavekit_dev_flags INTERFACE
  $<$<COMPILE_LANG_AND_ID:CXX,Clang,GNU>:-Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion>)
target_link_libraries(wavekit_dev_flags INTERFACE wavekit::wavekit)

if(WAVEKIT_CODEGEN_ARCHS)
  include(WavekitDeviceToolchain)
endif()

# The CPU emulator (wavekit_emulated), as downstream projects get it, found now: wavekit's own
# build always has it.
include(wavekitEmulator)
wavekit_find_emulator(_wk_emulator_found)
wavekit_require_file("${boost_context_DIR}" PACKAGE libboost-context-dev FOR "the CPU emulator's fibers"
                     WHAT "Boost.Context's CMake package")
if(NOT WAVEKIT_BACKEND STREQUAL "hip")
  # The sanitizer runtimes of the emulator's race (TSan) and memory (ASan, UBSan) tests.
  foreach(runtime tsan asan ubsan_standalone)
    execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=libclang_rt.${runtime}-${CMAKE_SYSTEM_PROCESSOR}.a
                    OUTPUT_VARIABLE _wk_rt OUTPUT_STRIP_TRAILING_WHITESPACE)
    wavekit_require_file("${_wk_rt}" PACKAGE libclang-rt-19-dev FOR "the emulator's sanitizer tests"
                         WHAT "clang's ${runtime} runtime")
  endforeach()
  # The builtins every emulated program links (cmake/wavekitEmulator.cmake says why).
  execute_process(COMMAND ${CMAKE_CXX_COMPILER} --rtlib=compiler-rt -print-libgcc-file-name
                  OUTPUT_VARIABLE _wk_rt OUTPUT_STRIP_TRAILING_WHITESPACE)
  wavekit_require_file("${_wk_rt}" PACKAGE libclang-rt-19-dev FOR "the emulated programs (bf16 narrowing helpers)"
                       WHAT "clang's builtins runtime")
endif()
if(WAVEKIT_BUILD_TESTS)
  find_package(Catch2 2 QUIET)
  wavekit_require_file("${Catch2_DIR}" PACKAGE catch2 FOR "the tests" WHAT "Catch2 2.x's CMake package")
endif()
if(WAVEKIT_BUILD_BENCHMARKS)
  find_package(benchmark QUIET)
  wavekit_require_file("${benchmark_DIR}" PACKAGE libbenchmark-dev FOR "the benchmarks"
                       WHAT "Google Benchmark's CMake package")
endif()
