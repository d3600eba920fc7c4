// The run-time side of arch/target.hpp: which wavekit target the current HIP device is (host code
// only). Launchers use it to refuse a format the device does not read; tests, examples and
// benchmarks to pick the fp8 format (with_device_fp8) or to skip on another device.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <hip/hip_runtime.h>  // the platform: HIP on the device, the emulator's shim on the CPU

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

#include "wavekit/arch/matrix_formats.hpp"
#include "wavekit/arch/target.hpp"
#include "wavekit/arch/target_checks.hpp"
#include "wavekit/core/status.hpp"

namespace wavekit::arch {

struct device_arch {
  target kind = target::host;  // gfx942 or gfx950; host when the device is neither or absent
  std::string name;            // the device's architecture string; empty when it cannot be queried
};

namespace detail {
inline device_arch query_device_arch(int device) {
  hipDeviceProp_t prop;
  if (hipGetDeviceProperties(&prop, device) != hipSuccess) return {};
  const char* name = prop.gcnArchName;
  const target kind = std::strncmp(name, "gfx942", 6) == 0   ? target::gfx942
                      : std::strncmp(name, "gfx950", 6) == 0 ? target::gfx950
                                                             : target::host;
  return {kind, name};
}
// Devices whose answer is kept (a node has 8; ids past this are asked every time).
inline constexpr int cached_devices = 64;
}  // namespace detail

// The current device's target, asked of the runtime once per device and process: launches ask it
// (format and target rules), and hipGetDeviceProperties costs microseconds beside a decode
// kernel's few. A device that cannot be queried answers {} (kind host, empty name).
inline const device_arch& current_device_arch() {
  static const device_arch none{};
  int device = 0;
  if (hipGetDevice(&device) != hipSuccess) return none;
  if (device < 0 || device >= detail::cached_devices) {
    thread_local device_arch uncached;
    uncached = detail::query_device_arch(device);
    return uncached;
  }
  static std::once_flag once[detail::cached_devices];
  static device_arch known[detail::cached_devices];
  std::call_once(once[device], [device] { known[device] = detail::query_device_arch(device); });
  return known[device];
}

// Whether the current device answered its query (current_device_arch): success, or the status an
// op (named `op`) returns before launching.
inline status check_device_queried(const device_arch& device, const char* op) {
  if (device.name.empty()) return {status_code::launch_failed, std::string(op) + ": cannot query the device"};
  return status::success();
}

// Whether `device` reads Fp8 (arch/matrix_formats.hpp): success, or the status an fp8 op (named
// `op`) returns before launching.
template <class Fp8>
status check_device_fp8_format(const device_arch& device, const char* op) {
  if (status s = check_device_queried(device, op); !s.ok()) return s;
  if (device.kind == target::host)
    return {status_code::unsupported_target,
            std::string(op) + ": device " + device.name + " is neither gfx942 nor gfx950"};
  return check_fp8_format<Fp8>(device.kind, op);  // the rule ops' supports() ask too
}

// f(Fp8{}) with the fp8 format the current device's matrix cores read (arch/matrix_formats.hpp).
// Where host code is compiled for one known target (the CPU emulator, whose host and device code
// are one pass), that target is the device and only its format is instantiated. In a GPU build
// one binary serves both targets, so the device is asked at run time (never the compile pass's
// target: the host pass has none). A device that is neither gfx942 nor gfx950 has no such
// format: the program stops with a message, so callers that meet other devices check
// current_device_arch() first.
template <class F>
decltype(auto) with_device_fp8(F&& f) {
#if WAVEKIT_TARGET_DEVICE
  return f(fp8_of<current_target>{});
#else
  const device_arch& device = current_device_arch();
  if (device.kind == target::host) {
    std::fprintf(stderr, "wavekit: device '%s' is neither gfx942 nor gfx950: no fp8 format to use\n",
                 device.name.c_str());
    std::abort();
  }
  return device.kind == target::gfx950 ? f(fp8_of<target::gfx950>{}) : f(fp8_of<target::gfx942>{});
#endif
}

}  // namespace wavekit::arch
