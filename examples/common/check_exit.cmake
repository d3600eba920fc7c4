# Script mode: runs an example and checks its exit code exactly (ctest's WILL_FAIL takes any
# failure, a crash included), and what it printed.
#
#   cmake -DPROGRAM=<executable> [-DARGS=<word,word,...>] -DCODE=<exit code>
#         [-DSTDOUT=<regex>] [-DSTDERR=<regex>] [-DQUIET_STDERR=ON] -P check_exit.cmake
#
# ARGS: the arguments, separated by commas (so that they pass through ctest as one word).
# STDOUT / STDERR: what that stream must match; QUIET_STDERR: stderr must be empty.
if(NOT DEFINED PROGRAM OR NOT DEFINED CODE)
  message(FATAL_ERROR "check_exit.cmake: PROGRAM and CODE are required")
endif()
string(REPLACE "," ";" words "${ARGS}")
execute_process(COMMAND ${PROGRAM} ${words} RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(ran "${PROGRAM} ${words}\n--- stdout:\n${out}--- stderr:\n${err}---")
if(NOT code STREQUAL CODE)
  message(FATAL_ERROR "exit code ${code}, expected ${CODE}: ${ran}")
endif()
if(DEFINED STDOUT AND NOT out MATCHES "${STDOUT}")
  message(FATAL_ERROR "stdout does not match '${STDOUT}': ${ran}")
endif()
if(DEFINED STDERR AND NOT err MATCHES "${STDERR}")
  message(FATAL_ERROR "stderr does not match '${STDERR}': ${ran}")
endif()
if(QUIET_STDERR AND NOT err STREQUAL "")
  message(FATAL_ERROR "stderr is not empty: ${ran}")
endif()
message(STATUS "exit code ${code} as expected: ${PROGRAM} ${words}")
