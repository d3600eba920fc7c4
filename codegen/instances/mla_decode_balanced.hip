// Codegen instance: the MLA decode kernel of the balanced schedule (ops/mla_decode/kernel.hpp,
// mla_decode_balanced_kernel: resident workers, cut runs merged by their last worker) of the
// configs (every shipped one) in the forms of mla_decode.hip, and
// the schedule kernel (ops/mla_decode/schedule_kernel.hpp).
// wavekit-codegen-archs: gfx942 gfx950
#include "wavekit/arch/matrix_formats.hpp"
#include "wavekit/ops/mla_decode/kernel.hpp"
#include "wavekit/ops/mla_decode/schedule_kernel.hpp"

namespace mla = wavekit::ops::mla_decode;
using fp8 = wavekit::arch::fp8_of<wavekit::arch::kernel_view_target>;
template __global__ void mla::mla_schedule_kernel<64>(mla::schedule_params);
template __global__ void mla::mla_decode_balanced_kernel<mla::config_rows16, wavekit::bf16>(mla::decode_params);
template __global__ void mla::mla_decode_balanced_kernel<mla::config_rows16, fp8>(mla::decode_params);
template __global__ void mla::mla_decode_balanced_kernel<mla::config_rows16, fp8, fp8>(mla::decode_params);
template __global__ void mla::mla_decode_balanced_kernel<mla::config_rows32, wavekit::bf16>(mla::decode_params);
template __global__ void mla::mla_decode_balanced_kernel<mla::config_rows32, fp8>(mla::decode_params);
template __global__ void mla::mla_decode_balanced_kernel<mla::config_rows32, fp8, fp8>(mla::decode_params);
template __global__ void mla::mla_decode_balanced_kernel<mla::config_rows64, wavekit::bf16>(mla::decode_params);
template __global__ void mla::mla_decode_balanced_kernel<mla::config_rows64, fp8>(mla::decode_params);
template __global__ void mla::mla_decode_balanced_kernel<mla::config_rows64, fp8, fp8>(mla::decode_params);
template __global__ void mla::mla_decode_balanced_kernel<mla::config_rows128, wavekit::bf16>(mla::decode_params);
template __global__ void mla::mla_decode_balanced_kernel<mla::config_rows128, fp8>(mla::decode_params);
template __global__ void mla::mla_decode_balanced_kernel<mla::config_rows128, fp8, fp8>(mla::decode_params);
#if defined(__gfx950__)
template __global__ void mla::mla_decode_balanced_kernel<mla::config_rows16, wavekit::fp4x2_e2m1>(mla::decode_params);
template __global__ void mla::mla_decode_balanced_kernel<mla::config_rows32, wavekit::fp4x2_e2m1>(mla::decode_params);
template __global__ void mla::mla_decode_balanced_kernel<mla::config_rows64, wavekit::fp4x2_e2m1>(mla::decode_params);
template __global__ void mla::mla_decode_balanced_kernel<mla::config_rows128, wavekit::fp4x2_e2m1>(mla::decode_params);
#endif
