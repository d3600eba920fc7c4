// Codegen instance: the MXFP4 GEMM with a bf16 A quantized as each tile loads (ops/gemm_mx/kernel.hpp),
// for each config that can quantize its A tile, with B in aiter's pre-shuffled layouts (amd-mxfp4-mm's
// form), and the decode config with a plain B.
// wavekit-codegen-archs: gfx950
#include "wavekit/ops/gemm_mx/kernel.hpp"

namespace gx = wavekit::ops::gemm_mx;
using bf16 = wavekit::bf16;
template __global__ void gx::gemm_mx_quantizing_a_kernel<gx::config_narrow, bf16, bf16, true>(
    gx::params_quantizing_a<bf16, bf16>);
template __global__ void gx::gemm_mx_quantizing_a_kernel<gx::config_small, bf16, bf16, true>(
    gx::params_quantizing_a<bf16, bf16>);
template __global__ void gx::gemm_mx_quantizing_a_kernel<gx::config_decode64, bf16, bf16, true>(
    gx::params_quantizing_a<bf16, bf16>);
template __global__ void gx::gemm_mx_quantizing_a_kernel<gx::config_decode, bf16, bf16, true>(
    gx::params_quantizing_a<bf16, bf16>);
template __global__ void gx::gemm_mx_quantizing_a_kernel<gx::config_decode, bf16, bf16>(
    gx::params_quantizing_a<bf16, bf16>);
