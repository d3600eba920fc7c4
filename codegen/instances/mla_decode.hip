// Codegen instance: the MLA decode kernel (ops/mla_decode/kernel.hpp), bf16 queries and latent
// cache, each shipped config.
// wavekit-codegen-archs: gfx942 gfx950
#include "wavekit/ops/mla_decode/kernel.hpp"

namespace mla = wavekit::ops::mla_decode;
template __global__ void mla::mla_decode_kernel<mla::config_rows64>(mla::decode_params);
