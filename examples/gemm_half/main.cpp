// wavekit's half-precision GEMM on one problem: C (M x N, bf16) = A (M x K) x B (N x K)^T with
// bf16 A and B and fp32 accumulation, through wavekit::gemm_half, which picks a tile config and
// a number of K splits for the problem and the device (docs/gemm-half.md). The result against
// the host reference (double over the bf16 values), the largest error beside the bound the op's
// tests use (test/support/gemm_half_case.hpp: the MFMA's accumulation, one fp32 rounding per
// split, half an ulp of bf16). On the CPU emulator it also prints the launches' counters; on a
// GPU, the time.
//
//   gemm_half [M N K [k|mn]]   default: 32 1024 2048 k (a decode-sized projection)
//   gemm_half --help           usage and exit codes (examples/common/cli.hpp)
#include <hip/hip_runtime.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "cli.hpp"
#include "device_memory.hpp"
#include "gemm_reference.hpp"
#include "wavekit/arch/device.hpp"
#include "wavekit/core/float_codec.hpp"
#include "wavekit/host/reference_gemm.hpp"
#include "wavekit/host/transpose.hpp"
#include "wavekit/ops/gemm_half.hpp"

using namespace wavekit;
namespace gh = wavekit::ops::gemm_half;

namespace {

using example::upload;

// A and B bf16, C bf16 (gh::args<fp16, float> and the other pairs of bf16 / fp16 in, bf16 / fp16
// / float out work the same way).
using Args = gh::args<bf16, bf16>;

// p: a problem gh::supports accepted on this device.
int run(const gh::problem& p) {
  // The operands as [M][K] and [N][K]; the mn_contiguous order stores their transposes.
  std::mt19937 rng(7);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<bf16> a(std::size_t(p.m) * p.k), b(std::size_t(p.n) * p.k);
  for (bf16& x : a) x = saturate_cast<bf16>(normal(rng));
  for (bf16& x : b) x = saturate_cast<bf16>(normal(rng));
  const bool mn = p.order == layout::mn_contiguous;

  // The workspace (fp32 split-K partials) the plan the call will run wants on this device.
  const result<std::size_t> workspace_bytes = gemm_half_workspace_bytes<Args>(p);
  if (!workspace_bytes) return cli::refused(workspace_bytes.error());
  bf16* da = upload(mn ? host::transposed(a, p.m, p.k) : a);
  bf16* db = upload(mn ? host::transposed(b, p.n, p.k) : b);
  bf16* dc = nullptr;
  hipMalloc(&dc, std::size_t(p.m) * p.n * sizeof(bf16));
  void* workspace = nullptr;
  if (workspace_bytes.value()) hipMalloc(&workspace, workspace_bytes.value());

  std::printf("gemm_half %s, bf16 in and out\n", p.str().c_str());
  std::fflush(stdout);
#if defined(WAVEKIT_EMULATOR)
  emu::reset_counters();
#endif
  gh::plan_info ran;
  const auto start = std::chrono::steady_clock::now();
  const status s = gemm_half(p, Args{da, db, dc, workspace, workspace_bytes.value()}, nullptr, &ran);
  hipDeviceSynchronize();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!s.ok()) return cli::launch_failed(s);
  std::printf("  plan: %s, workspace %zu bytes\n", ran.name.c_str(), ran.workspace_bytes);
  std::vector<bf16> c(std::size_t(p.m) * p.n);
  hipMemcpy(c.data(), dc, c.size() * sizeof(bf16), hipMemcpyDeviceToHost);

  // The reference, and the magnitude sum_k |a b| its bound scales with.
  const auto value = [](const std::vector<bf16>& v, int k, int row, int kk) {
    return double(to_float(v[std::size_t(row) * k + kk]));
  };
  const auto [exact, magnitude] = example::reference_and_magnitude(
      p.m, p.n, p.k, [&](int i, int kk) { return value(a, p.k, i, kk); },
      [&](int j, int kk) { return value(b, p.k, j, kk); });
  int outside = 0;
  double worst = 0, worst_bound = 0;
  for (std::size_t i = 0; i < c.size(); ++i) {
    // Groups of 8 products per MFMA accumulation (16-bit inputs), one fp32 rounding per split in
    // the reduction, then bf16's rounding of C (2^-8 relative).
    const double acc = host::mfma_fp32_error_bound(p.k, 8, magnitude[i]) + ran.plan.splits * 0x1p-24 * magnitude[i];
    const double bound = acc + (std::fabs(exact[i]) + acc) * 0x1p-8;
    const double err = std::fabs(double(to_float(c[i])) - exact[i]);
    outside += !(err <= bound);
    if (err > worst) worst = err, worst_bound = bound;
  }
  std::printf("  largest error %.3g (its bound %.3g); %d outputs outside their bounds\n", worst, worst_bound, outside);
#if defined(WAVEKIT_EMULATOR)
  std::printf("  emulated in %.2f s; counters:\n  %s\n", seconds, emu::accumulated_counters().summary().c_str());
#else
  std::printf("  %.1f us (first call, includes launch), %.1f TFLOPS\n", seconds * 1e6,
              2e-12 * p.m * p.n * p.k / seconds);
#endif
  hipFree(da), hipFree(db), hipFree(dc), hipFree(workspace);
  std::printf("%s\n", outside ? "FAILED" : "ok");
  return outside ? cli::exit_mismatch : cli::exit_ok;
}

const char* const usage =
    "usage: gemm_half [M N K [k|mn]]\n"
    "Runs wavekit's half-precision GEMM C (M x N, bf16) = A (M x K) * B (N x K)^T, bf16 A and B, fp32\n"
    "accumulation, with the plan (tile config, K splits) it picks for the device; checks C against the\n"
    "host reference at the bound of the op's tests and prints the largest error beside it.\n"
    "  M N K   the shape (default 32 1024 2048); N a multiple of 16, K of 8\n"
    "  k       A [M][K], B [N][K] (default)\n"
    "  mn      A [K][M], B [K][N] (M a multiple of 16)";

}  // namespace

int main(int argc, char** argv) {
  const cli::command_line cmd(argc, argv, "gemm_half", usage);
  if (cmd.help_asked()) return cmd.print_help();
  if (cmd.count() != 0 && cmd.count() != 3 && cmd.count() != 4) return cmd.wrong_count("none, M N K or M N K k|mn");
  gh::problem p{32, 1024, 2048, layout::k_contiguous};
  if (cmd.count() >= 3 && !(cmd.read_int(1, "M", p.m) && cmd.read_int(2, "N", p.n) && cmd.read_int(3, "K", p.k)))
    return cli::exit_usage;
  if (cmd.count() == 4 && !cmd.read_order(4, "order", p.order)) return cli::exit_usage;
  // The op's own rules for this problem on this device, before anything is allocated.
  if (status s = gh::supports(p, arch::current_device_arch().kind); !s.ok()) return cli::refused(s);
  return run(p);
}
