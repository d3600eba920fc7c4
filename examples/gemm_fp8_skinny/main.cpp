// wavekit's skinny fp8 GEMM: a decode step's projection, C (M x N, fp16) = A (M x K) x B (N x K)^T
// with one fp32 scale for A and one for B, as Hugging Face's MI300X kernels and vLLM run it
// (torch._scaled_mm). On gfx942, M <= 8 runs the sparse MFMA's row pairs (no padding rows
// multiplied; docs/gemm-fp8-skinny.md), M 9-16 dense 16-row tiles. Each call is compared with the
// host reference (double over the fp8 values), the largest error beside the bound wavekit's tests
// use. On the CPU emulator it also prints the bytes read from the weights per weight byte (1.000:
// read once); on a GPU, the time.
//
//   gemm_fp8_skinny [m n k]   default: M = 4 and M = 12, 2304 x 4096 (Llama 405B TP8's QKV, K cut)
//   gemm_fp8_skinny --help    usage and exit codes (examples/common/cli.hpp)
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
#include "wavekit/ops/gemm_fp8_scaled.hpp"

using namespace wavekit;
namespace gs = wavekit::ops::gemm_fp8_scaled;

namespace {

using example::upload;

// The problem: K-contiguous A and B, one fp32 scale each.
gs::problem problem_of(int m, int n, int k) {
  return {m, n, k, layout::k_contiguous, gs::scale_granularity::tensor, gs::scale_granularity::tensor};
}

// One problem gs::supports<Fp8> accepted on this device: random fp8 operands, the call, the
// check. Returns the exit code (examples/common/cli.hpp).
template <class Fp8>
int run(const gs::problem& p) {
  const int m = p.m, n = p.n, k = p.k;
  std::mt19937 rng(m * 7919 + n);
  std::normal_distribution<float> normal(0.0f, 1.5f);
  std::vector<Fp8> a(std::size_t(m) * k), b(std::size_t(n) * k);
  for (auto& x : a) x = saturate_cast<Fp8>(normal(rng));
  for (auto& x : b) x = saturate_cast<Fp8>(normal(rng));
  const std::vector<float> scales{0.05f, 0.02f};
  Fp8 *da = upload(a), *db = upload(b);
  float *sa = upload(std::vector<float>{scales[0]}), *sb = upload(std::vector<float>{scales[1]});
  fp16* c = nullptr;
  hipMalloc(&c, std::size_t(m) * n * sizeof(fp16));
  const result<std::size_t> need =
      wavekit::gemm_fp8_scaled_workspace_bytes<gs::args<Fp8, fp16>>(p);  // also validates the shape
  if (!need) return cli::refused(need.error());
  const std::size_t ws = need.value();
  void* workspace = nullptr;
  if (ws) hipMalloc(&workspace, ws);
  const gs::args<Fp8, fp16> args{da, db, sa, sb, c, workspace, ws};

#if defined(WAVEKIT_EMULATOR)
  emu::reset_counters();
#endif
  gs::plan_info ran;
  const auto start = std::chrono::steady_clock::now();
  const status s = wavekit::gemm_fp8_scaled(p, args, nullptr, &ran);
  hipDeviceSynchronize();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!s.ok()) return cli::launch_failed(s);
  std::vector<fp16> got(std::size_t(m) * n);
  hipMemcpy(got.data(), c, got.size() * sizeof(fp16), hipMemcpyDeviceToHost);
  const auto value = [&](const std::vector<Fp8>& v, int row, int kk) {
    return double(to_float(v[std::size_t(row) * k + kk]));
  };
  const auto [dot, abs_dot] = example::reference_and_magnitude(
      m, n, k, [&](int i, int kk) { return value(a, i, kk); }, [&](int j, int kk) { return value(b, j, kk); });
  const double scale = double(scales[0]) * scales[1];
  int outside = 0;
  double worst = 0, worst_bound = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double e = dot[i] * scale, g = to_float(got[i]);
    // MFMA accumulation and split-K / row-pair roundings, then fp16's rounding of C.
    const double acc =
        (host::mfma_fp32_error_bound(k, 16, abs_dot[i]) + (ran.plan.splits + 1) * 0x1p-24 * abs_dot[i]) * scale +
        2 * 0x1p-24 * std::fabs(e);
    const double bound = acc + (std::fabs(e) + acc) * 0x1p-11;
    if (std::fabs(g - e) > worst) worst = std::fabs(g - e), worst_bound = bound;
    outside += !(std::fabs(g - e) <= bound);
  }
  std::printf("M = %d: %dx%dx%d via %s: largest error %.3g (its bound %.3g), %d outputs outside\n", m, m, n, k,
              ran.name.c_str(), worst, worst_bound, outside);
#if defined(WAVEKIT_EMULATOR)
  const auto& counters = emu::accumulated_counters();
  std::printf("  weights read %.3f times; all reads %.3f x A, B and C once\n",
              double(counters.bytes_read_from(db)) / double(b.size()),
              double(counters.global_bytes_read) / (double(a.size()) + double(b.size()) + 2.0 * m * n));
#else
  std::printf("  %.1f us (first call, including launch)\n", seconds * 1e6);
#endif
  (void)seconds;
  hipFree(da), hipFree(db), hipFree(sa), hipFree(sb), hipFree(c), hipFree(workspace);
  return outside ? cli::exit_mismatch : cli::exit_ok;
}

const char* const usage =
    "usage: gemm_fp8_skinny [m n k]\n"
    "Runs wavekit's scaled fp8 GEMM C (m x n, fp16) = A (m x k) * B (n x k)^T with one fp32 scale for A and\n"
    "one for B (torch._scaled_mm's form), K-contiguous, and checks it against the host reference. On gfx942\n"
    "m <= 8 runs the sparse MFMA's row pairs, m 9 to 16 dense 16-row tiles.\n"
    "  m n k   one shape (default: two, m = 4 and m = 12, with n = 2304 and k = 4096, Llama 405B TP8's QKV\n"
    "          projection with K cut)";

}  // namespace

int main(int argc, char** argv) {
  const cli::command_line cmd(argc, argv, "gemm_fp8_skinny", usage);
  if (cmd.help_asked()) return cmd.print_help();
  if (cmd.count() != 0 && cmd.count() != 3) return cmd.wrong_count("none or m n k");
  std::vector<gs::problem> problems{problem_of(4, 2304, 4096), problem_of(12, 2304, 4096)};
  if (cmd.count() == 3) {
    int m = 0, n = 0, k = 0;
    if (!(cmd.read_int(1, "m", m) && cmd.read_int(2, "n", n) && cmd.read_int(3, "k", k))) return cli::exit_usage;
    problems = {problem_of(m, n, k)};
  }

  // The device, and the fp8 format its matrix cores read: fnuz on gfx942, OCP on gfx950.
  const arch::target device = arch::current_device_arch().kind;
  return cli::with_fp8_of(device, [&](auto fp8_format) {
    using Fp8 = decltype(fp8_format);
    // The op's own rules for every problem on this device, before anything is allocated.
    for (const gs::problem& p : problems)
      if (status s = gs::supports<Fp8>(p, device); !s.ok()) return cli::refused(s);
    int code = cli::exit_ok;
    for (const gs::problem& p : problems)
      if (const int c = run<Fp8>(p); c != cli::exit_ok) code = c;
    return code;
  });
}
