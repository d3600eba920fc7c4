// The sparse MFMA as a dense 8-row one: v_smfmac_f32_16x16x64_fp8_fp8 with every real row of A
// spread over a pair of the instruction's 16 sparse rows (docs/hardware.md 1.5).
//
// A 2:4-sparse A row holds two of every four K values. Real row r (dense, 64 K) becomes sparse
// rows 2r and 2r + 1: row 2r keeps positions 0-1 of each group of four, row 2r + 1 positions 2-3,
// with fixed indices. Their two results sum to row r's whole dot product. So one instruction
// multiplies 8 dense rows by 64 K in the cycles in which the dense 16x16x32 form multiplies 16 rows
// by 32 K: where only 8 rows are real (a GEMM with M <= 8), twice the useful K per instruction.
//
// What a warp MMA feeds it (warp/warp_mma.hpp, which reads a_rows and a_row):
//   A: lane l reads 16 bytes of real row a_row(l) = (l % 16) / 2, K [16 (l / 16), +16) of the
//      instruction's 64; run() keeps the half its sparse row carries (bytes 2h, 2h + 1 of each
//      dword, h = l % 2: two v_perm_b32, shared by all the B tiles it meets).
//   B: lane l: column l % 16, the same 16 K, as the dense layout's rule (operand_k).
//   C: the instruction's 16x16 accumulator; fold() adds the pair rows, after which register r
//      (r < 2) of lane l holds real row 2 (l / 16) + r (acc_row) of column l % 16.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <cstdint>
#include <type_traits>

#include "wavekit/arch/gfx942.hpp"
#include "wavekit/arch/mfma_atoms.hpp"
#include "wavekit/arch/target.hpp"
#include "wavekit/core/numeric_types.hpp"
#include "wavekit/core/platform.hpp"
#include "wavekit/core/vector.hpp"

namespace wavekit::arch {

template <class Fp8>
struct smfmac_row_pairs_atom {
  static_assert(std::is_same_v<Fp8, fp8_e4m3fnuz> || std::is_same_v<Fp8, fp8_e4m3fn>,
                "smfmac_row_pairs_atom: the instruction reads fp8 e4m3 (fnuz on gfx942, OCP on gfx950)");
  using a_type = Fp8;
  using b_type = Fp8;
  using operand = int32x4;  // 16 bytes: A's real row slice, or B's column slice
  using accumulator = floatx4;
  // gfx950 keeps the instruction (reading OCP fp8), but its plans never choose it: there the
  // f8f6f4 forms run dense fp8 at twice this rate (docs/gemm-fp8-skinny.md).
  static constexpr atom_targets targets =
      std::is_same_v<Fp8, fp8_e4m3fnuz> ? atom_targets::gfx942 : atom_targets::gfx950;
  static constexpr int m = 16, n = 16, k = 64, element_bits = 8;
  static constexpr int a_rows = 8;       // real rows of A (and C) per instruction
  static constexpr int lane_groups = 4;  // lanes sharing a column, 16 K each
  static constexpr int k_per_lane = 16;  // B elements (and real A elements read) per lane
  static constexpr int operand_bytes = 16;
  static constexpr int acc_regs = 4;     // the instruction's accumulator
  static constexpr int folded_regs = 2;  // after fold(): one per real row a lane holds
  static constexpr const char* name() { return "smfmac_f32_16x16x64_fp8_fp8"; }

  // Index words (bits [4 g, 4 g + 4): group g's two positions, 2 bits each, low one first):
  // the even row of a pair keeps positions 0 and 1 of every group, the odd row 2 and 3.
  static constexpr std::uint32_t even_row_index = 0x4444u, odd_row_index = 0xEEEEu;

  WAVEKIT_HOST_DEVICE static constexpr int a_row(int lane) { return (lane % 16) / 2; }
  WAVEKIT_HOST_DEVICE static constexpr int operand_row(int lane) { return lane % 16; }  // B's column
  WAVEKIT_HOST_DEVICE static constexpr int operand_k(int lane, int e) { return (lane / 16) * k_per_lane + e; }
  // The real row of C that register r of lane l holds after fold(), and its column.
  WAVEKIT_HOST_DEVICE static constexpr int acc_row(int lane, int r) { return 2 * (lane / 16) + r; }
  WAVEKIT_HOST_DEVICE static constexpr int acc_col(int lane) { return lane % 16; }

  // The compressed A operand of this lane's sparse row: bytes 2h, 2h + 1 of each dword of the
  // real row's 16 bytes (h = lane % 2), in order: group g's two values from dword g.
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE static int32x2 compress_a(operand a, int lane) {
    const std::uint32_t pick = 0x05040100u + (static_cast<std::uint32_t>(lane) & 1u) * 0x02020202u;
    int32x2 out;
    out[0] = static_cast<int>(
        __builtin_amdgcn_perm(static_cast<std::uint32_t>(a[1]), static_cast<std::uint32_t>(a[0]), pick));
    out[1] = static_cast<int>(
        __builtin_amdgcn_perm(static_cast<std::uint32_t>(a[3]), static_cast<std::uint32_t>(a[2]), pick));
    return out;
  }

  template <int Use = 0>
  WAVEKIT_DEVICE static WAVEKIT_FORCEINLINE accumulator run(operand a, operand b, accumulator c, int lane) {
    static_assert(Use != 0 || atom_runs_on(targets, current_target) || current_target == target::host,
                  "smfmac_row_pairs_atom: this fp8 format is not the one the target being compiled reads");
    const int index = static_cast<int>((lane & 1) ? odd_row_index : even_row_index);
    return gfx942::smfmac_f32_16x16x64_fp8_fp8(compress_a(a, lane), b, c, index);
  }

  // Each real row is the sum of its pair's rows: registers (0, 1) and (2, 3) of a lane.
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE static accumulator fold(accumulator c) {
    accumulator out{};
    out[0] = c[0] + c[1];
    out[1] = c[2] + c[3];
    return out;
  }
};

}  // namespace wavekit::arch
