// Codegen instances: GEMM + bias + activation (ops/gemm_bias_act/kernel.hpp), gemm_half's K loop
// with the fused epilogue: the decode tile with GELU (tanh) and an fp8 C of the format the target
// reads, the large tile with GELU (erf) and a bf16 C, and the fused split-K reduction of the first.
// wavekit-codegen-archs: gfx942 gfx950
#include "wavekit/arch/matrix_formats.hpp"
#include "wavekit/ops/gemm_bias_act/kernel.hpp"

namespace gba = wavekit::ops::gemm_bias_act;
namespace gh = wavekit::ops::gemm_half;
using fp8 = wavekit::arch::fp8_of<wavekit::arch::kernel_view_target>;
using wavekit::activation;
template __global__ void gba::gemm_bias_act_kernel<gh::config_decode, wavekit::bf16, fp8, activation::gelu_tanh,
                                                   wavekit::layout::k_contiguous>(
    gba::params<wavekit::bf16, fp8, activation::gelu_tanh>);
template __global__ void gba::gemm_bias_act_kernel<gh::config_large, wavekit::bf16, wavekit::bf16, activation::gelu_erf,
                                                   wavekit::layout::k_contiguous>(
    gba::params<wavekit::bf16, wavekit::bf16, activation::gelu_erf>);
template __global__ void
wavekit::block::splitk_reduce_fused<gba::epilogue<wavekit::bf16, fp8, activation::gelu_tanh>, 256>(
    const float*, typename gba::epilogue<wavekit::bf16, fp8, activation::gelu_tanh>::args, wavekit::block::reduce_view,
    int);
