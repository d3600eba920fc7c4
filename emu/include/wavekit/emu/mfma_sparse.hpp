// gfx942's sparse matrix-core instruction v_smfmac_f32_16x16x64_fp8_fp8 (docs/hardware.md 1.5):
//   - A is 16 x 64 with two non-zeros in every group of four K, passed compressed: lane l holds
//     row l % 16, its byte j (0..7) is the value at K = 16 (l / 16) + 4 (j / 2) + idx_j;
//   - idx_j is bits [2j, 2j + 2) of a 16-bit half of the lane's own index register: the high half
//     when CBSZ is 0 and ABID is 1, else the low one; each group's two positions must be distinct
//     and ascending (the emulator fails any other pair: the ISA leaves them undefined);
//   - B is 64 x 16 dense, lane l holding column l % 16, byte b at K = 16 (l / 16) + b;
//   - C and D: the dense 16x16 layout; the destination is also the accumulator.
// Arithmetic: the CDNA3 fp8 accumulation (mfma_numerics.hpp) over each output's 32 products in
// the instruction's operand order, lane groups 0-1 then 2-3 as two groups of 16 with the even /
// odd split on the compressed byte: the dense 16x16x32 datapath with a selector in front of B.
// That order is not documented (docs/hardware.md 1.5 says what would settle it); every other
// fact above is.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "wavekit/core/vector.hpp"
#include "wavekit/emu/block.hpp"
#include "wavekit/emu/mfma.hpp"

namespace wavekit::emu::mfma {

struct sparse_operands {
  int32x2 a;
  int32x4 b;
  floatx4 c;
  int index;
};

// The 2-bit K position (within its group of four) of compressed byte j of a lane, from its index
// register; fails on a group whose two positions are not ascending.
inline int sparse_position(std::uint32_t index, int cbsz, int abid, int j, const char* name, source_site site) {
  const std::uint32_t half = (cbsz == 0 && (abid & 1)) ? index >> 16 : index & 0xFFFFu;
  const int group = (half >> (4 * (j / 2))) & 0xF, first = group & 3, second = group >> 2;
  if (first >= second)
    detail::fail(std::string(name) + " at " + site.str() + ": sparse index group " + std::to_string(j / 2) +
                 " names positions " + std::to_string(first) + " and " + std::to_string(second) +
                 "; the ISA requires index0 < index1 (docs/hardware.md 1.5)");
  return j % 2 ? second : first;
}

template <class InOf, class OutOf>
void execute_sparse_16x16x64(int cbsz, int abid, const char* name, source_site site, InOf in_of, OutOf out_of) {
  // Per lane group g and compressed byte j: A rows (16), B columns (16).
  thread_local std::vector<operand_value> a, b;  // a[i][32]: row i's products' A values in operand order
  thread_local std::vector<int> kpos;            // kpos[i][32]: the B byte each one multiplies
  a.assign(16 * 32, {}), kpos.assign(16 * 32, 0), b.assign(16 * 64, {});
  bool specials = false;
  for (int lane = 0; lane < 64; ++lane) {
    const auto& in = in_of(lane);
    const int g = lane / 16, row = lane % 16;
    const auto* a_bytes = reinterpret_cast<const unsigned char*>(&in.a);
    const auto* b_bytes = reinterpret_cast<const unsigned char*>(&in.b);
    const auto index = static_cast<std::uint32_t>(in.index);
    for (int j = 0; j < 8; ++j) {
      const decoded d = byte_table(element_format::fp8)[a_bytes[j]];
      a[row * 32 + 8 * g + j] = d.v;
      kpos[row * 32 + 8 * g + j] = 16 * g + 4 * (j / 2) + sparse_position(index, cbsz, abid, j, name, site);
      specials |= d.special;
    }
    for (int e = 0; e < 16; ++e) {
      const decoded d = byte_table(element_format::fp8)[b_bytes[e]];
      b[row * 64 + 16 * g + e] = d.v;  // b[column][K]
      specials |= d.special;
    }
  }
  for (int lane = 0; lane < 64; ++lane)
    for (int r = 0; r < 4; ++r) {
      const int i = 4 * (lane / 16) + r, col = lane % 16;  // the register's place in C and D
      float acc = in_of(lane).c[r];
      operand_value column[32];
      for (int t = 0; t < 32; ++t) column[t] = b[col * 64 + kpos[i * 32 + t]];
      for (int k0 = 0; k0 < 32; k0 += 16)
        acc = accumulate_group(&a[i * 32 + k0], &column[k0], 16, acc, group_kind::fp8_even_odd, specials);
      out_of(lane)[r] = acc;
    }
}

inline floatx4 sparse_instruction_16x16x64_fp8(const char* name, int32x2 a, int32x4 b, floatx4 c, int index, int cbsz,
                                               int abid, source_site site) {
  if (cbsz < 0 || cbsz > 7 || abid < 0 || abid > 15)
    detail::fail(std::string(name) + " at " + site.str() + ": CBSZ is 3 bits and ABID 4 (docs/hardware.md 1.5)");
  return wave_op<floatx4>(name, site, sparse_operands{a, b, c, index}, [&](auto in_of, auto out_of) {
    count_mfma(*current_thread().block, name);
    execute_sparse_16x16x64(cbsz, abid, name, site, in_of, out_of);
  });
}

}  // namespace wavekit::emu::mfma
