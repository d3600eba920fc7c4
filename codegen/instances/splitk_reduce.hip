// Codegen instance: the split-K reduction of the block-scaled GEMM.
// wavekit-codegen-archs: gfx942 gfx950
#include "wavekit/block/splitk_reduce.hpp"

template __global__ void wavekit::block::splitk_reduce_bf16<256>(const float*, wavekit::bf16*, long, int);
