# The wavekit CPU emulator for CMake projects (wavekit's own build, add_subdirectory /
# FetchContent consumers, and the installed package):
#
#   wavekit_emulated(<target> <gfx942|gfx950>)
#
# builds <target> as plain C++ against wavekit's HIP shim: kernels and host code run on the CPU,
# behaving as the given target. It links wavekit::emulator_<arch> (include path, definitions,
# Boost.Context) and puts a launcher that rewrites kernel<<<...>>>(...) launches in front of the
# target's own compiler launcher (ccache or whatever the project set is kept).
# Needs clang >= 19 (the shim uses clang's vector extensions and builtins; clang 14 is known to
# fail), Boost.Context and Python 3. A .hip source of <target> is compiled as C++. Without a build
# type the target is compiled with -O2: unoptimised, kernels run about 8x slower on the emulator.
#
# Including this file looks nothing up. Boost, Python and the compiler's runtime are found on the
# first wavekit_emulated() call, or by wavekit_find_emulator(<found var>) (what
# find_package(wavekit COMPONENTS emulator) calls), so a project that only uses the headers needs
# none of them.

include_guard(GLOBAL)

# wavekit_check_cxx_compiler(<what> <result var>): empty if CMAKE_CXX_COMPILER can build emulated
# code, else the one sentence that says what is needed.
function(wavekit_check_cxx_compiler what result)
  # The oldest clang wavekit's emulated builds (and wavekit's own build) are made and tested with.
  set(WAVEKIT_MIN_CLANG_VERSION 19)
  set(problem "")
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang" OR CMAKE_CXX_COMPILER_VERSION VERSION_LESS WAVEKIT_MIN_CLANG_VERSION)
    set(problem "${what} needs clang >= ${WAVEKIT_MIN_CLANG_VERSION} as the C++ compiler, but "
                "CMAKE_CXX_COMPILER is ${CMAKE_CXX_COMPILER_ID} ${CMAKE_CXX_COMPILER_VERSION} "
                "(${CMAKE_CXX_COMPILER}): configure a new build directory with "
                "-DCMAKE_CXX_COMPILER=clang++-${WAVEKIT_MIN_CLANG_VERSION} (Debian: apt-get install "
                "clang-${WAVEKIT_MIN_CLANG_VERSION}), or use one of wavekit's presets (cmake --preset cpu).")
    string(JOIN "" problem ${problem})
  endif()
  set(${result} "${problem}" PARENT_SCOPE)
endfunction()

# wavekit_emulated_arithmetic_flags(<result var>): the compile options that make emulated code round
# as the device code does. The device compile (-ffp-contract=on, wavekit's device flags) fuses
# a * b + c written in one expression into one v_fma_f32 and nothing across statements; the same
# flag here makes the front end mark the same expressions, and on x86-64 -mfma makes each a true
# fused multiply-add (without it the x86 backend rounds the product first). docs/emulator.md.
function(wavekit_emulated_arithmetic_flags result)
  set(flags -ffp-contract=on)
  if(CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$")
    list(APPEND flags -mfma)
  endif()
  set(${result} ${flags} PARENT_SCOPE)
endfunction()

# _wavekit_check_emulated_arithmetic(): stops the configure with a sentence unless this compiler
# and CPU run emulated code with those flags and fuse a * b + c (checked once, then cached).
function(_wavekit_check_emulated_arithmetic)
  if(DEFINED CACHE{WAVEKIT_EMULATED_FMA_WORKS} AND WAVEKIT_EMULATED_FMA_WORKS)
    return()
  endif()
  wavekit_emulated_arithmetic_flags(flags)
  set(dir ${CMAKE_BINARY_DIR}${CMAKE_FILES_DIRECTORY}/wavekit_fma_check)
  file(WRITE ${dir}/fma_check.cpp [=[
// a * b + c in one expression must be one fused multiply-add, as in the device code: with
// a = b = 1 + 2^-12 and c = -(1 + 2^-11) the rounded product cancels to 0, the fused one gives 2^-24.
#include <cmath>
__attribute__((noinline)) float contracted(float a, float b, float c) { return a * b + c; }
int main() {
#if defined(__x86_64__)
  __builtin_cpu_init();
  if (!__builtin_cpu_supports("avx") || !__builtin_cpu_supports("fma")) return 2;
#endif
  volatile float a = 1.0f + 0x1p-12f, c = -(1.0f + 0x1p-11f);
  const float fused = contracted(a, a, c);
  return fused == std::fma(a, a, c) && fused == 0x1p-24f ? 0 : 3;
}
]=])
  if(CMAKE_CROSSCOMPILING)
    try_compile(compiled ${dir}/build ${dir}/fma_check.cpp COMPILE_DEFINITIONS -O2 ${flags}
                OUTPUT_VARIABLE output)
    set(ran 0)
  else()
    try_run(ran compiled ${dir}/build ${dir}/fma_check.cpp COMPILE_DEFINITIONS -O2 ${flags}
            COMPILE_OUTPUT_VARIABLE output)
  endif()
  string(JOIN " " shown ${flags})
  if(NOT compiled)
    message(FATAL_ERROR "wavekit's emulated builds compile with ${shown} (fused multiply-adds where the "
                        "device code has them), and ${CMAKE_CXX_COMPILER} cannot compile a program with "
                        "them:\n${output}")
  elseif(ran STREQUAL "2" OR NOT ran MATCHES "^[0-9]+$")
    message(FATAL_ERROR "wavekit's emulated builds use the CPU's fused multiply-add (${shown}: the device "
                        "code fuses a * b + c, and the emulator must round as it does), and this CPU "
                        "has no FMA instructions (x86-64 needs AVX and FMA3: Intel Haswell, AMD Piledriver "
                        "or later). Run the emulator on such a machine.")
  elseif(NOT ran EQUAL 0)
    message(FATAL_ERROR "wavekit's emulated builds need a * b + c compiled as one fused multiply-add "
                        "with ${shown}, and ${CMAKE_CXX_COMPILER} with these flags (after CMAKE_CXX_FLAGS) "
                        "rounds the product first.")
  endif()
  set(WAVEKIT_EMULATED_FMA_WORKS TRUE CACHE INTERNAL "the emulated-build FMA check passed")
endfunction()

# The emulator's headers (wavekit/emu/..., the HIP shim) and wavekit's: from this source tree (the
# emulator is its own component, emu/, with the same include spelling), or from the installation
# this file belongs to (one include directory).
if(EXISTS ${CMAKE_CURRENT_LIST_DIR}/../emu/include/wavekit/emu/hip/hip_runtime.h)
  set(_WAVEKIT_EMU_INCLUDE ${CMAKE_CURRENT_LIST_DIR}/../emu/include)
  set(_WAVEKIT_INCLUDE ${CMAKE_CURRENT_LIST_DIR}/../include)
  set(_WAVEKIT_CHEVRON_LAUNCHER ${CMAKE_CURRENT_LIST_DIR}/../tools/emu_chevron_launcher.py)
else()
  get_filename_component(_wavekit_prefix ${CMAKE_CURRENT_LIST_DIR}/../../.. ABSOLUTE)
  set(_WAVEKIT_EMU_INCLUDE ${_wavekit_prefix}/include)
  set(_WAVEKIT_INCLUDE ${_wavekit_prefix}/include)
  set(_WAVEKIT_CHEVRON_LAUNCHER ${_wavekit_prefix}/share/wavekit/emu_chevron_launcher.py)
endif()
foreach(_wavekit_var _WAVEKIT_EMU_INCLUDE _WAVEKIT_INCLUDE _WAVEKIT_CHEVRON_LAUNCHER)
  get_filename_component(${_wavekit_var} ${${_wavekit_var}} ABSOLUTE)
  set(${_wavekit_var} ${${_wavekit_var}} CACHE INTERNAL "wavekit emulator path")
endforeach()

# The emulator's models of the hardware arithmetic (MFMA numerics and layouts, conversions) as
# plain headers, for host programs that check them against references (no fibers, no shim, no
# lookups).
if(NOT TARGET wavekit::emulator_headers)
  add_library(wavekit_emulator_headers INTERFACE IMPORTED GLOBAL)
  add_library(wavekit::emulator_headers ALIAS wavekit_emulator_headers)
  target_include_directories(wavekit_emulator_headers INTERFACE ${_WAVEKIT_EMU_INCLUDE} ${_WAVEKIT_INCLUDE})
endif()

# wavekit_find_emulator(<found var>): finds what emulated targets need (Boost.Context, Python 3,
# clang's builtins) once, and defines wavekit::emulator_gfx942 / wavekit::emulator_gfx950.
# <found var> is TRUE when both are defined; otherwise WAVEKIT_EMULATOR_MISSING says what is missing.
function(wavekit_find_emulator found)
  if(TARGET wavekit::emulator_gfx942 AND DEFINED CACHE{WAVEKIT_EMULATOR_LAUNCHER})
    set(${found} TRUE PARENT_SCOPE)
    return()
  endif()
  set(missing "")
  if(NOT TARGET Boost::context)
    find_package(Boost 1.74 CONFIG QUIET COMPONENTS context)
    # The imported targets must be visible to every directory that calls wavekit_emulated()
    # (find_package's GLOBAL keyword needs CMake 3.24; this works from 3.22).
    get_directory_property(imported IMPORTED_TARGETS)
    foreach(t IN LISTS imported)
      if(t MATCHES "^Boost::")
        get_target_property(is_global ${t} IMPORTED_GLOBAL)
        if(NOT is_global)
          set_target_properties(${t} PROPERTIES IMPORTED_GLOBAL TRUE)
        endif()
      endif()
    endforeach()
  endif()
  if(NOT TARGET Boost::context)
    set(missing "Boost.Context >= 1.74 (Debian: apt-get install libboost-context-dev)")
  endif()
  if(NOT Python3_EXECUTABLE)
    find_package(Python3 3.9 QUIET COMPONENTS Interpreter)
  endif()
  if(NOT Python3_EXECUTABLE)
    list(APPEND missing "Python 3 (runs the kernel<<<...>>> launch rewriter)")
  endif()
  if(missing)
    string(JOIN " and " missing ${missing})
    set(WAVEKIT_EMULATOR_MISSING "${missing}" PARENT_SCOPE)
    set(${found} FALSE PARENT_SCOPE)
    return()
  endif()
  set(WAVEKIT_EMULATOR_LAUNCHER ${Python3_EXECUTABLE} ${_WAVEKIT_CHEVRON_LAUNCHER}
      CACHE INTERNAL "the launch rewriter wavekit_emulated() puts before a target's compiler launcher")

  # Emulated kernels are x86 code, and its backend narrows bf16 vectors it moves through registers
  # (gfx950's bf16 MFMA operands) with compiler-rt's __truncsfbf2, which libgcc 12 lacks: clang's
  # builtins archive goes on the link line too.
  set(builtins)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    execute_process(COMMAND ${CMAKE_CXX_COMPILER} --rtlib=compiler-rt -print-libgcc-file-name
                    OUTPUT_VARIABLE builtins OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    if(NOT EXISTS "${builtins}")
      set(builtins)
    endif()
  endif()
  wavekit_emulated_arithmetic_flags(arith)
  foreach(arch gfx942 gfx950)
    string(TOUPPER ${arch} ARCH)
    if(NOT TARGET wavekit::emulator_${arch})
      add_library(wavekit_emulator_${arch} INTERFACE IMPORTED GLOBAL)
      add_library(wavekit::emulator_${arch} ALIAS wavekit_emulator_${arch})
      target_include_directories(wavekit_emulator_${arch} INTERFACE ${_WAVEKIT_EMU_INCLUDE}/wavekit/emu
                                 ${_WAVEKIT_EMU_INCLUDE} ${_WAVEKIT_INCLUDE})
      # The target macros the device compiler defines for this processor. Not __AMDGCN__,
      # __AMDGPU__ or __HIP_DEVICE_COMPILE__: the same code is also the host program here, and
      # those make headers take device-only paths (inline GPU assembly, device libraries).
      target_compile_definitions(wavekit_emulator_${arch} INTERFACE WAVEKIT_EMULATOR WAVEKIT_EMULATE_${ARCH}
                                 __${arch}__=1 __GFX9__=1 __AMDGCN_WAVEFRONT_SIZE=64 __AMDGCN_WAVEFRONT_SIZE__=64)
      # 64-byte vector arguments change the x86 ABI; every caller is built alike. The arithmetic
      # flags make the host fuse a * b + c where the device code does (wavekit_emulated_arithmetic_flags).
      target_compile_options(wavekit_emulator_${arch} INTERFACE $<$<CXX_COMPILER_ID:Clang>:-Wno-psabi>
                                                                ${arith})
      target_compile_features(wavekit_emulator_${arch} INTERFACE cxx_std_20)
      target_link_libraries(wavekit_emulator_${arch} INTERFACE Boost::context ${builtins})
    endif()
  endforeach()
  set(${found} TRUE PARENT_SCOPE)
endfunction()

function(wavekit_emulated target arch)
  if(NOT arch MATCHES "^(gfx942|gfx950)$")
    message(FATAL_ERROR "wavekit_emulated(${target}): '${arch}' is not a wavekit target (gfx942 or gfx950)")
  endif()
  wavekit_check_cxx_compiler("wavekit_emulated(${target})" problem)
  if(problem)
    message(FATAL_ERROR "${problem}")
  endif()
  wavekit_find_emulator(found)
  if(NOT found)
    message(FATAL_ERROR "wavekit_emulated(${target}): the emulator needs ${WAVEKIT_EMULATOR_MISSING}")
  endif()
  _wavekit_check_emulated_arithmetic()
  target_link_libraries(${target} PRIVATE wavekit::emulator_${arch})
  # HIP sources are plain C++ here (the shim stands in for the HIP runtime).
  get_target_property(sources ${target} SOURCES)
  foreach(source IN LISTS sources)
    if(source MATCHES "\\.hip$")
      set_source_files_properties(${source} TARGET_DIRECTORY ${target} PROPERTIES LANGUAGE CXX)
    endif()
  endforeach()
  set_target_properties(${target} PROPERTIES LINKER_LANGUAGE CXX)
  # Without a build type nothing is optimised, and emulated kernels run about 8x slower.
  get_property(multi_config GLOBAL PROPERTY GENERATOR_IS_MULTI_CONFIG)
  if(NOT multi_config AND NOT CMAKE_BUILD_TYPE)
    target_compile_options(${target} PRIVATE -O2)
    get_property(told GLOBAL PROPERTY _WAVEKIT_TOLD_NO_BUILD_TYPE)
    if(NOT told)
      set_property(GLOBAL PROPERTY _WAVEKIT_TOLD_NO_BUILD_TYPE TRUE)
      message(STATUS "wavekit_emulated: no CMAKE_BUILD_TYPE, so emulated targets are compiled with -O2 "
                     "(unoptimised, kernels run about 8x slower on the emulator)")
    endif()
  endif()
  # The launch rewriter goes in front of the target's own launcher (initialised from
  # CMAKE_CXX_COMPILER_LAUNCHER: ccache, distcc, ...), which it runs with the rewritten command.
  get_target_property(launcher ${target} CXX_COMPILER_LAUNCHER)
  if(NOT launcher MATCHES "emu_chevron_launcher")
    set(chain ${WAVEKIT_EMULATOR_LAUNCHER})
    if(launcher)
      list(APPEND chain ${launcher})
    endif()
    set_target_properties(${target} PROPERTIES CXX_COMPILER_LAUNCHER "${chain}")
  endif()
endfunction()
