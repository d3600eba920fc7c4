// Codegen instance: the MX activation quantizer (block/quantize_1x32_mx.hpp), bf16 to MXFP4 (fp4
// e2m1, gfx950's scaled fp4 conversion) and to MXFP8 (e4m3fn, the saturating fp8 conversion), with
// e8m0 scales per 32 columns; each under both element roundings (core/mx_rounding.hpp): nearest
// even (the default) and ties away from zero (aiter's fused MoE quantizer).
// wavekit-codegen-archs: gfx950
#include "wavekit/block/quantize_1x32_mx.hpp"

template __global__ void wavekit::block::quantize_1x32_mx_kernel<wavekit::bf16, wavekit::fp4_e2m1>(
    wavekit::block::quantize_1x32_mx_args<wavekit::bf16, wavekit::fp4_e2m1>);
template __global__ void wavekit::block::quantize_1x32_mx_kernel<wavekit::bf16, wavekit::fp8_e4m3fn>(
    wavekit::block::quantize_1x32_mx_args<wavekit::bf16, wavekit::fp8_e4m3fn>);
template __global__ void wavekit::block::quantize_1x32_mx_kernel<wavekit::bf16, wavekit::fp4_e2m1,
                                                                 wavekit::mx_rounding::ties_away_from_zero>(
    wavekit::block::quantize_1x32_mx_args<wavekit::bf16, wavekit::fp4_e2m1>);
template __global__ void wavekit::block::quantize_1x32_mx_kernel<wavekit::bf16, wavekit::fp8_e4m3fn,
                                                                 wavekit::mx_rounding::ties_away_from_zero>(
    wavekit::block::quantize_1x32_mx_args<wavekit::bf16, wavekit::fp8_e4m3fn>);
