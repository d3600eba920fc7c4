// gfx950's block-scaled matrix-core instructions, v_mfma_scale_f32_{16x16x128,32x32x64}_f8f6f4
// (docs/hardware.md 1.2 and 1.4):
//   - cbsz / blgp select the A / B formats: 0 fp8 e4m3, 1 bf8 e5m2, 2 fp6 e2m3, 3 bf6 e3m2, 4 fp4;
//   - operands are 8 VGPRs per lane; 8-bit formats hold K in 16-element chunks, 6- and 4-bit
//     formats contiguously (mfma_layout.hpp); fp4 and fp6 use the first 4 / 6 VGPRs;
//   - K splits into 32-element blocks; the e8m0 scale of A row i in block b is byte opsel_a of
//     the scale_a argument of lane dim * b + i (likewise B by column), dim = 32 or 16;
//   - D[i][j] = C[i][j] + sum_b 2^(sa + sb - 254) * sum_{k in b} A[i][k] B[k][j]; a scale byte
//     0xFF makes the result NaN.
// The hardware's internal accumulation order and truncation for these instructions are not
// documented (docs/hardware.md 1.3). The emulator returns the exactly rounded result: every
// product and scaling is exact, the sum is carried in double-double, and one round-to-nearest-even
// to fp32 ends it. Real results may differ from it by about an ulp of fp32.
// Scale arguments are runtime values here: a scale byte of 0 means 2^-127. (The compiler turns
// constant-zero scales into the unscaled instruction; wavekit kernels pass 127 for 1.0.)
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>

#include "wavekit/core/numeric_types.hpp"
#include "wavekit/core/vector.hpp"
#include "wavekit/emu/block.hpp"
#include "wavekit/emu/mfma_layout.hpp"

namespace wavekit::emu::mfma {

inline int scaled_format_bits(int code) { return code <= 1 ? 8 : code <= 3 ? 6 : 4; }

// Element e (of `bits` bits, packed from bit 0) of a lane's operand, decoded as format `code`.
inline double scaled_element(int code, const unsigned char* bytes, int e) {
  const int bits = scaled_format_bits(code), bit = e * bits;
  std::uint32_t window = 0;
  std::memcpy(&window, bytes + bit / 8, bit / 8 + 3 < 32 ? 3 : 32 - bit / 8);
  const std::uint32_t v = (window >> (bit % 8)) & ((1u << bits) - 1);
  switch (code) {
    case 0: return to_float(fp8_e4m3fn::from_bits(v));
    case 1: return to_float(bf8_e5m2::from_bits(v));
    case 2: return to_float(fp6_e2m3::from_bits(v));
    case 3: return to_float(bf6_e3m2::from_bits(v));
    default: return to_float(fp4_e2m1::from_bits(v));
  }
}

// A sum carried as hi + lo (Knuth's two-sum keeps it exact up to ~106 bits).
struct double_double {
  double hi = 0.0, lo = 0.0;
  void add(double x) {
    const double s = hi + x, bb = s - hi, err = (hi - (s - bb)) + (x - bb);
    const double t = lo + err, h = s + t;
    lo = t - (h - s);
    hi = h;
  }
  // hi + lo rounded once to fp32 (nearest, ties to even).
  float to_float() const {
    float f = static_cast<float>(hi);
    if (static_cast<double>(f) != hi && lo != 0.0 && std::isfinite(f)) {
      const float g = std::nextafter(f, hi > static_cast<double>(f) ? std::numeric_limits<float>::infinity()
                                                                    : -std::numeric_limits<float>::infinity());
      const double mid = (static_cast<double>(f) + static_cast<double>(g)) / 2;
      if (hi == mid) f = (lo > 0) == (g > f) ? g : f;  // the tie is broken by the low part
    }
    return f;
  }
};

template <class Accumulator>
struct scaled_operands {
  int32x8 a, b;
  Accumulator c;
  int scale_a, scale_b;
};

template <class Accumulator, class InOf, class OutOf>
void execute_scaled(const shape& s, int format_a, int format_b, int opsel_a, int opsel_b, InOf in_of, OutOf out_of) {
  const shape sa_shape{s.m, s.n, s.k, scaled_format_bits(format_a)};
  const shape sb_shape{s.m, s.n, s.k, scaled_format_bits(format_b)};
  const int per_lane = s.elements_per_lane();
  thread_local std::vector<double> a, b;  // a: (m, k); b: (n, k)
  a.assign(std::size_t(s.m) * s.k, 0.0), b.assign(std::size_t(s.n) * s.k, 0.0);
  for (int lane = 0; lane < 64; ++lane) {
    const auto& in = in_of(lane);
    const auto* ab = reinterpret_cast<const unsigned char*>(&in.a);
    const auto* bb = reinterpret_cast<const unsigned char*>(&in.b);
    for (int e = 0; e < per_lane; ++e) {
      const position pa = a_position(sa_shape, lane, e), pb = b_position(sb_shape, lane, e);
      a[std::size_t(pa.index) * s.k + pa.k] = scaled_element(format_a, ab, e);
      b[std::size_t(pb.index) * s.k + pb.k] = scaled_element(format_b, bb, e);
    }
  }
  auto scale_byte = [&](int lane, bool is_a) {
    const int v = is_a ? in_of(lane).scale_a : in_of(lane).scale_b;
    return (static_cast<std::uint32_t>(v) >> (8 * ((is_a ? opsel_a : opsel_b) & 3))) & 0xFF;
  };
  const int blocks = s.k / 32;
  // Without bf8 operands a block's 32 products, and their sum, are exact in plain double: e4m3
  // products span 2^-18 .. 2^17.6 (36 bits, 41 with the carries of 32 terms), fp6 and fp4 less;
  // the power-of-two scale keeps it exact. bf8 products span 64 bits: each is added on its own.
  const bool block_sums_exact = format_a != 1 && format_b != 1;
  for (int lane = 0; lane < 64; ++lane)
    for (int r = 0; r < accumulator_registers(s); ++r) {
      const cell x = accumulator_cell(s, lane, r);
      const float c = in_of(lane).c[r];
      double_double acc;
      acc.add(c);
      bool nan = false;
      double plain = c;  // fp64 sum, for NaN / Inf inputs
      for (int blk = 0; blk < blocks; ++blk) {
        const std::uint32_t sa = scale_byte(s.m * blk + x.i, true), sb = scale_byte(s.n * blk + x.j, false);
        nan |= sa == 0xFF || sb == 0xFF;
        const double scale = std::ldexp(1.0, static_cast<int>(sa + sb) - 254);
        const double* ak = &a[std::size_t(x.i) * s.k + 32 * blk];
        const double* bk = &b[std::size_t(x.j) * s.k + 32 * blk];
        if (block_sums_exact) {  // one double-double addition per block (see above)
          double dot = 0.0;
          for (int kk = 0; kk < 32; ++kk) dot += ak[kk] * bk[kk];
          acc.add(dot * scale);
          plain += dot * scale;
        } else {
          for (int kk = 0; kk < 32; ++kk) {
            const double p = ak[kk] * bk[kk] * scale;
            acc.add(p);
            plain += p;
          }
        }
      }
      out_of(lane)[r] = nan                    ? std::numeric_limits<float>::quiet_NaN()
                        : std::isfinite(plain) ? acc.to_float()
                                               : static_cast<float>(plain);
    }
}

template <class Accumulator>
Accumulator scaled_instruction(const char* name, const shape& s, int32x8 a, int32x8 b, Accumulator c, int cbsz,
                               int blgp, int opsel_a, int scale_a, int opsel_b, int scale_b, source_site site) {
  if (cbsz < 0 || cbsz > 4 || blgp < 0 || blgp > 4)
    detail::fail(std::string(name) + " at " + site.str() + ": format codes must be 0..4 (got cbsz " +
                 std::to_string(cbsz) + ", blgp " + std::to_string(blgp) + ")");
  if (opsel_a < 0 || opsel_a > 3 || opsel_b < 0 || opsel_b > 3)
    detail::fail(std::string(name) + " at " + site.str() + ": opsel selects a scale byte, 0..3");
  return wave_op<Accumulator>(name, site, scaled_operands<Accumulator>{a, b, c, scale_a, scale_b},
                              [&](auto in_of, auto out_of) {
                                count_mfma(*current_thread().block, name);
                                execute_scaled<Accumulator>(s, cbsz, blgp, opsel_a, opsel_b, in_of, out_of);
                              });
}

}  // namespace wavekit::emu::mfma
