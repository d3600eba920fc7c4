// The configurations of the block-scaled fp8 GEMM that wavekit ships (each is in the codegen
// report and the tests), and their identifiers for run-time dispatch.
#pragma once

#include "wavekit/config/gemm_fp8_blockscale_config.hpp"
#include "wavekit/core/layout.hpp"

namespace wavekit::config {

// All use 64-K steps: with 128-K steps the double-buffered tiles of the smaller tiles exceed what
// lets more than one wave per SIMD in on gfx942 (64 KiB of LDS per CU), and their loops were
// longer too (docs/codegen-report.md). 128-K steps stay supported (and tested) for custom configs.
// clang-format off
using blockscale_large   = gemm_fp8_blockscale_config<256, 128, 64, 4, 2, mfma_shape::m32n32k16>;  // M in the thousands
using blockscale_medium  = gemm_fp8_blockscale_config<128, 128, 64, 2, 2, mfma_shape::m16n16k32>;
using blockscale_mfma32  = gemm_fp8_blockscale_config<128, 128, 64, 2, 2, mfma_shape::m32n32k16>;  // same tile, 32x32 MFMA
using blockscale_narrow  = gemm_fp8_blockscale_config< 64, 128, 64, 2, 2, mfma_shape::m16n16k32>;
using blockscale_small   = gemm_fp8_blockscale_config< 32,  64, 64, 1, 2, mfma_shape::m16n16k32>;
using blockscale_decode  = gemm_fp8_blockscale_config< 16, 128, 64, 1, 4, mfma_shape::m16n16k32>;  // M <= 16
// clang-format on

enum class blockscale_config_id { large, medium, mfma32, narrow, small, decode };

inline constexpr blockscale_config_id all_blockscale_configs[] = {
    blockscale_config_id::large,  blockscale_config_id::medium, blockscale_config_id::mfma32,
    blockscale_config_id::narrow, blockscale_config_id::small,  blockscale_config_id::decode};

// f(config type) for a run-time identifier.
template <class F>
decltype(auto) with_blockscale_config(blockscale_config_id id, F&& f) {
  switch (id) {
    case blockscale_config_id::large: return f(blockscale_large{});
    case blockscale_config_id::medium: return f(blockscale_medium{});
    case blockscale_config_id::mfma32: return f(blockscale_mfma32{});
    case blockscale_config_id::narrow: return f(blockscale_narrow{});
    case blockscale_config_id::small: return f(blockscale_small{});
    case blockscale_config_id::decode: return f(blockscale_decode{});
  }
  return f(blockscale_large{});
}

}  // namespace wavekit::config
