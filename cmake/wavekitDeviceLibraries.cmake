# The ROCm device libraries of a real gfx942 build, for wavekit's own codegen and for consumers:
#
#   wavekit_device_libraries(<result var> [DIRECTORY <dir>])
#
# sets <result var> to a directory to pass as --rocm-device-lib-path. A ROCm whose bitcode has
# oclc_isa_version_942.bc is used as it is. Debian's rocm-device-libs (5.2) lack that file, which
# only defines the constant __oclc_ISA_version: it is derived from oclc_isa_version_940.bc (the
# constant 9400 becomes 9402, checked to be the module's only definition) into <dir> (default
# ${CMAKE_BINARY_DIR}/wavekit-amdgcn-bitcode), beside links to every other system bitcode file.
# System directories are never written. Needs llvm-dis and llvm-as of the compiler's LLVM only in
# that case. Including this file looks nothing up.

include_guard(GLOBAL)

# The system's ROCm bitcode directory (one with oclc_isa_version_942.bc or _940.bc) into the cache
# variable WAVEKIT_SYSTEM_DEVICE_LIBS, or WAVEKIT_SYSTEM_DEVICE_LIBS-NOTFOUND.
macro(wavekit_find_system_device_libraries)
  find_path(WAVEKIT_SYSTEM_DEVICE_LIBS NAMES oclc_isa_version_942.bc oclc_isa_version_940.bc
    HINTS $ENV{ROCM_PATH}/amdgcn/bitcode /opt/rocm/amdgcn/bitcode
          /usr/lib/${CMAKE_LIBRARY_ARCHITECTURE}/amdgcn/bitcode /usr/lib/x86_64-linux-gnu/amdgcn/bitcode
    NO_DEFAULT_PATH)
endmacro()

function(wavekit_device_libraries result)
  cmake_parse_arguments(ARG "" "DIRECTORY" "" ${ARGN})
  if(NOT ARG_DIRECTORY)
    set(ARG_DIRECTORY ${CMAKE_BINARY_DIR}/wavekit-amdgcn-bitcode)
  endif()
  wavekit_find_system_device_libraries()
  if(NOT WAVEKIT_SYSTEM_DEVICE_LIBS)
    message(FATAL_ERROR "wavekit_device_libraries: no ROCm device libraries (oclc_isa_version_94x.bc) under "
                        "$ROCM_PATH/amdgcn/bitcode, /opt/rocm or /usr/lib; Debian: apt-get install rocm-device-libs")
  endif()
  if(EXISTS ${WAVEKIT_SYSTEM_DEVICE_LIBS}/oclc_isa_version_942.bc)
    set(${result} ${WAVEKIT_SYSTEM_DEVICE_LIBS} PARENT_SCOPE)
    return()
  endif()
  set(dir ${ARG_DIRECTORY})
  if(NOT EXISTS ${dir}/oclc_isa_version_942.bc)
    find_program(WAVEKIT_LLVM_DIS NAMES llvm-dis-19 llvm-dis HINTS /usr/lib/llvm-19/bin)
    find_program(WAVEKIT_LLVM_AS NAMES llvm-as-19 llvm-as HINTS /usr/lib/llvm-19/bin)
    if(NOT WAVEKIT_LLVM_DIS OR NOT WAVEKIT_LLVM_AS)
      message(FATAL_ERROR "wavekit_device_libraries: ${WAVEKIT_SYSTEM_DEVICE_LIBS} has no oclc_isa_version_942.bc, "
                          "and deriving it needs llvm-dis and llvm-as (Debian: apt-get install llvm-19)")
    endif()
    file(MAKE_DIRECTORY ${dir})
    file(GLOB bitcode ${WAVEKIT_SYSTEM_DEVICE_LIBS}/*.bc)
    foreach(bc IN LISTS bitcode)
      get_filename_component(name ${bc} NAME)
      file(CREATE_LINK ${bc} ${dir}/${name} SYMBOLIC)
    endforeach()
    execute_process(COMMAND ${WAVEKIT_LLVM_DIS} ${WAVEKIT_SYSTEM_DEVICE_LIBS}/oclc_isa_version_940.bc -o -
                    OUTPUT_VARIABLE isa_ll RESULT_VARIABLE rc)
    string(REGEX MATCHALL "\n@[A-Za-z_0-9]+ =" globals "${isa_ll}")
    list(LENGTH globals nglobals)
    if(NOT rc EQUAL 0 OR NOT nglobals EQUAL 1 OR NOT isa_ll MATCHES "@__oclc_ISA_version = [^\n]* i32 9400")
      message(FATAL_ERROR "wavekit_device_libraries: oclc_isa_version_940.bc is not the one-constant module "
                          "expected; cannot derive oclc_isa_version_942.bc from it")
    endif()
    string(REPLACE "i32 9400" "i32 9402" isa_ll "${isa_ll}")
    file(WRITE ${dir}/oclc_isa_version_942.ll "${isa_ll}")
    execute_process(COMMAND ${WAVEKIT_LLVM_AS} ${dir}/oclc_isa_version_942.ll -o ${dir}/oclc_isa_version_942.bc
                    RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "wavekit_device_libraries: llvm-as failed to build ${dir}/oclc_isa_version_942.bc")
    endif()
  endif()
  set(${result} ${dir} PARENT_SCOPE)
endfunction()
