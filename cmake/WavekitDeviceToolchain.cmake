# Device code generation without a GPU: Debian's clang-19 compiles HIP for gfx942; for gfx950
# (unknown to clang-19) the same clang emits bitcode that a newer LLVM (llvmlite) lowers.
#
# The device libraries come from wavekit_device_libraries() (cmake/wavekitDeviceLibraries.cmake),
# which consumers call too: Debian's lack oclc_isa_version_942.bc, derived into the build tree.

wavekit_require_program(WAVEKIT_DEVICE_CLANG NAMES clang++-19 clang++ HINTS /usr/lib/llvm-19/bin
                        PACKAGE clang-19 FOR "device code generation")
execute_process(COMMAND ${WAVEKIT_DEVICE_CLANG} --version OUTPUT_VARIABLE _wk_clang_version)
if(NOT _wk_clang_version MATCHES "clang version ([0-9]+)")
  message(FATAL_ERROR "Cannot read the version of ${WAVEKIT_DEVICE_CLANG}")
endif()
if(CMAKE_MATCH_1 LESS 19)
  message(FATAL_ERROR "The codegen report needs clang >= 19 with the AMDGPU backend; "
                      "${WAVEKIT_DEVICE_CLANG} is clang ${CMAKE_MATCH_1}. On Debian: apt-get install clang-19")
endif()
wavekit_require_program(WAVEKIT_LLVM_DIS NAMES llvm-dis-19 llvm-dis HINTS /usr/lib/llvm-19/bin
                        PACKAGE llvm-19 FOR "gfx950 lowering and device libraries")
wavekit_require_program(WAVEKIT_LLVM_AS NAMES llvm-as-19 llvm-as HINTS /usr/lib/llvm-19/bin
                        PACKAGE llvm-19 FOR "device libraries")

wavekit_find_system_device_libraries()
if(WAVEKIT_SYSTEM_DEVICE_LIBS)
  set(_wk_bc ${WAVEKIT_SYSTEM_DEVICE_LIBS}/oclc_isa_version_940.bc)
endif()
wavekit_require_file("${_wk_bc}" PACKAGE rocm-device-libs FOR "device code generation"
                     WHAT "ROCm device libraries (oclc_isa_version_940.bc)")

find_path(WAVEKIT_HIP_INCLUDE_PARENT hip/hip_runtime.h HINTS $ENV{ROCM_PATH}/include /opt/rocm/include /usr/include)
if(WAVEKIT_HIP_INCLUDE_PARENT)
  set(_wk_hip_header ${WAVEKIT_HIP_INCLUDE_PARENT}/hip/hip_runtime.h)
endif()
wavekit_require_file("${_wk_hip_header}" PACKAGE libamdhip64-dev FOR "device code generation" WHAT "HIP headers")
get_filename_component(WAVEKIT_HIP_PATH ${WAVEKIT_HIP_INCLUDE_PARENT} DIRECTORY)

wavekit_device_libraries(WAVEKIT_DEVICE_LIBS DIRECTORY ${PROJECT_BINARY_DIR}/amdgcn-bitcode)
message(STATUS "wavekit device codegen: ${WAVEKIT_DEVICE_CLANG}, device libraries in ${WAVEKIT_DEVICE_LIBS}")

# What the driver runs for a HIP compile to an object (the isa compile checks): device link (lld)
# and the offload bundler.
wavekit_require_driver_programs(${WAVEKIT_DEVICE_CLANG} FOR "HIP compile checks"
  ARGS -x hip -std=c++20 --offload-arch=gfx942 --hip-path=${WAVEKIT_HIP_PATH}
       --rocm-device-lib-path=${WAVEKIT_DEVICE_LIBS} -c)

if("gfx950" IN_LIST WAVEKIT_CODEGEN_ARCHS)
  execute_process(COMMAND ${Python3_EXECUTABLE} -c
                          "import llvmlite.binding as l; print(l.llvm_version_info[0])"
                  OUTPUT_VARIABLE _wk_llvmlite_llvm OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE _wk_rc)
  if(NOT _wk_rc EQUAL 0 OR _wk_llvmlite_llvm LESS 20)
    message(FATAL_ERROR "gfx950 codegen needs llvmlite with LLVM >= 20 for ${Python3_EXECUTABLE} "
                        "(scripts/setup-debian.sh installs it into .venv)")
  endif()
  message(STATUS "wavekit gfx950 codegen: clang-19 bitcode lowered by llvmlite's LLVM ${_wk_llvmlite_llvm}")
endif()

# Flags shared by every device-only compile of the codegen report. -ffp-contract=on: a * b + c
# written as one expression becomes one v_fma_f32 and nothing is fused across statements (HIP's
# default, fast-honor-pragmas, lets the backend fuse across statements too, which no host compiler
# can reproduce); the emulated builds use the same rule (wavekit_emulated_arithmetic_flags).
set(WAVEKIT_DEVICE_CONTRACTION -ffp-contract=on)
set(WAVEKIT_DEVICE_COMPILE_FLAGS
  -x hip -std=c++20 -O3 --cuda-device-only ${WAVEKIT_DEVICE_CONTRACTION}
  --hip-path=${WAVEKIT_HIP_PATH} --rocm-device-lib-path=${WAVEKIT_DEVICE_LIBS}
  -I${PROJECT_SOURCE_DIR}/include
  -Rpass-analysis=kernel-resource-usage)

set(WAVEKIT_CODEGEN_TOOL ${PROJECT_SOURCE_DIR}/tools/codegen_report.py)

# wavekit_add_codegen_report(<target> ARCH <gfx942|gfx950> OUTPUT_DIR <dir> SOURCES <file.hip>... [ALL])
#
# Compiles each source device-only for <arch> (-O3), keeping its assembly and resource remarks
# in <dir>, and makes <target> write <dir>/report.md and <dir>/report.json from them.
function(wavekit_add_codegen_report target)
  cmake_parse_arguments(ARG "ALL" "ARCH;OUTPUT_DIR" "SOURCES" ${ARGN})
  file(MAKE_DIRECTORY ${ARG_OUTPUT_DIR})
  set(asm_files)
  foreach(src IN LISTS ARG_SOURCES)
    get_filename_component(stem ${src} NAME_WE)
    set(asm ${ARG_OUTPUT_DIR}/${stem}.s)
    set(remarks ${ARG_OUTPUT_DIR}/${stem}.remarks)
    if(ARG_ARCH STREQUAL "gfx942")
      add_custom_command(
        OUTPUT ${asm} ${remarks}
        COMMAND ${Python3_EXECUTABLE} ${WAVEKIT_CODEGEN_TOOL} compile --remarks ${remarks} --
                ${WAVEKIT_DEVICE_CLANG} ${WAVEKIT_DEVICE_COMPILE_FLAGS} --offload-arch=gfx942
                -S -o ${asm} -MD -MF ${asm}.d -MT ${asm} ${src}
        DEPENDS ${src} ${WAVEKIT_CODEGEN_TOOL}
        DEPFILE ${asm}.d
        COMMENT "Device codegen (gfx942): ${stem}"
        VERBATIM)
    elseif(ARG_ARCH STREQUAL "gfx950")
      # clang-19 front end as a gfx942 pass with gfx950's macros, unoptimised bitcode; LLVM >= 20
      # (llvmlite) retargets it to gfx950, optimises at -O3 and emits the assembly.
      set(bc ${ARG_OUTPUT_DIR}/${stem}.bc)
      add_custom_command(
        OUTPUT ${bc}
        COMMAND ${WAVEKIT_DEVICE_CLANG} ${WAVEKIT_DEVICE_COMPILE_FLAGS} --offload-arch=gfx942
                -U__gfx942__ -D__gfx950__ -Xclang -disable-llvm-passes -emit-llvm -c
                -o ${bc} -MD -MF ${bc}.d -MT ${bc} ${src}
        DEPENDS ${src}
        DEPFILE ${bc}.d
        COMMENT "Device bitcode (gfx950 via clang-19): ${stem}"
        VERBATIM)
      add_custom_command(
        OUTPUT ${asm} ${remarks}
        COMMAND ${Python3_EXECUTABLE} ${WAVEKIT_CODEGEN_TOOL} compile --remarks ${remarks} --
                ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tools/lower_gfx950.py ${bc} ${asm} ${WAVEKIT_LLVM_DIS}
        DEPENDS ${bc} ${WAVEKIT_CODEGEN_TOOL} ${PROJECT_SOURCE_DIR}/tools/lower_gfx950.py
        COMMENT "Device codegen (gfx950 via llvmlite): ${stem}"
        VERBATIM)
    else()
      message(FATAL_ERROR "wavekit_add_codegen_report: unknown arch '${ARG_ARCH}'")
    endif()
    list(APPEND asm_files ${asm})
  endforeach()
  set(reference ${PROJECT_SOURCE_DIR}/tools/codegen_reference_rows.json)
  add_custom_command(
    OUTPUT ${ARG_OUTPUT_DIR}/report.md ${ARG_OUTPUT_DIR}/report.json
    COMMAND ${Python3_EXECUTABLE} ${WAVEKIT_CODEGEN_TOOL} report --arch ${ARG_ARCH}
            --out ${ARG_OUTPUT_DIR}/report.md --json ${ARG_OUTPUT_DIR}/report.json --reference ${reference} ${asm_files}
    DEPENDS ${asm_files} ${WAVEKIT_CODEGEN_TOOL} ${reference}
    COMMENT "Codegen report (${ARG_ARCH}): ${ARG_OUTPUT_DIR}/report.md"
    VERBATIM)
  if(ARG_ALL)
    set(all ALL)
  endif()
  add_custom_target(${target} ${all} DEPENDS ${ARG_OUTPUT_DIR}/report.md)
endfunction()

# wavekit_add_hip_compile_check(<name> <source>): an isa test that compiles a HIP program for
# gfx942 (host and device passes, to an object file) with Debian's clang and HIP headers, so
# GPU-only code keeps building on machines without a GPU.
function(wavekit_add_hip_compile_check name source)
  cmake_parse_arguments(ARG "" "" "INCLUDES" ${ARGN})
  set(test_name "isa.gfx942: ${name} compiles as HIP")
  list(TRANSFORM ARG_INCLUDES PREPEND "-I")
  add_test(NAME "${test_name}"
    COMMAND ${WAVEKIT_DEVICE_CLANG} -x hip -std=c++20 -O1 --offload-arch=gfx942 ${WAVEKIT_DEVICE_CONTRACTION}
            --hip-path=${WAVEKIT_HIP_PATH} --rocm-device-lib-path=${WAVEKIT_DEVICE_LIBS}
            -I${PROJECT_SOURCE_DIR}/include ${ARG_INCLUDES} -Werror=return-type -c ${source}
            -o ${CMAKE_CURRENT_BINARY_DIR}/${name}.hip.o)
  set_tests_properties("${test_name}" PROPERTIES LABELS isa)
endfunction()
