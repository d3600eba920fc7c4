cmake_minimum_required(VERSION 3.25)
# Script mode: a helper the compiler driver would run but cannot find is a configure error that
# names its Debian package (cmake/WavekitDependencies.cmake), shown with a stand-in driver.
set(PROJECT_BINARY_DIR ${WORK_DIR})
include(${WAVEKIT_SOURCE_DIR}/cmake/WavekitDependencies.cmake)
wavekit_require_driver_programs(${CMAKE_CURRENT_LIST_DIR}/fake_clang_missing_bundler.sh FOR "HIP compile checks" ARGS -c)
