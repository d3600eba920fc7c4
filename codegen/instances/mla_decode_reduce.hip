// Codegen instance: MLA decode's reduce (ops/mla_decode/reduce_kernel.hpp: split partials merged by
// their LSE, block/lse_merge.hpp), bf16 out.
// wavekit-codegen-archs: gfx942 gfx950
#include "wavekit/ops/mla_decode/reduce_kernel.hpp"

namespace mla = wavekit::ops::mla_decode;
template __global__ void mla::mla_reduce_kernel<wavekit::bf16>(mla::reduce_params<wavekit::bf16>);
