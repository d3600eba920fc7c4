// The data-race check (ThreadSanitizer with the emulator's fiber annotations; built with
// -fsanitize=thread). "race": threads read a neighbour's LDS slot without a barrier in between,
// which TSan must report. "clean": the same with the barrier, plus wave operations, a matrix-core
// instruction and global-memory traffic, on which TSan must stay quiet.
#include <hip/hip_runtime.h>

#include <cstdio>
#include <cstring>

#include "wavekit/arch/lds.hpp"

__global__ void neighbours(float* out, int with_barrier) {
  __shared__ float tile[256];
  tile[threadIdx.x] = static_cast<float>(threadIdx.x);
  if (with_barrier) __syncthreads();
  out[blockIdx.x * 256 + threadIdx.x] = tile[(threadIdx.x + 1) % 256];
}

__global__ void checked_lds_neighbours(float* out) {
  WAVEKIT_LDS_ARRAY(float, tile, 256);
  tile[threadIdx.x] = 1.0f;
  __syncthreads();
  float v = tile[255 - threadIdx.x];
  v += __shfl_xor(v, 3);
  const long a = 0x3838383838383838L;
  wavekit::floatx16 acc = {};
  acc = __builtin_amdgcn_mfma_f32_32x32x16_fp8_fp8(a, a, acc, 0, 0, 0);
  __syncthreads();
  tile[threadIdx.x] = v + acc[0];
  __syncthreads();
  out[blockIdx.x * 256 + threadIdx.x] = tile[(threadIdx.x + 7) % 256];
}

int main(int argc, char** argv) {
  const bool race = argc > 1 && std::strcmp(argv[1], "race") == 0;
  float* out;
  hipMalloc(&out, 8 * 256 * sizeof(float));
  hipLaunchKernelGGL(neighbours, dim3(8), dim3(256), 0, nullptr, out, race ? 0 : 1);
  if (!race) hipLaunchKernelGGL(checked_lds_neighbours, dim3(8), dim3(256), 0, nullptr, out);
  std::printf("%s: done\n", race ? "race" : "clean");
  return hipGetLastError() == hipSuccess ? 0 : 1;
}
