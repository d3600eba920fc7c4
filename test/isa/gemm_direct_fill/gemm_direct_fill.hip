// The mainloop's fill schedules in device code (block/gemm_mainloop.hpp): gemm_half's and
// gemm_fp8_blockscale's K-contiguous kernels of a few shipped tiles, each staged through registers
// one step ahead, with block::direct_fill_config (the tiles loaded straight into LDS) and with
// block::register_prefetch_config (staged two steps ahead), on both targets (the shipped views
// fill directly on gfx950 and two steps ahead on gfx942: block::fill_view).
// check_gemm_direct_fill.py reads their hot loops.
#include "../../support/fill_views.hpp"  // the fills side by side, shared with the emulated test
#include "wavekit/ops/gemm_fp8_blockscale.hpp"
#include "wavekit/ops/gemm_half/kernel.hpp"

namespace gh = wavekit::ops::gemm_half;
namespace gb = wavekit::ops::gemm_fp8_blockscale;
using wavekit::bf16, wavekit::layout, wavekit::fill_views::direct_fill, wavekit::fill_views::direct_fill_blockscale,
    wavekit::fill_views::staged, wavekit::fill_views::staged_blockscale, wavekit::fill_views::two_ahead,
    wavekit::fill_views::two_ahead_blockscale;
using F = wavekit::arch::fp8_of<wavekit::arch::current_target>;

#define WAVEKIT_ISA_HALF(C)                                                                                           \
  template __global__ void gh::gemm_half_kernel<staged<C>, bf16, bf16, layout::k_contiguous>(gh::params<bf16, bf16>); \
  template __global__ void gh::gemm_half_kernel<direct_fill<C, wavekit::arch::current_target>, bf16, bf16,            \
                                                layout::k_contiguous>(gh::params<bf16, bf16>);                        \
  template __global__ void gh::gemm_half_kernel<two_ahead<C>, bf16, bf16, layout::k_contiguous>(gh::params<bf16, bf16>);
// Two steps ahead under the group-promotion policy where a scale group is two K steps or more: on
// gfx950 a 16-wide tile's group is one step (128 K), and the policy's scale loads, issued and waited
// for within each group, set the loop's round trips whatever the tiles do.
#define WAVEKIT_ISA_BLOCKSCALE_TWO_AHEAD(C)                                                                  \
  template __global__ void gb::gemm_fp8_blockscale_kernel<two_ahead_blockscale<C>, F, layout::k_contiguous>( \
      gb::params<F>);
#define WAVEKIT_ISA_BLOCKSCALE(C)                                                                              \
  template __global__ void gb::gemm_fp8_blockscale_kernel<staged_blockscale<C>, F, layout::k_contiguous>(      \
      gb::params<F>);                                                                                          \
  template __global__ void gb::gemm_fp8_blockscale_kernel<direct_fill_blockscale<C>, F, layout::k_contiguous>( \
      gb::params<F>);

WAVEKIT_ISA_HALF(gh::config_large)
WAVEKIT_ISA_HALF(gh::config_small)
WAVEKIT_ISA_HALF(gh::config_decode)
WAVEKIT_ISA_BLOCKSCALE(gb::config_large)
WAVEKIT_ISA_BLOCKSCALE(gb::config_decode)
WAVEKIT_ISA_BLOCKSCALE_TWO_AHEAD(gb::config_large)
#if !defined(__gfx950__)
WAVEKIT_ISA_BLOCKSCALE_TWO_AHEAD(gb::config_decode)
#endif
