# Script mode: install wavekit and build + run the consumer in each way of consuming it.
include(${CMAKE_CURRENT_LIST_DIR}/run_checked.cmake)

file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)
# Install from a fresh configure of the library alone, the way a packager would.
run(${CMAKE_COMMAND} -S ${WAVEKIT_SOURCE_DIR} -B ${WORK_DIR}/lib -G ${GENERATOR}
    -DCMAKE_CXX_COMPILER=${CXX_COMPILER} -DCMAKE_INSTALL_PREFIX=${prefix}
    -DWAVEKIT_BUILD_TESTS=OFF -DWAVEKIT_BUILD_BENCHMARKS=OFF -DWAVEKIT_BUILD_EXAMPLES=OFF -DWAVEKIT_CODEGEN_ARCHS=)
run(${CMAKE_COMMAND} --install ${WORK_DIR}/lib)
foreach(header wavekit/core/numeric_types.hpp wavekit/emu/hip/hip_runtime.h)
  if(NOT EXISTS ${prefix}/include/${header})
    message(FATAL_ERROR "install did not place ${header} under ${prefix}/include")
  endif()
endforeach()

# check_emulated(<build dir> <mode>): the emulated program runs, and emulated.hip was compiled as
# C++ with -O2 (no build type here: wavekit_emulated() compiles it so all the same).
function(check_emulated build mode)
  if(NOT EXISTS ${build}/consumer_emulated)
    message(FATAL_ERROR "consumer via ${mode}: wavekit_emulated() did not build the emulated program")
  endif()
  run(${build}/consumer_emulated)
  file(READ ${build}/compile_commands.json commands)
  if(NOT commands MATCHES "-x c\\+\\+[^\n]*-O2[^\n]*emulated\\.hip" AND
     NOT commands MATCHES "-O2[^\n]*-x c\\+\\+[^\n]*emulated\\.hip")
    message(FATAL_ERROR "consumer via ${mode}: emulated.hip is not compiled as C++ with -O2:\n${commands}")
  endif()
endfunction()

# Each way of consuming, with -Wall -Wextra -Werror on the consumer's targets. The installed
# package is also asked for with a launcher of the consumer's own (wavekit_emulated() must run it)
# and, where the device tools are, for a real gfx942 device compile of device.hip.
foreach(mode find_package subdirectory fetchcontent)
  set(build ${WORK_DIR}/${mode})
  set(extra)
  if(mode STREQUAL "find_package")
    list(APPEND extra -DWAVEKIT_CONSUMER_OWN_LAUNCHER=ON -DWAVEKIT_CONSUMER_DEVICE=${DEVICE})
  endif()
  run(${CMAKE_COMMAND} -S ${WAVEKIT_SOURCE_DIR}/examples/consumer -B ${build} -G ${GENERATOR}
      -DCMAKE_CXX_COMPILER=${CXX_COMPILER} -DWAVEKIT_CONSUME=${mode} -DCMAKE_EXPORT_COMPILE_COMMANDS=ON
      -DCMAKE_PREFIX_PATH=${prefix} -DWAVEKIT_SOURCE_DIR=${WAVEKIT_SOURCE_DIR} -DWAVEKIT_CONSUMER_WERROR=ON ${extra})
  run(${CMAKE_COMMAND} --build ${build})
  run(${build}/consumer)
  check_emulated(${build} ${mode})
  if(mode STREQUAL "find_package")
    # The consumer's launcher is kept behind the launch rewriter, and the build ran through both.
    file(STRINGS ${build}/CMakeFiles/rules.ninja chained REGEX "emu_chevron_launcher\\.py.*WAVEKIT_CONSUMER_LAUNCHER=1")
    if(NOT chained)
      message(FATAL_ERROR "consumer via ${mode}: wavekit_emulated() dropped the consumer's compiler launcher")
    endif()
    if(DEVICE AND NOT EXISTS ${build}/CMakeFiles/consumer_device.dir/device.hip.o)
      message(FATAL_ERROR "consumer via ${mode}: the gfx942 device object was not built")
    endif()
  endif()
  # A project that brings wavekit in installs nothing of wavekit's unless it asks.
  if(NOT mode STREQUAL "find_package")
    # (The consumer itself installs nothing, so no install script here may install a file.)
    file(GLOB_RECURSE install_scripts ${build}/cmake_install.cmake)
    foreach(script IN LISTS install_scripts)
      file(STRINGS ${script} installs REGEX "file\\(INSTALL")
      if(installs)
        message(FATAL_ERROR "consumer via ${mode}: installing the consumer would install wavekit's files (${script})")
      endif()
    endforeach()
  endif()
  message(STATUS "consumer via ${mode}: ok")
endforeach()

# The oldest CMake wavekit supports for consumers (3.22, Ubuntu 22.04's), from PyPI
# (scripts/setup-debian.sh): the installed package and add_subdirectory, each with the emulator.
if(MIN_CMAKE)
  foreach(mode find_package subdirectory)
    set(build ${WORK_DIR}/min_cmake_${mode})
    run(${MIN_CMAKE} -S ${WAVEKIT_SOURCE_DIR}/examples/consumer -B ${build} -G ${GENERATOR}
        -DCMAKE_CXX_COMPILER=${CXX_COMPILER} -DWAVEKIT_CONSUME=${mode} -DCMAKE_EXPORT_COMPILE_COMMANDS=ON
        -DCMAKE_PREFIX_PATH=${prefix} -DWAVEKIT_SOURCE_DIR=${WAVEKIT_SOURCE_DIR} -DWAVEKIT_CONSUMER_WERROR=ON)
    run(${MIN_CMAKE} --build ${build})
    run(${build}/consumer)
    check_emulated(${build} "${mode} (CMake 3.22)")
    message(STATUS "consumer via ${mode} with CMake 3.22: ok")
  endforeach()
endif()
