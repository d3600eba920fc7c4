# Script mode: llvmlite serves gfx950's codegen only (cmake/WavekitDeviceToolchain.cmake). With a
# Python that cannot import it (a wrapper whose path puts first a package of that name that raises
# ImportError), a configure without gfx950 codegen (the cpu preset's) must succeed, and one with
# it must fail naming llvmlite.
file(REMOVE_RECURSE ${WORK_DIR})
file(WRITE ${WORK_DIR}/hide/llvmlite/__init__.py "raise ImportError('llvmlite hidden by the package test')\n")
file(WRITE ${WORK_DIR}/unwrapped/python "#!/bin/sh\nPYTHONPATH=${WORK_DIR}/hide exec ${PYTHON} \"$@\"\n")
file(COPY ${WORK_DIR}/unwrapped/python DESTINATION ${WORK_DIR}
     FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE)
set(python ${WORK_DIR}/python)
execute_process(COMMAND ${python} -c "import llvmlite" RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
if(rc EQUAL 0)
  message(FATAL_ERROR "the wrapper ${python} still imports llvmlite: the test would prove nothing")
endif()
foreach(archs IN ITEMS "" gfx950)
  execute_process(COMMAND ${CMAKE_COMMAND} -S ${WAVEKIT_SOURCE_DIR} -B ${WORK_DIR}/build_${archs} -G ${GENERATOR}
                          -DCMAKE_CXX_COMPILER=${CXX_COMPILER} -DWAVEKIT_BACKEND=emu
                          -DWAVEKIT_CODEGEN_ARCHS=${archs} -DPython3_EXECUTABLE=${python}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(archs STREQUAL "" AND NOT rc EQUAL 0)
    message(FATAL_ERROR "without gfx950 codegen the configure needs no llvmlite, but it failed (${rc}):\n${out}\n${err}")
  endif()
  if(archs STREQUAL "gfx950" AND (rc EQUAL 0 OR NOT err MATCHES "gfx950 codegen needs llvmlite"))
    message(FATAL_ERROR "with gfx950 codegen and no llvmlite the configure must fail naming llvmlite (${rc}):\n${err}")
  endif()
endforeach()
message(STATUS "without llvmlite: the configure without gfx950 codegen succeeds, the one with it names llvmlite")
