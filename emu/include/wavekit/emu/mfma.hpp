// Matrix-core instructions on the CPU: the clang builtins wavekit uses, gathering A, B and C from
// the 64 lanes by the layouts of mfma_layout.hpp, computing D with the arithmetic of
// mfma_numerics.hpp, and scattering D back. The emulated target decides how 8-bit operands are
// read: fnuz fp8/bf8 on gfx942, OCP on gfx950.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>
#include <vector>

#include "wavekit/arch/target.hpp"
#include "wavekit/core/numeric_types.hpp"
#include "wavekit/emu/block.hpp"
#include "wavekit/emu/mfma_layout.hpp"
#include "wavekit/emu/mfma_numerics.hpp"
#include "wavekit/emu/mfma_rows_fp8.hpp"

namespace wavekit::emu::mfma {

enum class element_format { fp8, bf8, f16, bf16, i8 };

struct decoded {
  operand_value v;
  bool special;  // NaN or Inf
};

template <class T>
decoded decode_small(std::uint32_t bits) {
  const double x = to_float(T::from_bits(bits));
  const int min_exponent = 1 - T::format::bias;
  return {{x, std::isfinite(x) ? input_exponent(x, min_exponent) : 0}, !std::isfinite(x)};
}

// The 256 fp8/bf8 codes of the emulated target, prepared once.
inline const std::array<decoded, 256>& byte_table(element_format f) {
  static const auto make = [](element_format fmt) {
    std::array<decoded, 256> t{};
    const bool ocp = arch::current_target == arch::target::gfx950;
    for (std::uint32_t c = 0; c < 256; ++c)
      t[c] = fmt == element_format::fp8 ? (ocp ? decode_small<fp8_e4m3fn>(c) : decode_small<fp8_e4m3fnuz>(c))
                                        : (ocp ? decode_small<bf8_e5m2>(c) : decode_small<bf8_e5m2fnuz>(c));
    return t;
  };
  static const std::array<decoded, 256> fp8 = make(element_format::fp8), bf8 = make(element_format::bf8);
  return f == element_format::fp8 ? fp8 : bf8;
}

// Element e of a lane's operand bytes.
inline decoded decode_element(element_format f, const unsigned char* bytes, int e) {
  switch (f) {
    case element_format::fp8:
    case element_format::bf8: return byte_table(f)[bytes[e]];
    case element_format::f16: {
      std::uint16_t h;
      std::memcpy(&h, bytes + 2 * e, 2);
      return decode_small<fp16>(h);
    }
    case element_format::bf16: {
      std::uint16_t h;
      std::memcpy(&h, bytes + 2 * e, 2);
      return decode_small<bf16>(h);
    }
    case element_format::i8: return {{static_cast<double>(static_cast<signed char>(bytes[e])), 0}, false};
  }
  return {};
}

template <class Operand, class Accumulator>
struct operands {
  Operand a, b;
  Accumulator c;
};

// D = A * B + C for one single-block instruction of shape `s`, over the whole wave.
template <class Operand, class Accumulator, class InOf, class OutOf>
void execute(const shape& s, element_format fa, element_format fb, InOf in_of, OutOf out_of) {
  using acc_element = std::remove_cvref_t<decltype(std::declval<Accumulator&>()[0])>;
  const int per_lane = s.elements_per_lane();
  const bool sixteen_bit = fa == element_format::f16 || fa == element_format::bf16;
  // Gathered operands: a (m, k); b (k, n), K-major; c and d (m, n).
  thread_local std::vector<operand_value> a, b;
  thread_local std::vector<float> c, d;
  a.resize(std::size_t(s.m) * s.k), b.resize(std::size_t(s.k) * s.n);
  c.resize(std::size_t(s.m) * s.n), d.resize(std::size_t(s.m) * s.n);
  bool specials = false;
  for (int lane = 0; lane < 64; ++lane) {
    const auto& in = in_of(lane);
    const auto* a_bytes = reinterpret_cast<const unsigned char*>(&in.a);
    const auto* b_bytes = reinterpret_cast<const unsigned char*>(&in.b);
    for (int e = 0; e < per_lane; ++e) {
      const position pa = a_position(s, lane, e), pb = b_position(s, lane, e);
      const decoded da = decode_element(fa, a_bytes, e), db = decode_element(fb, b_bytes, e);
      a[std::size_t(pa.index) * s.k + pa.k] = da.v;
      b[std::size_t(pb.k) * s.n + pb.index] = db.v;
      specials |= da.special || db.special;
    }
    if constexpr (!std::is_integral_v<acc_element>)
      for (int r = 0; r < accumulator_registers(s); ++r) {
        const cell x = accumulator_cell(s, lane, r);
        c[std::size_t(x.i) * s.n + x.j] = in.c[r];
      }
  }
  if constexpr (std::is_integral_v<acc_element>) {  // i8: exact dot products, 32-bit wrap-around (docs/hardware.md 1.3)
    for (int lane = 0; lane < 64; ++lane)
      for (int r = 0; r < accumulator_registers(s); ++r) {
        const cell x = accumulator_cell(s, lane, r);
        std::uint32_t acc = static_cast<std::uint32_t>(in_of(lane).c[r]);
        for (int kk = 0; kk < s.k; ++kk)
          acc += static_cast<std::uint32_t>(static_cast<std::int32_t>(a[std::size_t(x.i) * s.k + kk].value) *
                                            static_cast<std::int32_t>(b[std::size_t(kk) * s.n + x.j].value));
        out_of(lane)[r] = static_cast<std::int32_t>(acc);
      }
    return;
  } else {
    if (!sixteen_bit && !specials) {
      thread_local std::vector<float> av, bv;
      thread_local std::vector<int> ae, be;
      av.resize(a.size()), ae.resize(a.size()), bv.resize(b.size()), be.resize(b.size());
      for (std::size_t t = 0; t < a.size(); ++t) av[t] = static_cast<float>(a[t].value), ae[t] = a[t].exponent;
      for (std::size_t t = 0; t < b.size(); ++t) bv[t] = static_cast<float>(b[t].value), be[t] = b[t].exponent;
      const fp8_operands op{av.data(), ae.data(), bv.data(), be.data(), s.m, s.n, s.k};
      for (int i = 0; i < s.m; ++i) accumulate_row_fp8(op, i, &c[std::size_t(i) * s.n], &d[std::size_t(i) * s.n]);
    } else {
      const int group = sixteen_bit ? std::min(8, s.k) : 16;
      const group_kind kind = sixteen_bit ? group_kind::single : group_kind::fp8_even_odd;
      std::vector<operand_value> column(s.k);
      for (int j = 0; j < s.n; ++j) {
        for (int kk = 0; kk < s.k; ++kk) column[kk] = b[std::size_t(kk) * s.n + j];
        for (int i = 0; i < s.m; ++i) {
          float acc = c[std::size_t(i) * s.n + j];
          for (int k0 = 0; k0 < s.k; k0 += group)
            acc = accumulate_group(&a[std::size_t(i) * s.k + k0], &column[k0], group, acc, kind, specials);
          d[std::size_t(i) * s.n + j] = acc;
        }
      }
    }
    for (int lane = 0; lane < 64; ++lane)
      for (int r = 0; r < accumulator_registers(s); ++r) {
        const cell x = accumulator_cell(s, lane, r);
        out_of(lane)[r] = d[std::size_t(x.i) * s.n + x.j];
      }
  }
}

// The builtin: a rendezvous of the wave, then execute().
template <class Operand, class Accumulator>
Accumulator instruction(const char* name, const shape& s, element_format fa, element_format fb, Operand a, Operand b,
                        Accumulator c, int cbsz, int abid, int blgp, source_site site) {
  if (cbsz || abid || blgp)
    detail::fail(std::string(name) + " at " + site.str() +
                 ": CBSZ/ABID/BLGP must be 0 for single-block instructions (docs/hardware.md 1.1)");
  return wave_op<Accumulator>(name, site, operands<Operand, Accumulator>{a, b, c}, [&](auto in_of, auto out_of) {
    count_mfma(*current_thread().block, name);
    execute<Operand, Accumulator>(s, fa, fb, in_of, out_of);
  });
}

}  // namespace wavekit::emu::mfma
