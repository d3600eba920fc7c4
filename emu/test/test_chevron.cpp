// HIP's triple-chevron launch syntax builds and runs on the emulator (rewritten by the build's
// compiler launcher), with template kernels, dynamic shared memory and a stream.
#include <hip/hip_runtime.h>
#include <catch2/catch.hpp>

#include <vector>

namespace {

template <int Scale>
__global__ void scale_copy(const int* in, int* out) {
  HIP_DYNAMIC_SHARED(int, staging);
  staging[threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x] * Scale;
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = staging[blockDim.x - 1 - threadIdx.x];
}

__global__ void fill(int* out, int value) { out[threadIdx.x] = value; }

}  // namespace

TEST_CASE("kernel<<<grid, block, shared, stream>>>(args) launches on the emulator", "[emu][launch]") {
  int *in, *out;
  REQUIRE(hipMalloc(&in, 256 * sizeof(int)) == hipSuccess);
  REQUIRE(hipMalloc(&out, 256 * sizeof(int)) == hipSuccess);
  for (int i = 0; i < 256; ++i) in[i] = i;
  hipStream_t stream;
  REQUIRE(hipStreamCreate(&stream) == hipSuccess);
  scale_copy<3><<<dim3(2), dim3(128), 128 * sizeof(int), stream>>>(in, out);
  REQUIRE(hipStreamSynchronize(stream) == hipSuccess);
  REQUIRE(hipGetLastError() == hipSuccess);
  for (int i = 0; i < 256; ++i) CHECK(out[i] == 3 * ((i / 128) * 128 + 127 - i % 128));
  fill<<<1, 64>>>(out, 9);
  CHECK(out[63] == 9);
  hipStreamDestroy(stream);
  hipFree(in);
  hipFree(out);
}
