// Codegen instance: the split-K reduction of every GEMM, per output type.
// wavekit-codegen-archs: gfx942 gfx950
#include "wavekit/block/splitk_reduce.hpp"

template __global__ void wavekit::block::splitk_reduce<wavekit::bf16, 256>(const float*, wavekit::bf16*,
                                                                           wavekit::block::reduce_view, int);
template __global__ void wavekit::block::splitk_reduce<wavekit::fp16, 256>(const float*, wavekit::fp16*,
                                                                           wavekit::block::reduce_view, int);
template __global__ void wavekit::block::splitk_reduce<float, 256>(const float*, float*, wavekit::block::reduce_view,
                                                                   int);
