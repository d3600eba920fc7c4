// The CDNA3 accumulation of mfma_numerics.hpp for 8-bit operands, one output row at a time, in a
// form the compiler vectorises across columns. It computes exactly what accumulate_group
// computes (a test compares them bit for bit):
//   - fp8/bf8 products have at most 8 significant bits, so products and their scaling by a power
//     of two are exact in fp32, and each truncated term is below 2^26 (fits int32; a half's sum
//     of 8 terms below 2^29);
//   - a half whose largest product exponent is below -100 holds only products with a zero
//     input (nonzero fp8/bf8 products have exponents >= -30), whose terms are 0 at any scale,
//     so the scale exponent is clamped there to keep 2^(24 - top) within fp32.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>

#include "wavekit/emu/mfma_numerics.hpp"

namespace wavekit::emu::mfma {

// Row-major operands of one instruction for the fast path. a: (m, k) values and exponents;
// b: (k, n) values and exponents (K-major, so a row of outputs reads contiguous columns).
struct fp8_operands {
  const float* a_value;
  const int* a_exponent;
  const float* b_value;
  const int* b_exponent;
  int m, n, k;
};

inline float power_of_two_f(int e) { return std::bit_cast<float>(static_cast<std::uint32_t>(e + 127) << 23); }

// d[j] = row i of C plus the row's dot products over K, group of 16 after group of 16.
// `n` <= 32. Rows or columns holding NaN/Inf must go through accumulate_group instead.
inline void accumulate_row_fp8(const fp8_operands& op, int i, const float* c_row, float* d_row) {
  constexpr int max_n = 32;
  const int n = op.n;
  float acc[max_n];
  for (int j = 0; j < n; ++j) acc[j] = c_row[j];
  for (int k0 = 0; k0 < op.k; k0 += 16) {
    int top[2][max_n];
    for (int h = 0; h < 2; ++h)
      for (int j = 0; j < n; ++j) top[h][j] = -1000;
    for (int t = 0; t < 16; ++t) {
      const int ea = op.a_exponent[i * op.k + k0 + t];
      const int* eb = op.b_exponent + (k0 + t) * n;
      int* tp = top[t & 1];
      for (int j = 0; j < n; ++j) tp[j] = std::max(tp[j], ea + eb[j]);
    }
    float scale[2][max_n];
    for (int h = 0; h < 2; ++h)
      for (int j = 0; j < n; ++j) scale[h][j] = power_of_two_f(24 - std::max(top[h][j], -100));
    std::int32_t sum[2][max_n] = {};
    for (int t = 0; t < 16; ++t) {
      const float av = op.a_value[i * op.k + k0 + t];
      const float* bv = op.b_value + (k0 + t) * n;
      const float* sc = scale[t & 1];
      std::int32_t* s = sum[t & 1];
      for (int j = 0; j < n; ++j) s[j] += static_cast<std::int32_t>(av * bv[j] * sc[j]);  // truncation
    }
    for (int j = 0; j < n; ++j) {
      const std::uint32_t bits = std::bit_cast<std::uint32_t>(acc[j]);
      const int field = static_cast<int>((bits >> 23) & 0xFF);
      if (field == 0xFF) {  // C is Inf/NaN: the fp64 sum of C and the exact products
        double exact = acc[j];
        for (int t = 0; t < 16; ++t) exact += double(op.a_value[i * op.k + k0 + t]) * op.b_value[(k0 + t) * n + j];
        acc[j] = static_cast<float>(exact);
        continue;
      }
      const int e = std::max(top[0][j], top[1][j]);
      const std::int64_t s = shifted_floor(sum[0][j], top[0][j] - e) + shifted_floor(sum[1][j], top[1][j] - e);
      const std::int64_t c_abs = field ? ((bits & 0x7FFFFF) | 0x800000) : (bits & 0x7FFFFF);
      const std::int64_t c_sig = (bits >> 31) ? -c_abs : c_abs;
      const int c_exp = field ? field - 127 : -126;
      const int m = std::max(e, c_exp);
      const std::int64_t s_units = shifted_floor(s, 7 + e - m);
      const std::int64_t c_units = c_exp < m - 25 ? 0 : shifted_floor(c_sig, c_exp + 1 - m);
      acc[j] = static_cast<float>(static_cast<double>(s_units + c_units * 128) * power_of_two(m - 31));
    }
  }
  for (int j = 0; j < n; ++j) d_row[j] = acc[j];
}

}  // namespace wavekit::emu::mfma
