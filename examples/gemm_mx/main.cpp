// wavekit's MX GEMM on gfx950, two decode-step projections of a serving engine:
//   1. MXFP8 weights and activations (e4m3fn, e8m0 per 32 K; aiter PR #3783's format), C bf16,
//      through the dispatch (the GEMV for a row or two, MFMAs above);
//   2. amd-mxfp4-mm's form: bf16 activations quantized to MXFP4 inside the kernel, MXFP4 weights
//      pre-shuffled by aiter's layouts, read in place.
// Each against the host reference (the host MX quantizer, then double over the dequantized
// values), the largest error beside the bound wavekit's tests use (scaled-MFMA accumulation plus
// C's rounding). On the CPU emulator it also prints the bytes read from the weights per weight
// byte (1.000: read once); on a GPU, the time.
//
//   gemm_mx [m n k]   default: 4 2048 1024 (m <= 64 is decode)
//   gemm_mx --help    usage and exit codes (examples/common/cli.hpp)
#include <hip/hip_runtime.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <span>
#include <vector>

#include "cli.hpp"
#include "device_memory.hpp"
#include "gemm_reference.hpp"
#include "wavekit/arch/device.hpp"
#include "wavekit/core/float_codec.hpp"
#include "wavekit/host/quantize_mx.hpp"
#include "wavekit/host/reference_gemm.hpp"
#include "wavekit/host/shuffle_mx.hpp"
#include "wavekit/ops/gemm_mx.hpp"

using namespace wavekit;
namespace gx = wavekit::ops::gemm_mx;

namespace {

using example::upload;

std::vector<float> random_values(int rows, int cols, std::mt19937& rng) {
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> v(std::size_t(rows) * cols);
  for (float& x : v) x = normal(rng);
  return v;
}

// The two problems: MXFP8 x MXFP8; a bf16 A quantized to MXFP4 in the kernel x pre-shuffled MXFP4.
gx::problem mxfp8_problem(int m, int n, int k) {
  return {m, n, k, gx::mx_format::mxfp8, gx::a_storage::mx, gx::b_layout::plain};
}
gx::problem mxfp4_problem(int m, int n, int k) {
  return {m, n, k, gx::mx_format::mxfp4, gx::a_storage::bf16, gx::b_layout::preshuffled};
}

// Runs the call, compares C with the exact product of the dequantized operands; the outputs
// outside the bound, or -1 when the launch failed.
template <class Args>
int run_and_check(const char* what, const gx::problem& p, Args args, const void* weights, double weight_bytes,
                  const std::vector<float>& a, const std::vector<float>& b) {
  const std::size_t ws = gemm_mx_workspace_bytes<Args>(p).value();
  void* workspace = nullptr;
  hipMalloc(&workspace, std::max<std::size_t>(ws, 1));
  args.workspace = workspace, args.workspace_bytes = ws;
#if defined(WAVEKIT_EMULATOR)
  emu::reset_counters();
#endif
  gx::plan_info ran;
  const auto start = std::chrono::steady_clock::now();
  if (status s = gemm_mx(p, args, nullptr, &ran); !s.ok()) return cli::launch_failed(s), -1;
  hipDeviceSynchronize();
  const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
  std::vector<bf16> c(std::size_t(p.m) * p.n);
  hipMemcpy(c.data(), args.c, c.size() * sizeof(bf16), hipMemcpyDeviceToHost);
  const auto [exact, magnitude] = example::reference_and_magnitude(
      p.m, p.n, p.k, [&](int i, int k) { return double(a[std::size_t(i) * p.k + k]); },
      [&](int j, int k) { return double(b[std::size_t(j) * p.k + k]); });
  int outside = 0;
  double worst = 0, worst_bound = 0;
  for (std::size_t i = 0; i < c.size(); ++i) {
    const double acc = host::mfma_fp32_error_bound(p.k, 32, magnitude[i]) + ran.plan.splits * 0x1p-24 * magnitude[i];
    const double bound = acc + (std::fabs(exact[i]) + acc) * 0x1p-8, err = std::fabs(to_float(c[i]) - exact[i]);
    if (!(err <= bound)) ++outside;
    if (err > worst) worst = err, worst_bound = bound;
  }
  std::printf("%s, %s: %s, largest error %.3g (its bound %.3g), %d outputs outside their bounds\n", what,
              p.str().c_str(), ran.name.c_str(), worst, worst_bound, outside);
#if defined(WAVEKIT_EMULATOR)
  std::printf("  weights read %.3f times (emulator's counters); %.2f MB read in all\n",
              double(emu::accumulated_counters().bytes_read_from(weights)) / weight_bytes,
              double(emu::accumulated_counters().global_bytes_read) / 1e6);
  (void)us;
#else
  (void)weights, (void)weight_bytes;
  std::printf("  %.1f us (first call, with the launch)\n", us);
#endif
  hipFree(workspace);
  return outside;
}

// m, n, k: sizes gx::supports accepted on this device for both problems.
int run(int m, int n, int k) {
  std::mt19937 rng(5);
  int outside = 0, failed = 0;
  bf16* c = nullptr;
  hipMalloc(&c, std::size_t(m) * n * sizeof(bf16));
  {  // 1. MXFP8 x MXFP8.
    const auto qa = host::quantize_mx<fp8_e4m3fn>(std::span<const float>(random_values(m, k, rng)), m, k);
    const auto qb = host::quantize_mx<fp8_e4m3fn>(std::span<const float>(random_values(n, k, rng)), n, k);
    fp8_e4m3fn* b = upload(qb.data);
    const gx::args<fp8_e4m3fn, bf16> args{upload(qa.data), b, upload(qa.scales), upload(qb.scales), c};
    const int r = run_and_check("MXFP8 decode", mxfp8_problem(m, n, k), args, b, double(qb.data.size()),
                                host::dequantize(qa), host::dequantize(qb));
    if (r < 0)
      ++failed;
    else
      outside += r;
  }
  {  // 2. bf16 activations quantized in the kernel, pre-shuffled MXFP4 weights.
    std::vector<float> a = random_values(m, k, rng);
    std::vector<bf16> a16(a.size());
    for (std::size_t i = 0; i < a.size(); ++i) a[i] = to_float(a16[i] = saturate_cast<bf16>(a[i]));
    const auto qa = host::quantize_mx<fp4_e2m1>(std::span<const float>(a), m, k);  // what the kernel computes
    const auto qb = host::quantize_mx<fp4_e2m1>(std::span<const float>(random_values(n, k, rng)), n, k);
    fp4x2_e2m1* b = upload(host::shuffle_weight_16x16(std::span<const fp4x2_e2m1>(qb.data), n, k / 2));
    const gx::args_quantizing_a<bf16, bf16> args{
        upload(a16), b, upload(host::e8m0_shuffle(std::span<const e8m0>(qb.scales), n, k / 32)), c};
    const int r = run_and_check("MXFP4, bf16 A quantized inside", mxfp4_problem(m, n, k), args, b,
                                double(qb.data.size()), host::dequantize(qa), host::dequantize(qb));
    if (r < 0)
      ++failed;
    else
      outside += r;
  }
  hipFree(c);
  return outside == 0 && failed == 0 ? cli::exit_ok : cli::exit_mismatch;
}

const char* const usage =
    "usage: gemm_mx [m n k]\n"
    "Runs wavekit's MX GEMM on gfx950 (MI355X) twice, C (m x n, bf16) = A (m x k) * B (n x k)^T: MXFP8 A and B;\n"
    "then a bf16 A quantized to MXFP4 in the kernel and MXFP4 B in aiter's pre-shuffled layout. Checks each\n"
    "against the host reference and prints the largest error beside its bound.\n"
    "  m n k   the shape (default 4 2048 1024; m <= 64 is decode); n a multiple of 16, k of 64";

}  // namespace

int main(int argc, char** argv) {
  const cli::command_line cmd(argc, argv, "gemm_mx", usage);
  if (cmd.help_asked()) return cmd.print_help();
  if (cmd.count() != 0 && cmd.count() != 3) return cmd.wrong_count("none or m n k");
  int m = 4, n = 2048, k = 1024;
  if (cmd.count() == 3 && !(cmd.read_int(1, "m", m) && cmd.read_int(2, "n", n) && cmd.read_int(3, "k", k)))
    return cli::exit_usage;
  // The op's own rules for both problems on this device (MX formats run on gfx950's scaled MFMAs
  // only), before anything is allocated.
  const arch::target device = arch::current_device_arch().kind;
  for (const gx::problem& p : {mxfp8_problem(m, n, k), mxfp4_problem(m, n, k)})
    if (status s = gx::supports(p, device); !s.ok()) return cli::refused(s);
  return run(m, n, k);
}
