// The seams of block/: the concepts a GEMM's parts are checked against where they plug in accept
// wavekit's parts and reject incomplete ones, so a wrong part fails at the seam with a sentence.
#include <hip/hip_runtime.h>
#include <catch2/catch.hpp>

#include "wavekit/arch/mfma_atoms.hpp"
#include "wavekit/block/epilogue_fused.hpp"
#include "wavekit/block/gemm_epilogue.hpp"
#include "wavekit/block/gemm_mainloop.hpp"
#include "wavekit/block/gemm_tile_shape.hpp"
#include "wavekit/block/scale_epilogue.hpp"
#include "wavekit/block/scale_group_promotion.hpp"
#include "wavekit/block/scale_in_instruction.hpp"
#include "wavekit/block/scale_none.hpp"
#include "wavekit/block/tile_scheduler.hpp"
#include "wavekit/tile/lds_swizzled_rows.hpp"
#include "wavekit/warp/warp_mma.hpp"

using namespace wavekit;

namespace {

using layout64 = tile::lds_swizzled_rows<64>;
using mma = warp::warp_mma<arch::mfma_atom<bf16, bf16, 16, 16, 16>, 2, 2, 64, warp::from_lds<layout64>,
                           warp::from_lds<layout64>>;

using layout128 = tile::lds_swizzled_rows<128>;
using mx_mma = warp::warp_mma<arch::mfma_scaled_atom<fp8_e4m3fn, fp8_e4m3fn, 16, 16>, 1, 2, 128,
                              warp::from_lds<layout128>, warp::from_lds<layout128>, warp::k_order::atom>;

struct mma_without_clear {  // a warp MMA missing clear()
  static constexpr int tiles_m = 1, tiles_n = 1, m = 16;
  [[maybe_unused]] static constexpr int regs = 4;
  floatx4 acc[1][1];
  static int acc_row(int, int) { return 0; }
  static int acc_col(int) { return 0; }
};
struct policy_without_hooks {  // a scale policy with only its constants
  static constexpr int group_k = 64, steps_per_group = 1, lds_bytes = 0;
  static constexpr bool restarts = false;
};
struct scheduler_without_at {};
struct epilogue_without_args {};

}  // namespace

// At namespace scope: in a HIP build's host pass a host function may not name the device-only
// hooks, while a namespace-scope (or class-scope, as in the mainloop) check sees them.
static_assert(warp::warp_accumulators<mma>);
static_assert(!warp::warp_accumulators<mma_without_clear>);
static_assert(block::scale_policy<block::scale_none<mma, 32>, mma>);
static_assert(
    block::scale_policy<block::scale_epilogue<mma, 32, scale_granularity::row, scale_granularity::tensor>, mma>);
using shape = block::gemm_tile_shape<64, 64, 64, 1, 1, 16, 2>;
static_assert(block::scale_policy<block::scale_group_promotion<shape, mma, layout::k_contiguous>, mma>);
static_assert(block::scale_policy<block::scale_in_instruction<mx_mma, 128>, mx_mma>);
static_assert(!block::scale_policy<policy_without_hooks, mma>);
static_assert(block::tile_scheduler<block::tile_scheduler_2d<128, 128>>);
static_assert(!block::tile_scheduler<scheduler_without_at>);
static_assert(block::gemm_epilogue<block::epilogue_store<bf16>>);
static_assert(!block::gemm_epilogue<epilogue_without_args>);

TEST_CASE("block seams accept wavekit's parts and reject incomplete ones", "[block]") {
  SUCCEED("the checks are the static_asserts above: this file compiles");
}
