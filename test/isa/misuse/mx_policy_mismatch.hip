// Compiled by a negative test (test/isa/CMakeLists.txt): the MX scale policy over a warp MMA it
// cannot serve must be a compile error naming the rule. MISUSE selects the case.
#include <hip/hip_runtime.h>

#include "wavekit/arch/mfma_atoms.hpp"
#include "wavekit/block/scale_in_instruction.hpp"
#include "wavekit/tile/lds_swizzled_rows.hpp"
#include "wavekit/warp/warp_mma.hpp"

using namespace wavekit;
using rows = warp::from_lds<tile::lds_swizzled_rows<128>>;

#if MISUSE == 1  // K read in slices of the step: the atom's blocks would not be the tile's
using mma = warp::warp_mma<arch::mfma_scaled_atom<fp8_e4m3fn, fp8_e4m3fn, 16, 16>, 1, 1, 128, rows, rows>;
#elif MISUSE == 2  // an unscaled atom has no scale operands
using mma = warp::warp_mma<arch::mfma_atom<fp8_e4m3fnuz, fp8_e4m3fnuz, 16, 16, 32>, 1, 1, 128, rows, rows>;
#endif
template struct block::scale_in_instruction<mma, 128>;
