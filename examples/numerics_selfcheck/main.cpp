// wavekit numerics self-check: the element formats' limits and special codes, conversions at
// their edge cases, and fp8 / MX quantization round trips, each checked against the values the
// specification states. Prints the gfx942 codegen report when the build made one. Host code only:
// no op, no device.
//
//   numerics_selfcheck [report]   report: a codegen report to print after the checks
//   numerics_selfcheck --help     usage and exit codes (examples/common/cli.hpp)
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "cli.hpp"
#include "wavekit/core/numeric_types.hpp"
#include "wavekit/host/quantize_blockscale.hpp"
#include "wavekit/host/quantize_mx.hpp"

using namespace wavekit;

namespace {

int failures = 0;

void expect(bool ok, const std::string& what) {
  std::printf("  [%s] %s\n", ok ? " ok " : "FAIL", what.c_str());
  failures += ok ? 0 : 1;
}

template <class T>
void format_row(const char* name, const char* used_by) {
  using limits = element_limits<T>;
  std::printf("  %-14s %-22s max %-10g min normal %-12g min subnormal %-12g\n", name, used_by, limits::max_finite,
              limits::min_normal, limits::min_subnormal);
}

template <class T>
bool every_code_round_trips() {
  using tr = format_traits<typename T::format>;
  for (std::uint32_t c = 0; c < 2 * tr::sign_bit; ++c) {
    if (tr::is_nan(c)) continue;
    if (saturate_cast<T>(to_float(T::from_bits(c))).bits != c && !tr::is_inf(c)) return false;
    if (hardware_cast<T>(to_float(T::from_bits(c))).bits != c) return false;
  }
  return true;
}

template <class Quantized>
double max_relative_error(const std::vector<float>& x, const Quantized& q) {
  const std::vector<float> back = host::dequantize(q);
  double worst = 0.0, amax = 0.0;
  for (float v : x) amax = std::fmax(amax, std::fabs(v));
  for (std::size_t i = 0; i < x.size(); ++i) worst = std::fmax(worst, std::fabs(double(back[i]) - x[i]));
  return worst / amax;
}

const char* const usage =
    "usage: numerics_selfcheck [report]\n"
    "Checks wavekit's element formats (fp8 fnuz and OCP, bf8, fp4, e8m0, bf16, fp16): their limits and\n"
    "special codes, conversions at their edge cases, and fp8 / MX quantization round trips, against the\n"
    "values the specifications state. Host code only.\n"
    "  report   a file to print after the checks (the build's gfx942 codegen report; default: none)";

}  // namespace

int main(int argc, char** argv) {
  const cli::command_line cmd(argc, argv, "numerics_selfcheck", usage);
  if (cmd.help_asked()) return cmd.print_help();
  if (cmd.count() > 1) return cmd.wrong_count("none or a report file");
  std::ifstream report;
  if (cmd.count() == 1) {
    report.open(argv[1]);
    if (!report) return cmd.error(std::string("argument report: cannot open '") + argv[1] + "'");
  }

  std::printf("wavekit numerics self-check\n\nFormats:\n");
  format_row<fp8_e4m3fnuz>("fp8_e4m3fnuz", "gfx942 fp8");
  format_row<bf8_e5m2fnuz>("bf8_e5m2fnuz", "gfx942 bf8");
  format_row<fp8_e4m3fn>("fp8_e4m3fn", "gfx950 fp8 (OCP)");
  format_row<bf8_e5m2>("bf8_e5m2", "gfx950 bf8 (OCP)");
  format_row<fp4_e2m1>("fp4_e2m1", "gfx950 fp4 (OCP MX)");
  format_row<bf16>("bf16", "outputs");
  format_row<fp16>("fp16", "outputs");

  std::printf("\nConversions:\n");
  expect(every_code_round_trips<fp8_e4m3fnuz>() && every_code_round_trips<bf8_e5m2fnuz>() &&
             every_code_round_trips<fp8_e4m3fn>() && every_code_round_trips<bf8_e5m2>() &&
             every_code_round_trips<fp4_e2m1>(),
         "every non-NaN fp8/fp4 code decodes and re-encodes to itself");
  expect(hardware_cast<fp8_e4m3fnuz>(300.0f).bits == 0x80 && saturate_cast<fp8_e4m3fnuz>(300.0f).bits == 0x7F,
         "300.0f -> e4m3fnuz: hardware 0x80 (NaN, as v_cvt_pk_fp8_f32), saturating 0x7F (240)");
  expect(hardware_cast<fp8_e4m3fn>(480.0f).bits == 0x7F && hardware_cast<fp8_e4m3fn>(464.0f).bits == 0x7E,
         "e4m3fn: 480 overflows to NaN 0x7F, the tie 464 rounds to even 448");
  expect(hardware_cast<bf8_e5m2>(1e9f).bits == 0x7C, "e5m2: overflow gives +Inf 0x7C");
  expect(hardware_cast<fp8_e4m3fnuz>(-1e-20f).bits == 0x00 && hardware_cast<fp8_e4m3fn>(-1e-20f).bits == 0x80,
         "underflow: fnuz has no -0 (0x00), OCP keeps it (0x80)");
  expect(to_float(fp4x2_e2m1{0xF2}.element(0)) == 1.0f && to_float(fp4x2_e2m1{0xF2}.element(1)) == -6.0f,
         "fp4 pairs: element 0 in the low nibble");
  expect(to_float(e8m0{0x7F}) == 1.0f && std::isnan(to_float(e8m0{0xFF})), "e8m0: 0x7F = 1.0, 0xFF = NaN");

  std::printf("\nQuantization round trips (max |error| / max |x|, 64 x 512 normal values):\n");
  std::vector<float> x(64 * 512);
  std::mt19937 rng(1);
  std::normal_distribution<float> dist(0.0f, 1.0f);
  for (float& v : x) v = dist(rng);
  const double e_1x128 = max_relative_error(x, host::quantize_fp8_1x128<fp8_e4m3fnuz>(x, 64, 512));
  const double e_128 = max_relative_error(x, host::quantize_fp8_128x128<fp8_e4m3fn>(x, 64, 512));
  const double e_mxfp8 = max_relative_error(x, host::quantize_mx<fp8_e4m3fn>(x, 64, 512));
  const double e_mxfp4 = max_relative_error(x, host::quantize_mx<fp4_e2m1>(x, 64, 512));
  // Half a quantum at the top binade relative to the largest value: 2^-4 for e4m3, 2^-2 for e2m1.
  expect(e_1x128 <= 1.0 / 16, "fp8 e4m3fnuz, 1x128 fp32 scales: " + std::to_string(e_1x128));
  expect(e_128 <= 1.0 / 16, "fp8 e4m3fn, 128x128 fp32 scales: " + std::to_string(e_128));
  expect(e_mxfp8 <= 1.0 / 16, "MXFP8 e4m3fn, 1x32 e8m0 scales: " + std::to_string(e_mxfp8));
  expect(e_mxfp4 <= 1.0 / 4, "MXFP4 e2m1, 1x32 e8m0 scales: " + std::to_string(e_mxfp4));

  if (report.is_open()) std::cout << "\n" << report.rdbuf() << "\n";
  std::printf("\n%s (%d failed)\n", failures ? "SELF-CHECK FAILED" : "all checks passed", failures);
  return failures ? cli::exit_mismatch : cli::exit_ok;
}
