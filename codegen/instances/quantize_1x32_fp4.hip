// Codegen instance: the MXFP4 activation quantizer (block/quantize_1x32_fp4.hpp), bf16 to fp4 e2m1
// with e8m0 scales per 32 columns, on gfx950's scaled fp4 conversion.
// wavekit-codegen-archs: gfx950
#include "wavekit/block/quantize_1x32_fp4.hpp"

template __global__ void wavekit::block::quantize_1x32_fp4_kernel<wavekit::bf16>(
    wavekit::block::quantize_1x32_fp4_args<wavekit::bf16>);
