// Codegen instances: residual + RMSNorm + fp8 (ops/rmsnorm_quant/kernel.hpp) with the fp8 format
// the target reads: the seed's form (fp16, per-tensor scale, k_contiguous, residual added) and
// bf16 with 1x128 scales in both storage orders (the block-scaled GEMM's A).
// wavekit-codegen-archs: gfx942 gfx950
#include "wavekit/arch/matrix_formats.hpp"
#include "wavekit/ops/rmsnorm_quant/kernel.hpp"

namespace rq = wavekit::ops::rmsnorm_quant;
using fp8 = wavekit::arch::fp8_of<wavekit::arch::kernel_view_target>;
template __global__ void rq::rmsnorm_quant_kernel<wavekit::fp16, fp8, wavekit::scale_granularity::tensor,
                                                  wavekit::layout::k_contiguous, rq::residual_mode::add>(
    rq::params<wavekit::fp16, fp8>);
template __global__ void rq::rmsnorm_quant_kernel<wavekit::bf16, fp8, wavekit::scale_granularity::group_1x128,
                                                  wavekit::layout::k_contiguous, rq::residual_mode::add>(
    rq::params<wavekit::bf16, fp8>);
template __global__ void rq::rmsnorm_quant_kernel<wavekit::bf16, fp8, wavekit::scale_granularity::group_1x128,
                                                  wavekit::layout::mn_contiguous, rq::residual_mode::add>(
    rq::params<wavekit::bf16, fp8>);
