// The mainloop's fill schedules in device code (block/gemm_mainloop.hpp): gemm_half's and
// gemm_fp8_blockscale's K-contiguous kernels of a few shipped tiles, each staged through registers
// one step ahead, with block::direct_fill_config (the tiles loaded straight into LDS) and with
// block::register_prefetch_config (staged two steps ahead), on both targets (the shipped views
// fill directly on gfx950 only). check_gemm_direct_fill.py reads their hot loops.
#include "wavekit/ops/gemm_fp8_blockscale.hpp"
#include "wavekit/ops/gemm_half/kernel.hpp"

namespace wavekit::isa {

// The markers check_gemm_direct_fill.py pairs kernels by: direct_fill<Base> and two_ahead<Base>
// against staged<Base> (and the blockscale twins).
template <class Base>
struct staged : Base {
  template <arch::target>
  using on = Base;
};
template <class Base>
struct direct_fill : block::direct_fill_config<Base, arch::current_target> {
  template <arch::target>
  using on = direct_fill;
};
template <class Base>
struct two_ahead : block::register_prefetch_config<Base> {
  template <arch::target>
  using on = two_ahead;
};
template <class Base>
struct staged_blockscale : Base {
  template <arch::target T>
  using on = block::fp8_tile_config<T, typename Base::template tile_shape_on<T>,
                                    block::row_scale_lds<typename Base::template tile_shape_on<T>, 128>::bytes,
                                    /*DirectFill=*/false>;
};
template <class Base>
struct direct_fill_blockscale : Base {
  template <arch::target T>
  using on = block::direct_fill_config<typename staged_blockscale<Base>::template on<T>, T>;
};

template <class Base>
struct two_ahead_blockscale : Base {
  template <arch::target T>
  using on = block::register_prefetch_config<typename staged_blockscale<Base>::template on<T>>;
};

}  // namespace wavekit::isa

namespace gh = wavekit::ops::gemm_half;
namespace gb = wavekit::ops::gemm_fp8_blockscale;
using wavekit::bf16, wavekit::layout, wavekit::isa::direct_fill, wavekit::isa::direct_fill_blockscale,
    wavekit::isa::staged, wavekit::isa::staged_blockscale, wavekit::isa::two_ahead, wavekit::isa::two_ahead_blockscale;
using F = wavekit::arch::fp8_of<wavekit::arch::current_target>;

#define WAVEKIT_ISA_HALF(C)                                                                                           \
  template __global__ void gh::gemm_half_kernel<staged<C>, bf16, bf16, layout::k_contiguous>(gh::params<bf16, bf16>); \
  template __global__ void gh::gemm_half_kernel<direct_fill<C>, bf16, bf16, layout::k_contiguous>(                    \
      gh::params<bf16, bf16>);                                                                                        \
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
