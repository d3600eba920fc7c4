// Codegen instance: the MoE grouped GEMMs over MX weights (ops/moe/kernel_mx.hpp), both stages of
// each MX config the plan uses with pre-shuffled MXFP4 weights (amd-moe-mxfp4's form), and the
// decode config with plain MXFP4 and MXFP8 weights; bf16 activations.
// wavekit-codegen-archs: gfx950
#include "wavekit/ops/moe/kernel_mx.hpp"

namespace moe = wavekit::ops::moe;
namespace gx = wavekit::ops::gemm_mx;
using bf16 = wavekit::bf16;
using fp4 = wavekit::fp4_e2m1;
using fp8 = wavekit::fp8_e4m3fn;
template __global__ void moe::moe_mx_gemm_kernel<gx::config_decode, bf16, fp4, true, moe::stage::gate_up>(
    moe::mx_grouped_parts<gx::config_decode, bf16, fp4, true, moe::stage::gate_up>::params);
template __global__ void moe::moe_mx_gemm_kernel<gx::config_decode, bf16, fp4, true, moe::stage::down_weighted>(
    moe::mx_grouped_parts<gx::config_decode, bf16, fp4, true, moe::stage::down_weighted>::params);
template __global__ void moe::moe_mx_gemm_kernel<gx::config_narrow, bf16, fp4, true, moe::stage::gate_up>(
    moe::mx_grouped_parts<gx::config_narrow, bf16, fp4, true, moe::stage::gate_up>::params);
template __global__ void moe::moe_mx_gemm_kernel<gx::config_narrow, bf16, fp4, true, moe::stage::down_weighted>(
    moe::mx_grouped_parts<gx::config_narrow, bf16, fp4, true, moe::stage::down_weighted>::params);
template __global__ void moe::moe_mx_gemm_kernel<gx::config_medium, bf16, fp4, true, moe::stage::gate_up>(
    moe::mx_grouped_parts<gx::config_medium, bf16, fp4, true, moe::stage::gate_up>::params);
template __global__ void moe::moe_mx_gemm_kernel<gx::config_medium, bf16, fp4, true, moe::stage::down_weighted>(
    moe::mx_grouped_parts<gx::config_medium, bf16, fp4, true, moe::stage::down_weighted>::params);
template __global__ void moe::moe_mx_gemm_kernel<gx::config_decode, bf16, fp4, false, moe::stage::gate_up>(
    moe::mx_grouped_parts<gx::config_decode, bf16, fp4, false, moe::stage::gate_up>::params);
template __global__ void moe::moe_mx_gemm_kernel<gx::config_decode, bf16, fp4, false, moe::stage::down_weighted>(
    moe::mx_grouped_parts<gx::config_decode, bf16, fp4, false, moe::stage::down_weighted>::params);
template __global__ void moe::moe_mx_gemm_kernel<gx::config_decode, bf16, fp8, false, moe::stage::gate_up>(
    moe::mx_grouped_parts<gx::config_decode, bf16, fp8, false, moe::stage::gate_up>::params);
template __global__ void moe::moe_mx_gemm_kernel<gx::config_decode, bf16, fp8, false, moe::stage::down_weighted>(
    moe::mx_grouped_parts<gx::config_decode, bf16, fp8, false, moe::stage::down_weighted>::params);
