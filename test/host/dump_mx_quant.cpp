// Writes a seeded random matrix and wavekit's MX quantization of it, for crosscheck_mx_quant.py:
//   <dir>/input.f32 (rows x cols), <dir>/<elem>.data.u8, <dir>/<elem>.scales.u8 (nearest even);
//   <dir>/input_bf16.f32, the matrix rounded to bf16 (so that many elements are ties), and
//   <dir>/<elem>.away.data.u8, <dir>/<elem>.away.scales.u8: its quantization with ties away from zero
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "support/write_binary.hpp"
#include "wavekit/host/quantize_mx.hpp"

namespace {

template <class T>
bool dump(const std::string& dir, const std::string& name, const std::vector<float>& x, int rows, int cols,
          wavekit::mx_rounding rounding = wavekit::mx_rounding::nearest_even) {
  const auto q = wavekit::host::quantize_mx<T>(x, rows, cols, rounding);
  return wavekit::test::write_binary(dir + "/" + name + ".data.u8", q.data) &&
         wavekit::test::write_binary(dir + "/" + name + ".scales.u8", q.scales);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <output directory>\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  const int rows = 64, cols = 512;
  std::mt19937 rng(2024);
  std::normal_distribution<float> n(0.0f, 1.0f);
  std::uniform_real_distribution<float> e(-20.0f, 20.0f);
  std::vector<float> x(std::size_t(rows) * cols);
  for (int r = 0; r < rows; ++r) {
    const float row_exponent = e(rng);  // rows from tiny to huge magnitudes
    for (int c = 0; c < cols; ++c) x[std::size_t(r) * cols + c] = n(rng) * std::exp2(row_exponent);
  }
  for (int c = 0; c < 32; ++c) x[c] = 0.0f;  // one all-zero block
  using namespace wavekit;
  const bool ok = wavekit::test::write_binary(dir + "/input.f32", x) && dump<fp4_e2m1>(dir, "e2m1", x, rows, cols) &&
                  dump<fp8_e4m3fn>(dir, "e4m3fn", x, rows, cols) && dump<bf8_e5m2>(dir, "e5m2", x, rows, cols);
  std::vector<float> xb(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) xb[i] = __builtin_bit_cast(float, bf16_bits_rne(x[i]) << 16);
  constexpr auto away = mx_rounding::ties_away_from_zero;
  const bool ok_away = wavekit::test::write_binary(dir + "/input_bf16.f32", xb) &&
                       dump<fp4_e2m1>(dir, "e2m1.away", xb, rows, cols, away) &&
                       dump<fp8_e4m3fn>(dir, "e4m3fn.away", xb, rows, cols, away) &&
                       dump<bf8_e5m2>(dir, "e5m2.away", xb, rows, cols, away);
  return ok && ok_away ? 0 : 1;
}
