// The run-time side of arch/target.hpp: which wavekit target the current HIP device is (host code
// only). Launchers use it to refuse a format the device does not read; tests and examples to
// pick the fp8 format or to skip on another device.
#pragma once

#include <hip/hip_runtime.h>  // the platform: HIP on the device, the emulator's shim on the CPU

#include <cstring>
#include <string>

#include "wavekit/arch/target.hpp"

namespace wavekit::arch {

struct device_arch {
  target kind = target::host;  // gfx942 or gfx950; host when the device is neither or absent
  std::string name;            // the device's architecture string; empty when it cannot be queried
};

inline device_arch current_device_arch() {
  int device = 0;
  hipDeviceProp_t prop;
  if (hipGetDevice(&device) != hipSuccess || hipGetDeviceProperties(&prop, device) != hipSuccess) return {};
  const char* name = prop.gcnArchName;
  const target kind = std::strncmp(name, "gfx942", 6) == 0   ? target::gfx942
                      : std::strncmp(name, "gfx950", 6) == 0 ? target::gfx950
                                                             : target::host;
  return {kind, name};
}

}  // namespace wavekit::arch
