// Planted out-of-bounds accesses, one per mode (argv[1]); the emulator must end the process with
// a report naming the allocation. "clean" runs the same kernels in bounds and must exit 0.
// "smfmac": a sparse MFMA whose index names positions 1 and 1 for a group (undefined by the ISA).
#include <hip/hip_runtime.h>

#include <cstdio>
#include <cstring>

#include "wavekit/arch/lds.hpp"
#include "wavekit/core/vector.hpp"

// Lane 63 writes `overrun` elements past its own slot: with overrun = 1, one past the end.
__global__ void write_global(float* p, int overrun) { p[threadIdx.x + (threadIdx.x == 63 ? overrun : 0)] = 1.0f; }

__global__ void write_lds(float* out, int overrun) {
  WAVEKIT_LDS_ARRAY(float, tile, 64);
  tile[threadIdx.x + (threadIdx.x == 63 ? overrun : 0)] = 1.0f;
  __syncthreads();
  out[threadIdx.x] = tile[63 - threadIdx.x];
}

// Every lane's index: groups of positions (0, 1), except lane 5's group 2 with (1, 1) when bad.
__global__ void sparse_index(float* out, int bad) {
  const int lane = static_cast<int>(threadIdx.x);
  const int index = 0x4444 ^ (bad && lane == 5 ? 0x100 : 0);
  const wavekit::floatx4 d = __builtin_amdgcn_smfmac_f32_16x16x64_fp8_fp8(wavekit::int32x2{}, wavekit::int32x4{},
                                                                          wavekit::floatx4{}, index, 0, 0);
  out[lane] = d[0];
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "clean";
  float* p;
  hipMalloc(&p, 64 * sizeof(float));  // 256 bytes
  const int overrun = std::strcmp(mode, "clean") == 0 ? 0 : 1;
  // Buffered (stdout is a pipe under ctest): the emulator must flush it before it ends the process.
  std::printf("%s: printed before the fault\n", mode);
  if (std::strcmp(mode, "global") == 0 || overrun == 0)
    hipLaunchKernelGGL(write_global, dim3(1), dim3(64), 0, nullptr, p, overrun);
  if (std::strcmp(mode, "lds") == 0 || overrun == 0)
    hipLaunchKernelGGL(write_lds, dim3(1), dim3(64), 0, nullptr, p, overrun);
  if (std::strcmp(mode, "smfmac") == 0 || overrun == 0)
    hipLaunchKernelGGL(sparse_index, dim3(1), dim3(64), 0, nullptr, p, overrun);
  std::printf("%s: finished without a fault\n", mode);
  return hipGetLastError() == hipSuccess ? 0 : 1;
}
