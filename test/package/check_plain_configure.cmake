# Script mode: `cmake -S wavekit -B build` with no compiler and no build type, as most CMake users
# start, must configure with clang++-19 and Release (not the system's g++, unoptimised).
file(REMOVE_RECURSE ${WORK_DIR})
execute_process(COMMAND ${CMAKE_COMMAND} -E env --unset=CXX --unset=CMAKE_BUILD_TYPE
                        ${CMAKE_COMMAND} -S ${WAVEKIT_SOURCE_DIR} -B ${WORK_DIR} -G ${GENERATOR}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "plain configure failed (${rc}):\n${out}\n${err}")
endif()
file(STRINGS ${WORK_DIR}/CMakeCache.txt compiler REGEX "^CMAKE_CXX_COMPILER:")
file(STRINGS ${WORK_DIR}/CMakeCache.txt build_type REGEX "^CMAKE_BUILD_TYPE:")
if(NOT compiler MATCHES "clang\\+\\+-19$" OR NOT build_type MATCHES "=Release$")
  message(FATAL_ERROR "plain configure chose '${compiler}' and '${build_type}', not clang++-19 and Release")
endif()
message(STATUS "plain configure: ${compiler}, ${build_type}")
