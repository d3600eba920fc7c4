// Where MFMA operands live: which matrix element each lane's operand registers hold
// (docs/hardware.md 1.2), for single-block instructions.
//
// A/B rule: with dim = M for A (N for B), G = 64 / dim lane groups and P = K / G elements per lane,
// lane l holds row (column) l % dim, and its element e holds
//   K = (l / dim) * P + e                                   in general, and
//   K = ((e / 16) * G + l / dim) * 16 + e % 16              for the gfx950 8-bit forms with P > 16
// (two or four 16-element chunks per lane). Element e sits at bits [e*bits, (e+1)*bits) of the
// lane's concatenated operand registers.
// C/D: 32x32: register r of lane l holds C[8 (r / 4) + 4 (l / 32) + r % 4][l % 32];
//      16x16: register r of lane l holds C[4 (l / 16) + r][l % 16].
#pragma once

#include <cstdint>

namespace wavekit::emu::mfma {

struct shape {
  int m, n, k;
  int element_bits;  // of A and B: 16 (f16/bf16), 8 (fp8/bf8), 6 (fp6/bf6), 4 (fp4)
  constexpr int elements_per_lane() const { return k / (64 / m); }
  constexpr bool chunked_k() const { return elements_per_lane() > 16 && element_bits >= 8; }
};

struct position {
  int index;  // row of A / column of B
  int k;
};

// Element e of lane `lane`'s A operand (dim = m) or B operand (dim = n).
constexpr position operand_position(const shape& s, int dim, int lane, int e) {
  const int groups = 64 / dim, per_lane = s.k / groups, g = lane / dim;
  if (per_lane > 16 && s.element_bits >= 8) return {lane % dim, ((e / 16) * groups + g) * 16 + e % 16};
  return {lane % dim, g * per_lane + e};
}
constexpr position a_position(const shape& s, int lane, int e) { return operand_position(s, s.m, lane, e); }
constexpr position b_position(const shape& s, int lane, int e) { return operand_position(s, s.n, lane, e); }

struct cell {
  int i, j;
};

// Register r of lane `lane` in the C/D accumulator.
constexpr cell accumulator_cell(const shape& s, int lane, int r) {
  if (s.m == 32) return {8 * (r / 4) + 4 * (lane / 32) + r % 4, lane % 32};
  return {4 * (lane / 16) + r, lane % 16};
}

constexpr int accumulator_registers(const shape& s) { return s.m * s.n / 64; }

}  // namespace wavekit::emu::mfma
