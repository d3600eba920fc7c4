# Script mode: examples/consumer built by g++ (through add_subdirectory). Its host program includes
# wavekit's host-side headers (core/, host/, the plan queries) and runs a quantizer and a plan
# query; asking wavekit_emulated() for a target must stop the configure with the sentence that
# says clang is needed.
function(run)
  execute_process(COMMAND ${ARGV} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    string(REPLACE ";" " " cmd "${ARGV}")
    message(FATAL_ERROR "failed (${rc}): ${cmd}")
  endif()
endfunction()

file(REMOVE_RECURSE ${WORK_DIR})
set(consumer ${WAVEKIT_SOURCE_DIR}/examples/consumer)
run(${CMAKE_COMMAND} -S ${consumer} -B ${WORK_DIR}/host -G ${GENERATOR} -DCMAKE_CXX_COMPILER=${CXX_COMPILER}
    -DWAVEKIT_CONSUME=subdirectory -DWAVEKIT_SOURCE_DIR=${WAVEKIT_SOURCE_DIR})
run(${CMAKE_COMMAND} --build ${WORK_DIR}/host)
run(${WORK_DIR}/host/consumer)
if(EXISTS ${WORK_DIR}/host/consumer_emulated)
  message(FATAL_ERROR "the g++ consumer built an emulated program")
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
