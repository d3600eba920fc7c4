// A warp MMA: one wave's tiles_m x tiles_n MFMA tiles of C in one accumulator set, advanced one K
// step at a time with the MFMAs of an atom (arch/mfma_atoms.hpp). Each operand's fragments come
// from an LDS tile, or from registers the caller filled (MLA decode keeps its queries there, and
// multiplies V by a softmax result still in registers).
//
// Operands, in one of two K orders (k_order):
//   step_slices  In a K step of KBytes bytes, lane l reads KBytes * m / 64 contiguous bytes of its
//                row (row l % m of the tile; slice l / m of the step) with 16-byte LDS reads, and
//                feeds Atom::operand_bytes of them to each MFMA of the step in turn. For every MFMA
//                the lanes of one group then hold K values that A and B agree on, which is all a
//                dot product needs: over the step each K of the tile is multiplied exactly once.
//                It relabels K inside a step, which only scales that vary inside a step could tell.
//   atom         MFMA s of the step multiplies K [s * Atom::k, (s + 1) * Atom::k) of the step, each
//                lane holding exactly the K the atom's layout names (operand_k): what scales per
//                32 K inside the instruction need (gfx950's MX formats), since the atom applies
//                block b's scale to the K it calls block b. Same reads, other addresses.
// A's rows are C's rows; B's rows (as read: B^T) are C's columns. A fragment in registers holds
// what the LDS reads would (fragment_of).
//
// Row-pair atoms (arch/mfma_row_pairs.hpp: the sparse MFMA as a dense 8-row one) have fewer rows
// of A and C per tile than the instruction's edge (tile_m = Atom::a_rows), choose the A row a lane
// reads themselves (Atom::a_row), take the lane (to pick their half of it), and fold their
// accumulators once the K loop ends (finish()), after which `regs` registers per lane hold C.
//
// Scaled atoms run with neutral e8m0 scales unless a step is given instruction_scales: one scale
// register per lane per A row tile (B column tile) per MFMA of the step, its low byte the e8m0
// scale of the lane's row (column) for the 32-K block the atom takes from that lane
// (Atom::scale_block).
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <concepts>
#include <cstdint>
#include <type_traits>

#include "wavekit/arch/buffer.hpp"  // u32x4
#include "wavekit/arch/lds.hpp"
#include "wavekit/arch/mfma_atoms.hpp"
#include "wavekit/core/math.hpp"
#include "wavekit/core/platform.hpp"
#include "wavekit/core/vector.hpp"
#include "wavekit/tile/tile_concepts.hpp"

namespace wavekit::warp {

// What the mainloop, the scale policies and the epilogues need of a warp MMA: the accumulator set
// (acc[tiles_m][tiles_n], `regs` registers each), its MFMA tile edge m (C's columns per tile),
// C's rows per tile (tile_m: m, or a row-pair atom's 8), clear(), and where each register lands in
// C (acc_row, acc_col).
template <class W>
concept warp_accumulators = requires(W w, int lane) {
  { W::tiles_m } -> std::convertible_to<int>;
  { W::tiles_n } -> std::convertible_to<int>;
  { W::m } -> std::convertible_to<int>;
  { W::tile_m } -> std::convertible_to<int>;
  { W::regs } -> std::convertible_to<int>;
  w.clear();
  w.acc[0][0];
  { W::acc_row(lane, lane) } -> std::convertible_to<int>;
  { W::acc_col(lane) } -> std::convertible_to<int>;
};

// The order in which the lanes' K bytes are read (header comment).
enum class k_order { step_slices, atom };

// The scales of a step without instruction scales: a scaled atom runs at 1.0.
struct neutral_scales {};

// Where an operand's fragments come from.
template <tile::lds_layout Layout>
struct from_lds {
  using layout = Layout;
};
struct from_registers {};

template <class S>
inline constexpr bool is_operand_source = false;
template <tile::lds_layout Layout>
inline constexpr bool is_operand_source<from_lds<Layout>> = true;
template <>
inline constexpr bool is_operand_source<from_registers> = true;

template <class Atom, int TilesM, int TilesN, int KBytes, class ASource, class BSource,
          k_order KOrder = k_order::step_slices>
struct warp_mma {
  static_assert(dependent_false<ASource>,
                "warp_mma: each operand comes from LDS (warp::from_lds<Layout>) or warp::from_registers");
};

template <class Atom, int TilesM, int TilesN, int KBytes, class ASource, class BSource, k_order KOrder>
  requires(is_operand_source<ASource> && is_operand_source<BSource>)
struct warp_mma<Atom, TilesM, TilesN, KBytes, ASource, BSource, KOrder> {
  using atom = Atom;
  using accumulator = typename Atom::accumulator;
  using operand = typename Atom::operand;
  static constexpr bool a_in_lds = !std::is_same_v<ASource, from_registers>;
  static constexpr bool b_in_lds = !std::is_same_v<BSource, from_registers>;
  static constexpr bool row_pairs = requires { Atom::a_rows; };
  static constexpr int m = Atom::m, tiles_m = TilesM, tiles_n = TilesN;
  static constexpr int tile_m = [] {  // rows of A and C per MFMA tile
    if constexpr (row_pairs)
      return Atom::a_rows;
    else
      return Atom::m;
  }();
  static constexpr int slice = KBytes * m / 64;  // bytes of a row each lane reads per K step
  // 16-byte LDS reads per row fragment (a step of one 8-byte operand, both operands in registers:
  // one, as a fragment's unit)
  static constexpr int reads = slice >= 16 ? slice / 16 : 1;
  static constexpr int operand_bytes = Atom::operand_bytes;
  static constexpr int mfmas = slice / operand_bytes;  // MFMAs per tile pair per K step
  static constexpr int regs = [] {                     // accumulator registers per lane that hold C (after finish())
    if constexpr (row_pairs)
      return Atom::folded_regs;
    else
      return Atom::acc_regs;
  }();
  static constexpr k_order order = KOrder;
  static constexpr bool scaled = requires { Atom::scale_k; };
  static_assert(Atom::m == Atom::n, "warp_mma: square MFMA tiles");
  static_assert((slice % 16 == 0 || (slice == operand_bytes && !a_in_lds && !b_in_lds)) &&
                    (operand_bytes == 8 || operand_bytes == 16 || operand_bytes == 32),
                "warp_mma: a K step must give each lane whole 16-byte reads and whole operands (or, with both "
                "operands in registers, one operand); KBytes * m / 64 is too small for this atom");
  static_assert(KOrder == k_order::step_slices || operand_bytes % 16 == 0,
                "warp_mma: the atom's own K order needs operands of whole 16-byte reads");

  // Per-lane e8m0 scales of one step (header comment): a[i][s] for row tile i in MFMA s, b[j][s]
  // for column tile j; the low byte of each is the scale.
  struct instruction_scales {
    int a[TilesM][mfmas];
    int b[TilesN][mfmas];
  };

  // An operand in registers: v[t][s] is the operand of MFMA s of the step for tile t (row tile of
  // A, column tile of B), holding what the LDS reads would: row t * m + l % m, K bytes
  // read_k(l, r) of the reads r that MFMA s takes (operand_bytes / 16 of them, in order).
  // Held as the operands' raw bits: the emulated build's x86 backend widens every element of a
  // bf16 vector it moves through memory (and calls a runtime helper to narrow it back), which a
  // fragment kept for many steps would do; integers move as they are.
  using operand_bits = std::uint32_t __attribute__((ext_vector_type(sizeof(operand) / 4)));
  template <int Tiles>
  struct fragment {
    operand_bits v[Tiles][mfmas];
  };
  using a_fragment = fragment<TilesM>;
  using b_fragment = fragment<TilesN>;

  // The fragment of the 16-byte reads a lane makes of its rows (v[r][t]: read r of tile t, at K
  // byte read_k(lane, r) of the step), as step() would feed them to the MFMAs: for an operand
  // computed or loaded into registers by its user.
  template <int Tiles>
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE static fragment<Tiles> fragment_of(const arch::u32x4 (&v)[reads][Tiles]) {
    fragment<Tiles> f;
    static_for<mfmas>([&](auto s_constant) {
      constexpr int s = decltype(s_constant)::value;
#pragma unroll
      for (int t = 0; t < Tiles; ++t) f.v[t][s] = __builtin_bit_cast(operand_bits, operand_of<s>(v, t));
    });
    return f;
  }
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE static a_fragment a_fragment_of(const arch::u32x4 (&v)[reads][TilesM]) {
    return fragment_of<TilesM>(v);
  }
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE static b_fragment b_fragment_of(const arch::u32x4 (&v)[reads][TilesN]) {
    return fragment_of<TilesN>(v);
  }

  accumulator acc[TilesM][TilesN];

  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void clear() {
#pragma unroll
    for (int i = 0; i < TilesM; ++i)
#pragma unroll
      for (int j = 0; j < TilesN; ++j) acc[i][j] = accumulator{};
  }

  // One K step with A and B from LDS: A rows from a_lds at row0, B rows (= C columns) from b_lds
  // at col0. Restart: the accumulators restart at 0 (as the C operand of the first MFMAs, at no
  // cost) instead of adding to what they hold.
  // Scales: neutral_scales, or instruction_scales (scaled atoms only).
  template <bool Restart, class Scales = neutral_scales>
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void step(const unsigned char* a_lds, const unsigned char* b_lds, int row0,
                                               int col0, int lane, const Scales& scales = {}) {
    static_assert(a_in_lds && b_in_lds, "warp_mma: this warp MMA takes an operand from registers (a fragment)");
    run<Restart>(nullptr, a_lds, nullptr, b_lds, row0, col0, lane, scales);
  }
  // One K step with A from registers.
  template <bool Restart, class Scales = neutral_scales>
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void step(const a_fragment& a, const unsigned char* b_lds, int col0, int lane,
                                               const Scales& scales = {}) {
    static_assert(!a_in_lds && b_in_lds, "warp_mma: this warp MMA does not take A, and only A, from registers");
    run<Restart>(&a, nullptr, nullptr, b_lds, 0, col0, lane, scales);
  }
  // One K step with B from registers.
  template <bool Restart, class Scales = neutral_scales>
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void step(const unsigned char* a_lds, const b_fragment& b, int row0, int lane,
                                               const Scales& scales = {}) {
    static_assert(a_in_lds && !b_in_lds, "warp_mma: this warp MMA does not take B, and only B, from registers");
    run<Restart>(nullptr, a_lds, &b, nullptr, row0, 0, lane, scales);
  }

  // One K step with both operands from registers.
  template <bool Restart, class Scales = neutral_scales>
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void step(const a_fragment& a, const b_fragment& b, int lane,
                                               const Scales& scales = {}) {
    static_assert(!a_in_lds && !b_in_lds, "warp_mma: this warp MMA takes an operand from LDS");
    run<Restart>(&a, nullptr, &b, nullptr, 0, 0, lane, scales);
  }

  // After the last K step: a row-pair atom adds each real row's two sparse rows (a no-op for the
  // others).
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void finish() {
    if constexpr (row_pairs) {
#pragma unroll
      for (int i = 0; i < TilesM; ++i)
#pragma unroll
        for (int j = 0; j < TilesN; ++j) acc[i][j] = Atom::fold(acc[i][j]);
    }
  }

  // Row and column (within the MFMA tile) of accumulator register r of this lane.
  WAVEKIT_HOST_DEVICE static constexpr int acc_row(int lane, int r) { return Atom::acc_row(lane, r); }
  WAVEKIT_HOST_DEVICE static constexpr int acc_col(int lane) { return Atom::acc_col(lane); }

  // Byte offset along K, within the step, of this lane's 16-byte read r (header comment).
  WAVEKIT_HOST_DEVICE static constexpr int read_k(int lane, int r) {
    if constexpr (KOrder == k_order::step_slices) {
      return (lane / m) * slice + 16 * r;
    } else {
      constexpr int per_mfma = operand_bytes / 16, atom_bytes = Atom::k * Atom::element_bits / 8;
      // The atom's layout: element e of a lane at K operand_k(lane, e); a 16-byte chunk c starts
      // at element c * 128 / element_bits.
      const int s = r / per_mfma, c = r % per_mfma;
      return s * atom_bytes + Atom::operand_k(lane, c * 128 / Atom::element_bits) * Atom::element_bits / 8;
    }
  }

 private:
  // The atom's MFMA s of the step for tiles (i, j); a scaled atom (gfx950's f8f6f4) runs with the
  // step's instruction scales, or neutral ones.
  template <int S, class Scales>
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE static accumulator mfma(operand a, operand b, accumulator c, const Scales& scales,
                                                             int i, int j, int lane) {
    static_assert(std::is_same_v<Scales, neutral_scales> || (scaled && std::is_same_v<Scales, instruction_scales>),
                  "warp_mma: a step takes neutral_scales, or this warp MMA's instruction_scales with a scaled atom");
    if constexpr (!std::is_same_v<Scales, neutral_scales>)
      return Atom::run(a, b, c, scales.a[i][S], scales.b[j][S]);
    else if constexpr (scaled)
      return Atom::run(a, b, c, Atom::neutral_scale, Atom::neutral_scale);
    else if constexpr (row_pairs)
      return Atom::run(a, b, c, lane);
    else
      return Atom::run(a, b, c);
  }

  // Bytes [8 half, 8 half + 8) of a 16-byte read.
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE static long eight_bytes(const arch::u32x4& q, int half) {
    const std::uint32_t lo = half ? q[2] : q[0], hi = half ? q[3] : q[1];
    return static_cast<long>((static_cast<std::uint64_t>(hi) << 32) | lo);
  }
  // Operand s of the step from the lane's reads (v[r][t], t the tile).
  template <int S, int Tiles>
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE static operand operand_of(const arch::u32x4 (&v)[reads][Tiles], int t) {
    if constexpr (operand_bytes == 8)
      return __builtin_bit_cast(operand, eight_bytes(v[S / 2][t], S % 2));
    else if constexpr (operand_bytes == 16 && sizeof(operand) == 16)
      return __builtin_bit_cast(operand, v[S][t]);
    else if constexpr (operand_bytes == 16)  // fp4 in the f8f6f4 forms: 4 of the 8 registers, the rest unread
      return __builtin_bit_cast(operand, __builtin_shufflevector(v[S][t], arch::u32x4{}, 0, 1, 2, 3, 4, 5, 6, 7));
    else
      return __builtin_bit_cast(operand, __builtin_shufflevector(v[2 * S][t], v[2 * S + 1][t], 0, 1, 2, 3, 4, 5, 6, 7));
  }

  template <bool Restart, class Scales>
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void run(const a_fragment* a_regs, const unsigned char* a_lds,
                                              const b_fragment* b_regs, const unsigned char* b_lds, int row0, int col0,
                                              int lane, const Scales& scales) {
    constexpr int a_tiles = a_in_lds ? TilesM : 0, b_tiles = b_in_lds ? TilesN : 0;
    constexpr int tiles = a_tiles + b_tiles > 0 ? a_tiles + b_tiles : 1;
    // v[r][t]: 16-byte read r of LDS tile t's fragment (A tiles first, then B). All first reads
    // are issued before the second ones, and each read index is pinned (waited for) only before
    // the MFMAs that use it, so the MFMAs of read 0 overlap the arrival of read 1.
    arch::u32x4 v[reads][tiles];
    const int row = lane % m, a_row = [&] {
      if constexpr (row_pairs)
        return Atom::a_row(lane);
      else
        return row;
    }();
#pragma unroll
    for (int r = 0; r < reads; ++r) {
      const int k = read_k(lane, r);
      if constexpr (a_in_lds) {
#pragma unroll
        for (int i = 0; i < TilesM; ++i)
          v[r][i] = arch::lds_load<16>(a_lds + ASource::layout::offset(row0 + i * tile_m + a_row, k));
      }
      if constexpr (b_in_lds) {
#pragma unroll
        for (int j = 0; j < TilesN; ++j)
          v[r][a_tiles + j] = arch::lds_load<16>(b_lds + BSource::layout::offset(col0 + j * m + row, k));
      }
    }
    // MFMA s of the step needs reads [s * operand_bytes / 16, (s + 1) * operand_bytes / 16).
    static_for<reads>([&](auto r_constant) {
      constexpr int r = decltype(r_constant)::value;
      if constexpr (a_tiles + b_tiles > 0) arch::keep_whole(v[r]);
      constexpr int first = r * 16 / operand_bytes,
                    last = ((r + 1) * 16 - 1) / operand_bytes < mfmas ? ((r + 1) * 16 - 1) / operand_bytes : mfmas - 1;
      // 32-byte operands: the MFMA waits for its second read.
      if constexpr ((r + 1) * 16 % operand_bytes == 0 || operand_bytes < 16) {
        static_for<last - first + 1>([&](auto p_constant) {
          constexpr int s = first + decltype(p_constant)::value;
#pragma unroll
          for (int i = 0; i < TilesM; ++i)
#pragma unroll
            for (int j = 0; j < TilesN; ++j) {
              const operand a = [&] {
                if constexpr (a_in_lds)
                  return operand_of<s>(v, i);
                else
                  return __builtin_bit_cast(operand, a_regs->v[i][s]);
              }();
              const operand b = [&] {
                if constexpr (b_in_lds)
                  return operand_of<s>(v, a_tiles + j);
                else
                  return __builtin_bit_cast(operand, b_regs->v[j][s]);
              }();
              acc[i][j] = mfma<s>(a, b, (Restart && s == 0) ? accumulator{} : acc[i][j], scales, i, j, lane);
            }
        });
      }
    });
  }
};

}  // namespace wavekit::warp
