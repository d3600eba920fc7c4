// Codegen instance: gemm_fp8_blockscale with a custom configuration the tests use (not shipped,
// not dispatched): both orders, fp8_e4m3fnuz. It keeps the paths no shipped configuration takes
// (128-K steps, one LDS stage, blocks wider than B's scale blocks) spill-free in the report.
// wavekit-codegen-archs: gfx942
#include "wavekit/ops/gemm_fp8_blockscale/config.hpp"
#include "wavekit/ops/gemm_fp8_blockscale/kernel.hpp"

namespace gb = wavekit::ops::gemm_fp8_blockscale;

using custom_config = gb::config<64, 128, 64, 2, 2, gb::mfma_shape::m16n16k32, 1>;
template __global__ void gb::gemm_fp8_blockscale_kernel<
    custom_config, wavekit::fp8_e4m3fnuz, wavekit::layout::k_contiguous>(gb::params<wavekit::fp8_e4m3fnuz>);
template __global__ void gb::gemm_fp8_blockscale_kernel<
    custom_config, wavekit::fp8_e4m3fnuz, wavekit::layout::mn_contiguous>(gb::params<wavekit::fp8_e4m3fnuz>);
