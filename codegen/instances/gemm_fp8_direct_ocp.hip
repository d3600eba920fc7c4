// Codegen instance: gemm_fp8_direct on gfx950 OCP fp8.
// wavekit-codegen-archs: gfx950
#include "wavekit/ops/gemm_fp8_direct/kernel.hpp"

template __global__ void wavekit::ops::gemm_fp8_direct::gemm_fp8_direct_kernel<wavekit::fp8_e4m3fn>(
    wavekit::ops::gemm_fp8_direct::kernel_args<wavekit::fp8_e4m3fn>);
