// The contraction rule of wavekit's device code, which the emulated builds share
// (cmake/WavekitDeviceToolchain.cmake, cmake/wavekitEmulator.cmake): -ffp-contract=on, so a * b + c
// written as one expression (a compound `acc += w * o` too) is one fused multiply-add, v_fma_f32 or
// v_fmac_f32 (never v_mad_f32 / v_mac_f32, which round the product), and a product and a sum in
// separate statements stay two roundings. check_contraction.py reads the assembly.
// emu/test/test_arithmetic.cpp runs the same three forms on the emulator.
#include <hip/hip_runtime.h>

extern "C" {

__device__ __attribute__((noinline)) float contraction_one_expression(float a, float b, float c) { return a * b + c; }

__device__ __attribute__((noinline)) float contraction_compound(float acc, float w, float o) {
  acc += w * o;
  return acc;
}

__device__ __attribute__((noinline)) float contraction_two_statements(float a, float b, float c) {
  const float product = a * b;
  return product + c;
}

__global__ void contraction_kernel(float* x) {
  const int i = static_cast<int>(threadIdx.x) * 4;
  x[i] = contraction_one_expression(x[i + 1], x[i + 2], x[i + 3]);
  x[i + 1] = contraction_compound(x[i], x[i + 2], x[i + 3]);
  x[i + 2] = contraction_two_statements(x[i + 1], x[i], x[i + 3]);
}

}  // extern "C"
