// The one fp8-format decision (arch/matrix_formats.hpp) and its run-time side
// (arch::with_device_fp8): on each emulated target and on a GPU, the format handed to kernels is
// the one the device's matrix cores read, asked of the device, not of the compile pass.
#include <hip/hip_runtime.h>
#include <catch2/catch.hpp>

#include <thread>
#include <type_traits>

#include "wavekit/arch/device.hpp"
#include "wavekit/arch/gfx942.hpp"
#include "wavekit/arch/gfx950.hpp"
#include "wavekit/arch/matrix_formats.hpp"

using namespace wavekit;

static_assert(std::is_same_v<arch::fp8_of<arch::target::gfx942>, fp8_e4m3fnuz>);
static_assert(std::is_same_v<arch::bf8_of<arch::target::gfx942>, bf8_e5m2fnuz>);
static_assert(std::is_same_v<arch::fp8_of<arch::target::gfx950>, fp8_e4m3fn>);
static_assert(std::is_same_v<arch::bf8_of<arch::target::gfx950>, bf8_e5m2>);
static_assert(std::is_same_v<arch::gfx942::fp8, arch::fp8_of<arch::target::gfx942>>);
static_assert(std::is_same_v<arch::gfx950::fp8, arch::fp8_of<arch::target::gfx950>>);
static_assert(arch::reads_fp8<fp8_e4m3fnuz>(arch::target::gfx942) &&
              !arch::reads_fp8<fp8_e4m3fn>(arch::target::gfx942));
static_assert(arch::reads_fp8<fp8_e4m3fn>(arch::target::gfx950) &&
              !arch::reads_fp8<fp8_e4m3fnuz>(arch::target::gfx950));
static_assert(!arch::reads_fp8<fp8_e4m3fnuz>(arch::target::host) && !arch::reads_fp8<fp8_e4m3fn>(arch::target::host));

TEST_CASE("with_device_fp8 hands over the format the device reads", "[arch]") {
  const arch::device_arch device = arch::current_device_arch();
  INFO("device " << device.name);
  REQUIRE(device.kind != arch::target::host);
  const bool reads =
      arch::with_device_fp8([&](auto fp8_format) { return arch::reads_fp8<decltype(fp8_format)>(device.kind); });
  CHECK(reads);
  // The two targets get different formats: fnuz on gfx942, OCP on gfx950.
  const bool ocp =
      arch::with_device_fp8([](auto fp8_format) { return std::is_same_v<decltype(fp8_format), fp8_e4m3fn>; });
  CHECK(ocp == (device.kind == arch::target::gfx950));
}

TEST_CASE("current_device_arch asks the runtime once per device and keeps the answer", "[arch]") {
  const arch::device_arch& first = arch::current_device_arch();
  REQUIRE(first.kind != arch::target::host);
  // Every later call returns the kept answer itself, from any thread: no query per launch.
  for (int i = 0; i < 100; ++i) CHECK(&arch::current_device_arch() == &first);
  const arch::device_arch* from_thread = nullptr;
  std::thread([&] { from_thread = &arch::current_device_arch(); }).join();
  CHECK(from_thread == &first);
  hipDeviceProp_t prop;
  REQUIRE(hipGetDeviceProperties(&prop, 0) == hipSuccess);
  CHECK(first.name == prop.gcnArchName);
}
