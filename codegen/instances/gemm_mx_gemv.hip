// Codegen instance: the GEMV path of MXFP8 decode (ops/gemm_mx/kernel.hpp, block/gemv_mx_block.hpp)
// for each row count the plan takes, bf16 out.
// wavekit-codegen-archs: gfx950
#include "wavekit/ops/gemm_mx/kernel.hpp"

namespace gx = wavekit::ops::gemm_mx;
template __global__ void gx::gemm_mx_gemv_kernel<1, wavekit::bf16>(gx::params<wavekit::fp8_e4m3fn, wavekit::bf16>);
template __global__ void gx::gemm_mx_gemv_kernel<2, wavekit::bf16>(gx::params<wavekit::fp8_e4m3fn, wavekit::bf16>);
template __global__ void gx::gemm_mx_gemv_kernel<4, wavekit::bf16>(gx::params<wavekit::fp8_e4m3fn, wavekit::bf16>);
template __global__ void gx::gemm_mx_gemv_kernel<8, wavekit::bf16>(gx::params<wavekit::fp8_e4m3fn, wavekit::bf16>);
template __global__ void gx::gemm_mx_gemv_kernel<16, wavekit::bf16>(gx::params<wavekit::fp8_e4m3fn, wavekit::bf16>);
