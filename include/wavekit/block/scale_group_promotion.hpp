// The scale policy of block-scaled operands (DeepSeek-V3's recipe, group size a parameter): A has
// an fp32 scale per row per GroupK of K, B one per GroupK x GroupK block (GroupK columns by GroupK
// of K). The warp MMA accumulates a group unscaled (its accumulators restart at each group) and
// the policy promotes it into its own fp32 total with the group's scales when the group ends:
//   total(row, col) += a_scale(row, group) * b_scale(col / GroupK, group) * group's dot product.
//
// Scales ride along with the tiles: one thread per row of the block brings A's (0 past M: the
// row's offset is out of range; threads beyond the block's rows load nothing and store into slots
// nobody reads) and stores it to LDS; where the block's columns lie in one B group (BlockN <= GroupK) it
// stores the product with B's scale, so a wave's promotion is one FMA per accumulator ("row-scale
// folding"). With two or more K steps a group, the group's first step stores its own scales and
// its last reads them, so one LDS buffer serves; with one step a group, the next group's scales
// travel with the next tiles into the other of two buffers (the buffer's parity is the group's).
//
// Scale tensors in the two storage orders (A's and B's each in its operand's order): k_contiguous
// a_scale [M][K/G], b_scale [ceil(N/G)][K/G]; mn_contiguous a_scale [K/G][M], b_scale [K/G][ceil(N/G)].
//
// Grouped GEMMs (block/gemm_block.hpp's grouped_gemm_params; MoE's experts) take
// grouped_group_scale_args: A's rows are gathered through the same row table as A's tiles (a row
// of -1 has scale 0), B's scales come from a table indexed by the tile's group (its expert), and
// A may carry one scale per row for all of K instead (per-token quantized activations).
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <cstdint>
#include <type_traits>

#include "wavekit/arch/buffer.hpp"
#include "wavekit/arch/lds.hpp"
#include "wavekit/block/gemm_epilogue.hpp"
#include "wavekit/block/gemm_tile_shape.hpp"
#include "wavekit/block/tile_scheduler.hpp"
#include "wavekit/core/layout.hpp"
#include "wavekit/core/platform.hpp"
#include "wavekit/warp/warp_mma.hpp"

namespace wavekit::block {

struct group_scale_args {
  const float* a_scale;
  const float* b_scale;
};

struct grouped_group_scale_args {
  const float* a_scale;         // [a_rows_total][K/G], or [a_rows_total] with a_scale_per_row
  const float* const* b_scale;  // [groups]: each group's B scales ([ceil(N/G)][K/G] or [K/G][ceil(N/G)])
  const int* a_rows;            // [M]: the A row of each C row (-1: none), or null: the same row
  int a_rows_total;             // rows of A (and of a_scale)
  bool a_scale_per_row;         // one scale per A row for all of K
};

template <class Cfg, class Mma, layout Order, int GroupK = 128, layout BOrder = Order, class Args = group_scale_args>
struct scale_group_promotion {
  using args = Args;
  using mma_type = Mma;  // the warp MMA whose accumulators it scales
  static constexpr bool grouped = std::is_same_v<Args, grouped_group_scale_args>;
  static_assert(grouped || std::is_same_v<Args, group_scale_args>,
                "scale_group_promotion: its arguments are group_scale_args or grouped_group_scale_args");
  static_assert(Mma::tile_m == Mma::m, "scale_group_promotion: square MFMA tiles (not a row-pair atom's 8 x 16)");
  static_assert(!grouped || Order == layout::k_contiguous,
                "scale_group_promotion: gathered A rows (grouped GEMMs) are K-contiguous");
  static constexpr int group_k = GroupK;
  static constexpr int steps_per_group = GroupK / Cfg::block_k;
  static constexpr bool restarts = true;
  using lds_layout = row_scale_lds<Cfg, GroupK>;  // the configs size their LDS with it too
  static constexpr int buffers = lds_layout::buffers, slots = lds_layout::slots, lds_bytes = lds_layout::bytes;
  static constexpr bool folded = Cfg::block_n <= GroupK;  // B's scale folded into the row scales
  static constexpr bool a_kc = Order == layout::k_contiguous, b_kc = BOrder == layout::k_contiguous;
  static_assert(GroupK % Cfg::block_k == 0, "scale_group_promotion: a group is a whole number of K steps");
  static_assert(Cfg::threads >= Cfg::block_m,
                "scale_group_promotion: one thread per row of the block brings its scale");
  static_assert(Cfg::wave_n <= GroupK && GroupK % Cfg::wave_n == 0,
                "scale_group_promotion: a wave's columns must lie in one B scale group");
  using accumulator = typename Mma::accumulator;
  static constexpr int tiles_m = Mma::tiles_m, tiles_n = Mma::tiles_n, regs = Mma::regs;

  // GEMM `batch`'s scales (plain GEMMs): an operand's scales follow it (M x K/G and ceil(N/G) x K/G
  // values a GEMM, one GEMM's after another's), shared where the operand is (batch stride 0).
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE static args at_batch(args s, long batch, const batch_args& b, int m, int n, int k)
    requires(!grouped)
  {
    const long groups = k / GroupK, n_groups = (n + GroupK - 1) / GroupK;
    if (b.a) s.a_scale += batch * m * groups;
    if (b.b) s.b_scale += batch * n_groups * groups;
    return s;
  }

  // A row's scale: A's, and B's to fold in (1 when B's is applied by the waves). Loaded early,
  // multiplied where it is stored, after the wait for the step's loads.
  struct row_scale_parts {
    float a = 0.0f, b = 1.0f;
  };
  // This lane's row scales of a group: v[i][r] for accumulator register r of MFMA row tile i.
  struct row_scales {
    float v[tiles_m][regs];
  };

  accumulator total[tiles_m][tiles_n];  // the result: the scaled sum of finished groups

  arch::buffer a_scales, b_scales;
  std::uint32_t a_scale_at, b_scale_at;
  int a_group_stride, b_group_stride, first_group, tid, wave_row, lane;
  float* scale_lds;  // [buffers][slots]
  row_scale_parts row_scale;
  float b_scale;
  row_scales scales;

  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void begin(const args& p, int m, int n, int k, const gemm_tile& t, float* lds,
                                                int tid_, int wave_row_, int wave_col, int lane_) {
    const int groups = k / GroupK, n_groups = (n + GroupK - 1) / GroupK;
    tid = tid_, wave_row = wave_row_, lane = lane_, scale_lds = lds, first_group = t.group_begin;
    // Threads past the block's rows load nothing (an out-of-range offset reads 0 and moves no
    // bytes): they store into slots nobody reads.
    const bool brings_scales = Cfg::threads == Cfg::block_m || tid < Cfg::block_m;
    const int tile_row = t.m0 + tid % Cfg::block_m;
    const float* b_scale_base;
    int a_rows = m, scale_row = brings_scales && tile_row < m ? tile_row : -1;
    bool per_row = false;  // one A scale per row for all of K
    if constexpr (grouped) {
      if (p.a_rows && scale_row >= 0) scale_row = p.a_rows[scale_row];
      a_rows = p.a_rows_total, per_row = p.a_scale_per_row;
      b_scale_base = arch::uniform_pointer(p.b_scale[t.group]);  // the same in every lane
    } else {
      b_scale_base = p.b_scale;
    }
    const int a_row_groups = a_kc && !per_row ? groups : 1;  // a row's stride in A's scales
    a_scale_at = scale_row >= 0 ? static_cast<std::uint32_t>(scale_row * a_row_groups * 4) : arch::out_of_range;
    a_scales = arch::buffer::over(p.a_scale, static_cast<std::uint32_t>(a_rows * (per_row ? 1 : groups) * 4));
    b_scales = arch::buffer::over(b_scale_base, static_cast<std::uint32_t>(n_groups * groups * 4));
    const int b_scale_col = (t.n0 + wave_col) / GroupK;  // 0 for a wave whose columns all lie past N
    // Folded, B's scale is a row thread's to bring; otherwise every lane of the wave needs it.
    b_scale_at = b_scale_col < n_groups && (!folded || brings_scales)
                     ? static_cast<std::uint32_t>(b_scale_col * (b_kc ? groups : 1) * 4)
                     : arch::out_of_range;
    a_group_stride = per_row ? 0 : a_kc ? 1 : m;
    b_group_stride = b_kc ? 1 : n_groups;
#pragma unroll
    for (int i = 0; i < tiles_m; ++i)
#pragma unroll
      for (int j = 0; j < tiles_n; ++j) total[i][j] = accumulator{};
  }

  // The mainloop's hooks (block/gemm_mainloop.hpp), g the group's index in the whole K.
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void prologue(int g) {
    if constexpr (buffers == 2) store_row_scale(0, row_scale_of(g));
  }
  // row_scale restarts too: nothing of it lives from one group into the next (no loop-carried
  // registers).
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void group_begin(int g) {
    b_scale = folded ? 1.0f : b_scale_of(g);
    row_scale = {};
  }
  // Issued before the tile loads of the next step (global loads complete in order: waiting for the
  // tiles then covers the scales too).
  template <int S>
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void issue_loads(int g, bool more) {
    if (own_scales<S>) row_scale = row_scale_of(g);
    if (more && next_scales<S>) row_scale = row_scale_of(g + 1);
  }
  // Issued before the step's MFMAs, the last step's scale reads arrive while those run.
  template <int S>
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void before_mma(int g) {
    if (S == steps_per_group - 1)
      scales = read_scales(scale_lds + (buffers == 2 ? (static_cast<unsigned>(g - first_group) & 1u) * slots : 0));
  }
  // The group scales apply to the accumulators, not inside the MFMAs.
  template <int S>
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE static warp::neutral_scales mma_scales() {
    return {};
  }
  template <int S>
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void after_stores(int g) {
    if (own_scales<S>) store_row_scale(0, row_scale);
    if (next_scales<S>) store_row_scale(static_cast<int>(static_cast<unsigned>(g + 1 - first_group) & 1u), row_scale);
  }
  // The promotion reads the MFMAs' results: the mainloop calls it after the tile stores, which fill
  // the wait the hardware needs before a vector instruction may read an MFMA's result.
  template <int S>
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void after_mma(const Mma& w) {
    if (S == steps_per_group - 1) {
      if constexpr (folded)
        promote(w, [](float x) { return x; });
      else
        promote(w, [b = b_scale](float x) { return x * b; });
    }
  }
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE const auto& result(const Mma&) const { return total; }
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE static identity_transform epilogue_transform() { return {}; }

 private:
  template <int S>
  static constexpr bool own_scales = buffers == 1 && S == 0;
  template <int S>
  static constexpr bool next_scales = buffers == 2 && S == steps_per_group - 1;

  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE float a_scale_of(int g) const {
    return __builtin_bit_cast(float, a_scales.load4(a_scale_at, static_cast<std::uint32_t>(g * a_group_stride * 4)));
  }
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE float b_scale_of(int g) const {
    return __builtin_bit_cast(float, b_scales.load4(b_scale_at, static_cast<std::uint32_t>(g * b_group_stride * 4)));
  }
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE row_scale_parts row_scale_of(int g) const {
    return {a_scale_of(g), folded ? b_scale_of(g) : 1.0f};
  }
  // Threads past the block's rows store into slots of their own that nothing reads: cheaper than
  // masking the store off.
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void store_row_scale(int buffer, row_scale_parts parts) const {
    const float v = parts.a * parts.b;
    arch::lds_store<4>(scale_lds + buffer * slots + tid, __builtin_bit_cast(std::uint32_t, v));
  }
  // The lane's row scales from LDS (fp32, indexed by row within the block tile).
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE row_scales read_scales(const float* row_scale_lds) const {
    row_scales s;
#pragma unroll
    for (int i = 0; i < tiles_m; ++i)
#pragma unroll
      for (int q = 0; q < regs / 4; ++q) {  // 4 consecutive rows per 16-byte read
        const arch::u32x4 v = arch::lds_load<16>(row_scale_lds + wave_row + i * Mma::m + Mma::acc_row(lane, 4 * q));
#pragma unroll
        for (int t = 0; t < 4; ++t) s.v[i][4 * q + t] = __builtin_bit_cast(float, static_cast<std::uint32_t>(v[t]));
      }
    return s;
  }
  // total += scale(row) * group accumulator.
  template <class Scale>
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void promote(const Mma& w, Scale scale) {
#pragma unroll
    for (int i = 0; i < tiles_m; ++i)
#pragma unroll
      for (int j = 0; j < tiles_n; ++j)
#pragma unroll
        // In pairs, one v_pk_fma_f32 each: written per element, LLVM 22 (the gfx950 path) makes one
        // v_fmac_f32 per element.
        for (int r = 0; r < regs; r += 2) {
          using f32x2 = float __attribute__((ext_vector_type(2)));
          const f32x2 sv = {scale(scales.v[i][r]), scale(scales.v[i][r + 1])},
                      bv = {w.acc[i][j][r], w.acc[i][j][r + 1]};
          const f32x2 sum = __builtin_elementwise_fma(sv, bv, f32x2{total[i][j][r], total[i][j][r + 1]});
          total[i][j][r] = sum.x, total[i][j][r + 1] = sum.y;
        }
  }
};

}  // namespace wavekit::block
