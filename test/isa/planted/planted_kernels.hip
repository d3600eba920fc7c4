// Kernels that break the codegen report's rules on purpose, one rule each. test/isa checks that
// `codegen_report.py check` names every one of them; they are never shipped or launched.
#include <hip/hip_runtime.h>

#include "wavekit/arch/codegen_targets.hpp"

// More live values than the 32 VGPRs it is allowed: the register allocator must spill.
__global__ __attribute__((amdgpu_num_vgpr(32))) void planted_spill(const float4* in, float4* out) {
  wavekit::arch::declare_codegen_targets<0, 1>();
  float4 v[24];
#pragma unroll
  for (int i = 0; i < 24; ++i) v[i] = in[threadIdx.x + 64 * i];
  float4 acc = {0, 0, 0, 0};
#pragma unroll
  for (int i = 0; i < 24; ++i) acc = acc * v[(i * 5) % 24] + v[i];
#pragma unroll
  for (int i = 0; i < 24; ++i) out[threadIdx.x + 64 * i] = v[i] + acc;
}

// A private array indexed by a runtime value lives in scratch memory.
__global__ void planted_scratch(const float* in, float* out, int k) {
  wavekit::arch::declare_codegen_targets<0, 1>();
  float table[64];
  for (int i = 0; i < 64; ++i) table[i] = in[threadIdx.x * 64 + i];
  out[threadIdx.x] = table[(threadIdx.x * k) & 63];
}

// 32 KiB of LDS against a declared budget of 16 KiB.
__global__ void planted_lds(const float* in, float* out) {
  wavekit::arch::declare_codegen_targets<16384, 1>();
  __shared__ float tile[8192];
  for (int i = threadIdx.x; i < 8192; i += blockDim.x) tile[i] = in[i];
  __syncthreads();
  out[threadIdx.x] = tile[8191 - threadIdx.x];
}

// 48 KiB of LDS per 64-thread workgroup allows one workgroup per CU, one wave per SIMD at best,
// against a declared target of 4 waves per SIMD.
__global__ __launch_bounds__(64) void planted_occupancy(const float* in, float* out) {
  wavekit::arch::declare_codegen_targets<65536, 4>();
  __shared__ float tile[12288];
  for (int i = threadIdx.x; i < 12288; i += 64) tile[i] = in[i];
  __syncthreads();
  out[threadIdx.x] = tile[12287 - threadIdx.x];
}

// A loop of a dozen instructions around one 16x16x32 MFMA (over 700 per 64 of them) against a
// promise of 200.
using planted_f32x4 = float __attribute__((ext_vector_type(4)));
__global__ void planted_loop(const long* a, planted_f32x4* out, int n) {
  wavekit::arch::declare_codegen_targets<0, 1, 200>();
  planted_f32x4 acc = {0, 0, 0, 0};
  for (int i = 0; i < n; ++i) {
    const long x = a[threadIdx.x + 64 * i];
    acc = __builtin_amdgcn_mfma_f32_16x16x32_fp8_fp8(x, x ^ i, acc, 0, 0, 0);
    acc.x = acc.x * 1.5f + acc.y;
  }
  out[threadIdx.x] = acc;
}

// A loop without MFMAs (a GEMV's kind) of more than 4 instructions against a promise of 4 per
// iteration.
__global__ void planted_loop_length(const float* a, float* out, int n) {
  wavekit::arch::declare_codegen_targets<0, 1, 0, 4>();
  float acc = 0.0f;
  for (int i = 0; i < n; ++i) acc = acc * a[threadIdx.x + 64 * i] + 1.5f;
  out[threadIdx.x] = acc;
}

// Every shipped kernel must declare its targets.
__global__ void planted_undeclared(float* out) { out[threadIdx.x] = 1.0f; }
