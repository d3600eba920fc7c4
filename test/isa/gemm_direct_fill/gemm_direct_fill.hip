// The mainloop's direct fill in device code (block/gemm_mainloop.hpp): gemm_half's and
// gemm_fp8_blockscale's K-contiguous kernels of a few shipped tiles, each staged through registers
// and with block::direct_fill_config (the tiles loaded straight into LDS), on both targets (the
// shipped views fill directly on gfx950 only). check_gemm_direct_fill.py reads their hot loops.
#include "wavekit/ops/gemm_fp8_blockscale.hpp"
#include "wavekit/ops/gemm_half/kernel.hpp"

namespace wavekit::isa {

// The markers check_gemm_direct_fill.py pairs kernels by: direct_fill<Base> against staged<Base>
// (and the blockscale twins).
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

}  // namespace wavekit::isa

namespace gh = wavekit::ops::gemm_half;
namespace gb = wavekit::ops::gemm_fp8_blockscale;
using wavekit::bf16, wavekit::layout, wavekit::isa::direct_fill, wavekit::isa::direct_fill_blockscale,
    wavekit::isa::staged, wavekit::isa::staged_blockscale;
using F = wavekit::arch::fp8_of<wavekit::arch::current_target>;

#define WAVEKIT_ISA_HALF(C)                                                                                           \
  template __global__ void gh::gemm_half_kernel<staged<C>, bf16, bf16, layout::k_contiguous>(gh::params<bf16, bf16>); \
  template __global__ void gh::gemm_half_kernel<direct_fill<C>, bf16, bf16, layout::k_contiguous>(                    \
      gh::params<bf16, bf16>);
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
