// Random single-group fp8/bf8 dot products through the emulator's two implementations of the
// CDNA3 accumulation (accumulate_group and the row fast path), for check_mfma_numerics.py.
// Output: records of 16 A codes, 16 B codes (one byte each), then C, the reference result and
// the fast-path result as fp32 bits; one file per (A format, B format) on gfx942.
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "support/write_binary.hpp"
#include "wavekit/core/numeric_types.hpp"
#include "wavekit/emu/mfma_numerics.hpp"
#include "wavekit/emu/mfma_rows_fp8.hpp"

using namespace wavekit;
using namespace wavekit::emu::mfma;

namespace {

template <class T>
operand_value prepare(std::uint32_t code) {
  const double v = to_float(T::from_bits(code));
  return {v, input_exponent(v, 1 - T::format::bias)};
}

// C values over many magnitudes, including zero, subnormals, and values that dwarf the sum.
float random_c(std::mt19937& rng) {
  std::uniform_int_distribution<int> pick(0, 9), exponent(-140, 40);
  std::normal_distribution<float> n(0.0f, 1.0f);
  switch (pick(rng)) {
    case 0: return 0.0f;
    case 1: return -0.0f;
    case 2: return n(rng) * 1e-39f;  // subnormal
    default: return n(rng) * std::ldexp(1.0f, exponent(rng) / 4);
  }
}

template <class TA, class TB>
bool dump(const std::string& path, int cases, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> code(0, 255), sparse(0, 3);
  std::vector<std::uint32_t> out;
  for (int c = 0; c < cases; ++c) {
    std::uint32_t a[16], b[16];
    operand_value av[16], bv[16];
    float fa[16], fb[16];
    int ea[16], eb[16];
    for (int t = 0; t < 16; ++t) {
      do a[t] = sparse(rng) == 0 ? 0 : code(rng);
      while (std::isnan(to_float(TA::from_bits(a[t]))));
      do b[t] = code(rng);
      while (std::isnan(to_float(TB::from_bits(b[t]))));
      av[t] = prepare<TA>(a[t]), bv[t] = prepare<TB>(b[t]);
      fa[t] = float(av[t].value), fb[t] = float(bv[t].value), ea[t] = av[t].exponent, eb[t] = bv[t].exponent;
    }
    const float acc = random_c(rng);
    const float reference = accumulate_group(av, bv, 16, acc, group_kind::fp8_even_odd, false);
    const fp8_operands op{fa, ea, fb, eb, 1, 1, 16};
    float fast;
    accumulate_row_fp8(op, 0, &acc, &fast);
    std::uint32_t packed[8] = {};
    for (int t = 0; t < 16; ++t) packed[t / 4] |= a[t] << (8 * (t % 4)), packed[4 + t / 4] |= b[t] << (8 * (t % 4));
    out.insert(out.end(), packed, packed + 8);
    out.push_back(std::bit_cast<std::uint32_t>(acc));
    out.push_back(std::bit_cast<std::uint32_t>(reference));
    out.push_back(std::bit_cast<std::uint32_t>(fast));
  }
  return test::write_binary(path, out);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  const std::string dir = argv[1];
  const bool ok = dump<fp8_e4m3fnuz, fp8_e4m3fnuz>(dir + "/fp8_fp8.u32", 10000, 1) &&
                  dump<bf8_e5m2fnuz, fp8_e4m3fnuz>(dir + "/bf8_fp8.u32", 10000, 2) &&
                  dump<bf8_e5m2fnuz, bf8_e5m2fnuz>(dir + "/bf8_bf8.u32", 10000, 3);
  return ok ? 0 : 1;
}
