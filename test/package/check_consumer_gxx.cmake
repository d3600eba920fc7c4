# Script mode: examples/consumer built by g++ (through add_subdirectory). Its host program includes
# wavekit's host-side headers (core/, host/, the plan queries) and runs a quantizer and a plan
# query; asking wavekit_emulated() for a target must stop the configure with the sentence that
# says clang is needed.
include(${CMAKE_CURRENT_LIST_DIR}/run_checked.cmake)

file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})

# Every host-side header (core/, host/, each op's headers but its kernel: problem, configs, plan;
# without those that need HIP or clang's vector types) compiles warning-free, each on its own and
# all together.
file(GLOB headers RELATIVE ${WAVEKIT_SOURCE_DIR}/include ${WAVEKIT_SOURCE_DIR}/include/wavekit/core/*.hpp
     ${WAVEKIT_SOURCE_DIR}/include/wavekit/host/*.hpp ${WAVEKIT_SOURCE_DIR}/include/wavekit/ops/*/*.hpp)
set(all "")
foreach(header IN LISTS headers)
  file(READ ${WAVEKIT_SOURCE_DIR}/include/${header} text)
  if(text MATCHES "hip/hip_runtime.h|ext_vector_type")
    continue()
  endif()
  string(APPEND all "#include <${header}>\n")
  string(MAKE_C_IDENTIFIER ${header} stem)
  file(WRITE ${WORK_DIR}/${stem}.cpp "#include <${header}>\n")
  run(${CXX_COMPILER} -std=c++20 -Wall -Wextra -Wpedantic -Werror -fsyntax-only -I${WAVEKIT_SOURCE_DIR}/include
      ${WORK_DIR}/${stem}.cpp)
endforeach()
file(WRITE ${WORK_DIR}/all_host_headers.cpp "${all}int main() { return 0; }\n")
run(${CXX_COMPILER} -std=c++20 -Wall -Wextra -Wpedantic -Werror -fsyntax-only -I${WAVEKIT_SOURCE_DIR}/include
    ${WORK_DIR}/all_host_headers.cpp)
set(consumer ${WAVEKIT_SOURCE_DIR}/examples/consumer)
run(${CMAKE_COMMAND} -S ${consumer} -B ${WORK_DIR}/host -G ${GENERATOR} -DCMAKE_CXX_COMPILER=${CXX_COMPILER}
    -DWAVEKIT_CONSUME=subdirectory -DWAVEKIT_SOURCE_DIR=${WAVEKIT_SOURCE_DIR})
run(${CMAKE_COMMAND} --build ${WORK_DIR}/host)
run(${WORK_DIR}/host/consumer)
if(EXISTS ${WORK_DIR}/host/consumer_emulated)
  message(FATAL_ERROR "the g++ consumer built an emulated program")
endif()
# A consumer of the headers alone made wavekit look nothing up: no Boost, no Python, no ccache.
file(STRINGS ${WORK_DIR}/host/CMakeCache.txt looked_up REGEX "^(Boost_DIR|boost_context_DIR|_?Python3_EXECUTABLE|WAVEKIT_CCACHE|WAVEKIT_EMULATOR_LAUNCHER)[:=]")
if(looked_up)
  message(FATAL_ERROR "a headers-only consumer's configure looked up the emulator's dependencies: ${looked_up}")
endif()

execute_process(COMMAND ${CMAKE_COMMAND} -S ${consumer} -B ${WORK_DIR}/emulated -G ${GENERATOR}
                        -DCMAKE_CXX_COMPILER=${CXX_COMPILER} -DWAVEKIT_CONSUME=subdirectory
                        -DWAVEKIT_SOURCE_DIR=${WAVEKIT_SOURCE_DIR} -DWAVEKIT_CONSUMER_EMULATED=ON
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
# (CMake wraps the message at spaces.)
set(expected "wavekit_emulated\\(consumer_emulated\\) needs clang >= 19 as the C\\+\\+ compiler, but CMAKE_CXX_COMPILER is GNU")
string(REPLACE " " "[ \n]+" expected "${expected}")
if(rc EQUAL 0 OR NOT err MATCHES "${expected}")
  message(FATAL_ERROR "wavekit_emulated() with g++: expected a configure error matching '${expected}', got "
                      "exit ${rc}:\n${err}")
endif()
message(STATUS "g++ consumer: host headers ok; wavekit_emulated() refused g++ with its sentence")
