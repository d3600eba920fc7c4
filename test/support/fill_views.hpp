// A GEMM config's fills pinned, on every target, for tests that run one config's fills side by side
// (block/gemm_mainloop.hpp): staged through registers one K step ahead, filled straight into LDS
// (sized for target T's loads; the emulator's kernels are one type in every compiler pass, so they
// take gfx950's, whose stages are the larger), or staged two steps ahead. The shipped views choose
// per target (block::fill_view). gemm_half's configs as they are; gemm_fp8_blockscale's (whose
// views differ per target) through their tile_shape_on, each its own kernel (kernel_config).
#pragma once

#include "wavekit/arch/target.hpp"
#include "wavekit/block/gemm_tile_shape.hpp"

namespace wavekit::fill_views {

template <class Base>
struct staged : Base {
  template <arch::target>
  using on = Base;
};
template <class Base, arch::target T = arch::target::gfx950>
struct direct_fill : block::direct_fill_config<Base, T> {
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
                                    /*DirectFill=*/false, /*TwoAhead=*/false>;
  using kernel_config = staged_blockscale<typename Base::kernel_config>;
};
template <class Base>
struct direct_fill_blockscale : Base {
  template <arch::target T>
  using on = block::direct_fill_config<typename staged_blockscale<Base>::template on<T>, T>;
  using kernel_config = direct_fill_blockscale<typename Base::kernel_config>;
};
template <class Base>
struct two_ahead_blockscale : Base {
  template <arch::target T>
  using on = block::register_prefetch_config<typename staged_blockscale<Base>::template on<T>>;
  using kernel_config = two_ahead_blockscale<typename Base::kernel_config>;
};

}  // namespace wavekit::fill_views
