// Codegen instance: the MLA decode kernel (ops/mla_decode/kernel.hpp), bf16 queries, bf16 and
// fp8 (the target's format) latent cache, each shipped config.
// wavekit-codegen-archs: gfx942 gfx950
#include "wavekit/arch/matrix_formats.hpp"
#include "wavekit/ops/mla_decode/kernel.hpp"

namespace mla = wavekit::ops::mla_decode;
template __global__ void mla::mla_decode_kernel<mla::config_rows64, wavekit::bf16>(mla::decode_params);
template __global__ void mla::mla_decode_kernel<
    mla::config_rows64, wavekit::arch::fp8_of<wavekit::arch::kernel_view_target>>(mla::decode_params);
