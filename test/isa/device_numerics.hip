// The element types and both conversion flavours in device code: this file must compile for
// gfx942 (host and device passes). Running it is the emulator's and a GPU's job.
#include <hip/hip_runtime.h>

#include "wavekit/core/numeric_types.hpp"

template <class T>
__device__ float round_trip(float x) {
  return wavekit::to_float(wavekit::saturate_cast<T>(x)) + wavekit::to_float(wavekit::hardware_cast<T>(x));
}

__global__ void device_numerics(const float* in, float* out) {
  using namespace wavekit;
  const float x = in[threadIdx.x];
  out[threadIdx.x] = round_trip<fp8_e4m3fnuz>(x) + round_trip<bf8_e5m2fnuz>(x) + round_trip<fp8_e4m3fn>(x) +
                     round_trip<bf8_e5m2>(x) + round_trip<fp4_e2m1>(x) + round_trip<bf16>(x) + round_trip<fp16>(x) +
                     round_trip<e8m0>(x) + to_float(fp4x2_e2m1::pack(fp4_e2m1{1}, fp4_e2m1{2}).element(1));
}
