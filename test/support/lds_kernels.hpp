// A kernel that declares Floats floats of checked LDS (WAVEKIT_LDS_ARRAY) and uses them, for the
// tests of the emulator's LDS limits.
#pragma once

#include <hip/hip_runtime.h>

#include "wavekit/arch/lds.hpp"

namespace wavekit::test {

template <int Floats>
__global__ void lds_user(int* out) {
  WAVEKIT_LDS_ARRAY(float, tile, Floats);
  tile[threadIdx.x] = 1.0f;
  __syncthreads();
  out[threadIdx.x] = static_cast<int>(tile[(threadIdx.x + 1) % blockDim.x]);
}

}  // namespace wavekit::test
