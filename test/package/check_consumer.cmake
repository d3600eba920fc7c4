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

foreach(mode find_package subdirectory fetchcontent)
  set(build ${WORK_DIR}/${mode})
  run(${CMAKE_COMMAND} -S ${WAVEKIT_SOURCE_DIR}/examples/consumer -B ${build} -G ${GENERATOR}
      -DCMAKE_CXX_COMPILER=${CXX_COMPILER} -DWAVEKIT_CONSUME=${mode} -DCMAKE_EXPORT_COMPILE_COMMANDS=ON
      -DCMAKE_PREFIX_PATH=${prefix} -DWAVEKIT_SOURCE_DIR=${WAVEKIT_SOURCE_DIR})
  run(${CMAKE_COMMAND} --build ${build})
  run(${build}/consumer)
  if(NOT EXISTS ${build}/consumer_emulated)
    message(FATAL_ERROR "consumer via ${mode}: wavekit_emulated() did not build the emulated program")
  endif()
  run(${build}/consumer_emulated)
  # No build type here: wavekit_emulated() compiles emulated.hip as C++ with -O2 all the same.
  file(READ ${build}/compile_commands.json commands)
  if(NOT commands MATCHES "-x c\\+\\+[^\n]*-O2[^\n]*emulated\\.hip" AND
     NOT commands MATCHES "-O2[^\n]*-x c\\+\\+[^\n]*emulated\\.hip")
    message(FATAL_ERROR "consumer via ${mode}: emulated.hip is not compiled as C++ with -O2:\n${commands}")
  endif()
  message(STATUS "consumer via ${mode}: ok")
endforeach()
