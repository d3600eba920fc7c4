// Codegen instance: the MoE pipeline's 1x128 activation quantizer (block/quantize_1x128.hpp), bf16
// to the fp8 format the target reads (fp8 block-scaled expert weights).
// wavekit-codegen-archs: gfx942 gfx950
#include "wavekit/arch/matrix_formats.hpp"
#include "wavekit/ops/moe/kernel.hpp"

namespace moe = wavekit::ops::moe;
using fp8 = wavekit::arch::fp8_of<wavekit::arch::kernel_view_target>;
template __global__ void moe::moe_quantize_kernel<wavekit::bf16, fp8>(
    wavekit::block::quantize_1x128_args<wavekit::bf16, fp8>);
