# Every external program and library wavekit's own build, tests, examples and benchmarks use is
# looked up here, at configure time, with the Debian package that provides it: a missing one is a
# configure error naming that package, never a failing test. Each one found is recorded in
# <build>/wavekit-dependencies.tsv (package, path, use); the test "unit.setup: ..." checks that
# scripts/setup-debian.sh installs the package of every recorded file, so that a fresh machine gets
# all of them from that script alone.
#
# Included only when wavekit is the top-level project.

set(WAVEKIT_DEPENDENCY_MANIFEST ${PROJECT_BINARY_DIR}/wavekit-dependencies.tsv)
set_property(GLOBAL PROPERTY WAVEKIT_DEPENDENCIES "")

# wavekit_record_dependency(<path> <debian package> <use>)
function(wavekit_record_dependency path package use)
  set_property(GLOBAL APPEND PROPERTY WAVEKIT_DEPENDENCIES "${package}\t${path}\t${use}")
endfunction()

function(_wavekit_missing what package)
  message(FATAL_ERROR "wavekit: ${what} not found; it comes with the Debian package '${package}' "
                      "(scripts/setup-debian.sh installs it: apt-get install ${package})")
endfunction()

# wavekit_require_program(<var> NAMES <name>... PACKAGE <debian package> FOR <use> [HINTS <dir>...])
function(wavekit_require_program var)
  cmake_parse_arguments(ARG "" "PACKAGE;FOR" "NAMES;HINTS" ${ARGN})
  find_program(${var} NAMES ${ARG_NAMES} HINTS ${ARG_HINTS})
  if(NOT ${var})
    list(JOIN ARG_NAMES " or " names)
    _wavekit_missing("${names} (for ${ARG_FOR})" ${ARG_PACKAGE})
  endif()
  wavekit_record_dependency(${${var}} ${ARG_PACKAGE} "${ARG_FOR}")
endfunction()

# wavekit_require_file(<path or empty> PACKAGE <debian package> FOR <use> [WHAT <description>])
# A file found some other way (find_package, find_path): error if empty, record otherwise.
function(wavekit_require_file path)
  cmake_parse_arguments(ARG "" "PACKAGE;FOR;WHAT" "" ${ARGN})
  if(NOT path OR NOT EXISTS "${path}")
    _wavekit_missing("${ARG_WHAT} (for ${ARG_FOR})" ${ARG_PACKAGE})
  endif()
  wavekit_record_dependency(${path} ${ARG_PACKAGE} "${ARG_FOR}")
endfunction()

# The programs a clang driver runs for a compile (clang -###), found and recorded. The driver
# names a helper it cannot find by its bare name (e.g. "clang-offload-bundler" without
# clang-tools-19), so a missing helper is caught here instead of failing a test later.
# wavekit_require_driver_programs(<compiler> FOR <use> ARGS <driver arguments>...)
function(wavekit_require_driver_programs compiler)
  cmake_parse_arguments(ARG "" "FOR" "ARGS" ${ARGN})
  set(work ${PROJECT_BINARY_DIR}/CMakeFiles/wavekit-driver-probe)
  file(MAKE_DIRECTORY ${work})
  file(WRITE ${work}/probe.cpp "int main() { return 0; }\n")
  execute_process(COMMAND ${compiler} "-###" ${ARG_ARGS} ${work}/probe.cpp -o ${work}/probe
                  WORKING_DIRECTORY ${work} ERROR_VARIABLE out OUTPUT_VARIABLE out2 RESULT_VARIABLE rc)
  string(APPEND out "${out2}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "wavekit: '${compiler} -### ${ARG_ARGS} probe.cpp' (for ${ARG_FOR}) failed:\n${out}")
  endif()
  # Each command the driver would run is a line starting with its quoted program.
  string(REGEX MATCHALL "\n \"[^\"]+\"" commands "\n${out}")
  get_filename_component(compiler_dir ${compiler} REALPATH)
  get_filename_component(compiler_dir ${compiler_dir} DIRECTORY)
  # Debian packages of the helpers clang-19's driver runs.
  set(package_of_clang-offload-bundler clang-tools-19)
  set(package_of_lld lld-19)
  set(package_of_ld.lld lld-19)
  set(package_of_ld binutils)
  set(package_of_clang clang-19)
  set(package_of_clang-19 clang-19)
  set(seen)
  foreach(command IN LISTS commands)
    string(REGEX REPLACE "^\n \"([^\"]+)\"$" "\\1" program "${command}")
    if(program IN_LIST seen)
      continue()
    endif()
    list(APPEND seen ${program})
    get_filename_component(name ${program} NAME)
    set(package ${package_of_${name}})
    if(NOT package)
      message(FATAL_ERROR "wavekit: ${compiler} runs '${program}' (for ${ARG_FOR}), which wavekit does not know "
                          "the Debian package of; add it to cmake/WavekitDependencies.cmake and scripts/setup-debian.sh")
    endif()
    if(IS_ABSOLUTE ${program} AND EXISTS ${program})
      wavekit_record_dependency(${program} ${package} "${ARG_FOR} (run by ${name} of the compiler driver)")
    else()
      _wavekit_missing("${program}, which ${compiler} runs for ${ARG_FOR},"  ${package})
    endif()
  endforeach()
endfunction()

# Writes the manifest; called once at the end of the top-level CMakeLists.txt.
function(wavekit_write_dependency_manifest)
  get_property(entries GLOBAL PROPERTY WAVEKIT_DEPENDENCIES)
  list(REMOVE_DUPLICATES entries)
  list(JOIN entries "\n" text)
  file(WRITE ${WAVEKIT_DEPENDENCY_MANIFEST}.tmp "# package\tpath\tuse\n${text}\n")
  file(COPY_FILE ${WAVEKIT_DEPENDENCY_MANIFEST}.tmp ${WAVEKIT_DEPENDENCY_MANIFEST} ONLY_IF_DIFFERENT)
endfunction()
