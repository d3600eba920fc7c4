// The data-race check (ThreadSanitizer with the emulator's fiber annotations; built with
// -fsanitize=thread). "race": threads read a neighbour's LDS slot without a barrier in between,
// which TSan must report. "global_race": the same through global memory with buffer stores and
// loads (the emulator's bookkeeping around them is not checked, the kernel's accesses are).
// "clean": both with the barrier, plus wave operations, a matrix-core instruction and global-memory
// traffic, on which TSan must stay quiet.
#include <hip/hip_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstring>

#include "wavekit/arch/buffer.hpp"
#include "wavekit/arch/lds.hpp"

__global__ void neighbours(float* out, int with_barrier) {
  __shared__ float tile[256];
  tile[threadIdx.x] = static_cast<float>(threadIdx.x);
  if (with_barrier) __syncthreads();
  out[blockIdx.x * 256 + threadIdx.x] = tile[(threadIdx.x + 1) % 256];
}

// Each thread stores its slot of the block's row of `scratch` and reads its neighbour's, all
// through buffers.
__global__ void global_neighbours(std::uint32_t* scratch, std::uint32_t* out, int with_barrier) {
  const auto s = wavekit::arch::buffer::over(scratch, 8 * 256 * 4), o = wavekit::arch::buffer::over(out, 8 * 256 * 4);
  const std::uint32_t row = blockIdx.x * 256;
  s.store4(threadIdx.x * 3u, 4 * (row + threadIdx.x));
  if (with_barrier) __syncthreads();
  o.store4(s.load4(4 * (row + (threadIdx.x + 1) % 256)), 4 * (row + threadIdx.x));
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
  const char* mode = argc > 1 ? argv[1] : "clean";
  const bool clean = std::strcmp(mode, "clean") == 0;
  float* out;
  std::uint32_t *scratch, *words;
  hipMalloc(&out, 8 * 256 * sizeof(float));
  hipMalloc(&scratch, 8 * 256 * 4), hipMalloc(&words, 8 * 256 * 4);
  if (std::strcmp(mode, "race") == 0 || clean)
    hipLaunchKernelGGL(neighbours, dim3(8), dim3(256), 0, nullptr, out, clean ? 1 : 0);
  if (std::strcmp(mode, "global_race") == 0 || clean)
    hipLaunchKernelGGL(global_neighbours, dim3(8), dim3(256), 0, nullptr, scratch, words, clean ? 1 : 0);
  if (clean) hipLaunchKernelGGL(checked_lds_neighbours, dim3(8), dim3(256), 0, nullptr, out);
  std::printf("%s: done\n", mode);
  return hipGetLastError() == hipSuccess ? 0 : 1;
}
