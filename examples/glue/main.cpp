// wavekit's inference glue on one decode step of a DeepSeek-V3-sized layer (bf16): the residual
// added and the row normalized (RMSNorm), quantized to fp8 with 1x128 scales in the block-scaled
// GEMM's A order; then an MLP's gated activation SwiGLU(gate | up) quantized the same way. Both
// against the host references (codes and scales bit for bit, except that the device's expf, which
// the emulator models, may move a SwiGLU code by a step from the reference's host expf). On the
// CPU emulator it also prints the bytes moved against the ideal (inputs read once, outputs written
// once); on a GPU, the times.
//
//   glue [tokens hidden d [k|mn]]   default: 16 7168 2304 k
//   glue --help                     usage and exit codes (examples/common/cli.hpp)
#include <hip/hip_runtime.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "cli.hpp"
#include "device_memory.hpp"
#include "wavekit/arch/device.hpp"
#include "wavekit/host/reference_rmsnorm_quant.hpp"
#include "wavekit/host/reference_swiglu_quant.hpp"
#include "wavekit/ops/rmsnorm_quant.hpp"
#include "wavekit/ops/swiglu_quant.hpp"

using namespace wavekit;
namespace rq = wavekit::ops::rmsnorm_quant;
namespace sq = wavekit::ops::swiglu_quant;

namespace {

using example::download;
using example::upload;

std::vector<bf16> random_values(std::size_t n, std::uint32_t seed, float offset) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<bf16> v(n);
  for (bf16& e : v) e = saturate_cast<bf16>(offset + normal(rng));
  return v;
}

// Codes off the reference (more than `steps` apart, or NaN where it is not) and scales off it.
template <class Fp8>
long mismatches(const host::fp8_rows<Fp8>& ref, const std::vector<Fp8>& q, const std::vector<float>& scales,
                layout order, int steps) {
  long bad = 0;
  for (int r = 0; r < ref.rows; ++r)
    for (int c = 0; c < ref.cols; ++c) {
      const Fp8 want = ref.q[std::size_t(r) * ref.cols + c], got = q[ref.q_at(r, c, order)];
      bad += std::abs(int(want.bits) - int(got.bits)) > steps;
      if (c % 128 == 0) {
        const float s = scales[ref.scale_at(r, c, order)], t = ref.scales[std::size_t(r) * (ref.cols / 128) + c / 128];
        bad += std::abs(s - t) > float(steps) * 0x1p-23f * t;
      }
    }
  return bad;
}

// The two problems: the residual added, RMSNorm and 1x128 fp8 over [tokens][hidden]; SwiGLU and
// 1x128 fp8 over [tokens][2 * d] (gate | up).
rq::problem norm_problem(int tokens, int hidden, layout order) {
  return {tokens, hidden, scale_granularity::group_1x128, order, rq::residual_mode::add};
}
sq::problem swiglu_problem(int tokens, int d, layout order) {
  return {tokens, d, scale_granularity::group_1x128, order};
}

// pn, ps: problems rq::supports<Fp8> and sq::supports<Fp8> accepted on this device.
template <class Fp8>
int run(const rq::problem& pn, const sq::problem& ps) {
  const int tokens = pn.tokens, hidden = pn.hidden, d = ps.d;
  const layout order = pn.order;
  const std::size_t n = std::size_t(tokens) * hidden, m = std::size_t(tokens) * d;
  const auto x = random_values(n, 1, 0.0f), residual = random_values(n, 2, 0.0f),
             weight = random_values(hidden, 3, 1.0f);
  const auto gate_up = random_values(2 * m, 4, 0.0f);
  bf16 *d_x = upload(x), *d_res = upload(residual), *d_w = upload(weight), *d_gu = upload(gate_up);
  Fp8 *d_qn = nullptr, *d_qs = nullptr;
  float *d_sn = nullptr, *d_ss = nullptr;
  hipMalloc(&d_qn, n), hipMalloc(&d_sn, n / 128 * 4), hipMalloc(&d_qs, m), hipMalloc(&d_ss, m / 128 * 4);

#if defined(WAVEKIT_EMULATOR)
  emu::reset_counters();
#endif
  auto start = std::chrono::steady_clock::now();
  status s = rmsnorm_quant(pn, rq::args<bf16, Fp8>{d_x, d_res, d_w, d_qn, d_sn, 1.0f, 1e-6f}, nullptr);
  hipDeviceSynchronize();
  const double norm_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
#if defined(WAVEKIT_EMULATOR)
  const emu::launch_counters norm_counters = emu::last_launch_counters();
#endif
  if (!s.ok()) return cli::launch_failed(s);
  start = std::chrono::steady_clock::now();
  s = swiglu_quant(ps, sq::args<bf16, Fp8>{d_gu, d_qs, d_ss, 1.0f}, nullptr);
  hipDeviceSynchronize();
  const double swiglu_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
#if defined(WAVEKIT_EMULATOR)
  const emu::launch_counters swiglu_counters = emu::last_launch_counters();
#endif
  if (!s.ok()) return cli::launch_failed(s);

  const auto norm_ref = host::reference_rmsnorm_quant<bf16, Fp8>(x, residual, weight, tokens, hidden, 1e-6f,
                                                                 scale_granularity::group_1x128, 1.0f, rq::row_threads);
  const auto swiglu_ref =
      host::reference_swiglu_quant<bf16, Fp8>(gate_up, tokens, d, scale_granularity::group_1x128, 1.0f);
  const int steps = 1;  // SwiGLU: the device's expf against the host's
  long bad_residual = 0;
  const auto new_residual = download(d_res, n);
  for (std::size_t i = 0; i < n; ++i) bad_residual += new_residual[i].bits != norm_ref.residual[i].bits;
  const long bad_norm = mismatches(norm_ref.out, download(d_qn, n), download(d_sn, n / 128), order, 0);
  const long bad_swiglu = mismatches(swiglu_ref.out, download(d_qs, m), download(d_ss, m / 128), order, steps);

  std::printf("glue: %d tokens, bf16, fp8 for %s with 1x128 scales in the %s order\n", tokens,
              to_string(arch::current_device_arch().kind), to_string(order));
  std::printf("rmsnorm_quant (hidden %d): %ld residual values, %ld codes or scales off the reference\n", hidden,
              bad_residual, bad_norm);
  std::printf("swiglu_quant (d %d): %ld codes or scales off the reference\n", d, bad_swiglu);
#if defined(WAVEKIT_EMULATOR)
  const double norm_read = double(n) * 4 + hidden * 2.0, norm_written = double(n) * 3 + double(n) / 32;
  const double swiglu_read = double(m) * 4, swiglu_written = double(m) + double(m) / 32;
  std::printf(
      "rmsnorm_quant bytes: read %.0f (ideal %.0f, ratio %.3f; the weight by %llu workgroups), written %.0f "
      "(ratio %.3f)\n",
      double(norm_counters.global_bytes_read), norm_read, double(norm_counters.global_bytes_read) / norm_read,
      static_cast<unsigned long long>(norm_counters.blocks), double(norm_counters.global_bytes_written),
      double(norm_counters.global_bytes_written) / norm_written);
  std::printf("swiglu_quant bytes: read %.0f (ratio %.3f), written %.0f (ratio %.3f)\n",
              double(swiglu_counters.global_bytes_read), double(swiglu_counters.global_bytes_read) / swiglu_read,
              double(swiglu_counters.global_bytes_written),
              double(swiglu_counters.global_bytes_written) / swiglu_written);
  (void)norm_seconds, (void)swiglu_seconds;
#else
  std::printf("time: rmsnorm_quant %.1f us, swiglu_quant %.1f us (one run each, no warm-up)\n", norm_seconds * 1e6,
              swiglu_seconds * 1e6);
#endif
  hipFree(d_x), hipFree(d_res), hipFree(d_w), hipFree(d_gu), hipFree(d_qn), hipFree(d_sn), hipFree(d_qs), hipFree(d_ss);
  const long bad = bad_residual + bad_norm + bad_swiglu;
  std::printf("%ld values off the reference\n", bad);
  return bad ? cli::exit_mismatch : cli::exit_ok;
}

const char* const usage =
    "usage: glue [tokens hidden d [k|mn]]\n"
    "Runs wavekit's inference glue on bf16 rows: rmsnorm_quant (the residual added, RMSNorm, fp8 with 1x128\n"
    "scales) and swiglu_quant (SwiGLU of gate | up, fp8 with 1x128 scales); checks codes and scales against\n"
    "the host references.\n"
    "  tokens   rows (default 16)\n"
    "  hidden   rmsnorm_quant's row width (default 7168; a multiple of 128)\n"
    "  d        swiglu_quant's output width, the input being 2 x d (default 2304; a multiple of 128)\n"
    "  k        fp8 rows [tokens][width], the block-scaled GEMM's A order (default)\n"
    "  mn       fp8 [width][tokens]";

}  // namespace

int main(int argc, char** argv) {
  const cli::command_line cmd(argc, argv, "glue", usage);
  if (cmd.help_asked()) return cmd.print_help();
  if (cmd.count() != 0 && cmd.count() != 3 && cmd.count() != 4)
    return cmd.wrong_count("none, tokens hidden d or tokens hidden d k|mn");
  int tokens = 16, hidden = 7168, d = 2304;
  layout order = layout::k_contiguous;
  if (cmd.count() >= 3 &&
      !(cmd.read_int(1, "tokens", tokens) && cmd.read_int(2, "hidden", hidden) && cmd.read_int(3, "d", d)))
    return cli::exit_usage;
  if (cmd.count() == 4 && !cmd.read_order(4, "order", order)) return cli::exit_usage;

  // The device, and the fp8 format its matrix cores read: fnuz on gfx942, OCP on gfx950.
  const arch::target device = arch::current_device_arch().kind;
  return cli::with_fp8_of(device, [&](auto fp8_format) {
    using Fp8 = decltype(fp8_format);
    const rq::problem pn = norm_problem(tokens, hidden, order);
    const sq::problem ps = swiglu_problem(tokens, d, order);
    // The ops' own rules for both problems on this device, before anything is allocated.
    if (status s = rq::supports<Fp8>(pn, device); !s.ok()) return cli::refused(s);
    if (status s = sq::supports<Fp8>(ps, device); !s.ok()) return cli::refused(s);
    return run<Fp8>(pn, ps);
  });
}
