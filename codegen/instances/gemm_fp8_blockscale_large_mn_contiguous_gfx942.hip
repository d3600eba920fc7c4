// Codegen instance: gemm_fp8_blockscale, config::blockscale_large, mn_contiguous, fp8_e4m3fnuz.
// wavekit-codegen-archs: gfx942
#include "wavekit/config/gemm_fp8_blockscale_configs.hpp"
#include "wavekit/ops/gemm/gemm_fp8_blockscale_kernel.hpp"

template __global__ void wavekit::ops::gemm_fp8_blockscale_kernel<
    wavekit::config::blockscale_large, wavekit::fp8_e4m3fnuz, wavekit::layout::mn_contiguous>(
    wavekit::block::blockscale_params<wavekit::fp8_e4m3fnuz>);
