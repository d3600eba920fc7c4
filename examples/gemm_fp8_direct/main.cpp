// wavekit's smallest complete MFMA kernel on one problem: C (M x N, fp32) = A (M x K) x B (N x K)^T
// with fp8 A and B stored K-contiguous and no scales, one wave per 32x32 tile of C, each lane
// loading its operands straight from global memory with v_mfma_f32_32x32x16_fp8_fp8 (no LDS, no
// plan: docs/gemm-fp8-direct.md). Random operands in the fp8 format the device reads, the result
// against the host reference (double over the fp8 values), the largest error beside the bound the
// op's device test uses (host::mfma_fp32_error_bound over groups of 16 products; C is fp32, so
// nothing rounds after the accumulator). On the CPU emulator it also prints the MFMAs counted; on
// a GPU, the time.
//
//   gemm_fp8_direct [M N K]   default: 128 256 1024; M and N multiples of 32, K of 16
//   gemm_fp8_direct --help    usage and exit codes (examples/common/cli.hpp)
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
#include "wavekit/host/reference_gemm.hpp"
#include "wavekit/ops/gemm_fp8_direct.hpp"

using namespace wavekit;
namespace gd = wavekit::ops::gemm_fp8_direct;

namespace {

using example::upload;

// p: a problem gd::supports<Fp8> accepted on this device.
template <class Fp8>
int run(const gd::problem& p) {
  std::mt19937 rng(3);
  std::normal_distribution<float> normal(0.0f, 2.0f);
  std::vector<Fp8> a(std::size_t(p.m) * p.k), b(std::size_t(p.n) * p.k);  // [M][K], [N][K]
  for (Fp8& x : a) x = saturate_cast<Fp8>(normal(rng));
  for (Fp8& x : b) x = saturate_cast<Fp8>(normal(rng));
  Fp8 *da = upload(a), *db = upload(b);
  float* dc = nullptr;
  hipMalloc(&dc, std::size_t(p.m) * p.n * sizeof(float));

  std::printf("%s %dx%dx%d\n", gd::op<Fp8>::name().c_str(), p.m, p.n, p.k);
  std::fflush(stdout);
#if defined(WAVEKIT_EMULATOR)
  emu::reset_counters();
#endif
  const auto start = std::chrono::steady_clock::now();
  const status s = gd::launch<Fp8>({da, db, dc, p.m, p.n, p.k}, nullptr);
  hipDeviceSynchronize();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!s.ok()) return cli::launch_failed(s);
  std::vector<float> c(std::size_t(p.m) * p.n);
  hipMemcpy(c.data(), dc, c.size() * sizeof(float), hipMemcpyDeviceToHost);

  // The reference, and the magnitude sum_k |a b| its bound scales with.
  const auto value = [](const std::vector<Fp8>& v, int k, int row, int kk) {
    return double(to_float(v[std::size_t(row) * k + kk]));
  };
  const auto [exact, magnitude] = example::reference_and_magnitude(
      p.m, p.n, p.k, [&](int i, int kk) { return value(a, p.k, i, kk); },
      [&](int j, int kk) { return value(b, p.k, j, kk); });
  int outside = 0;
  double worst = 0, worst_bound = 0;
  for (std::size_t i = 0; i < c.size(); ++i) {
    const double bound = host::mfma_fp32_error_bound(p.k, 16, magnitude[i]);
    const double err = std::fabs(double(c[i]) - exact[i]);
    outside += !(err <= bound);
    if (err > worst) worst = err, worst_bound = bound;
  }
  std::printf("  largest error %.3g (its bound %.3g); %d outputs outside their bounds\n", worst, worst_bound, outside);
#if defined(WAVEKIT_EMULATOR)
  // Its loads are plain global loads, which the emulator does not count as buffer bytes; its MFMAs
  // it does: one per 32x32 tile and 16-K step.
  std::printf("  emulated in %.2f s; %llu v_mfma_f32_32x32x16_fp8_fp8 (tiles x K steps: %ld)\n", seconds,
              static_cast<unsigned long long>(emu::accumulated_counters().mfma_of("v_mfma_f32_32x32x16_fp8_fp8")),
              long(p.m / 32) * (p.n / 32) * (p.k / 16));
#else
  std::printf("  %.1f us (first call, includes launch), %.1f TFLOPS\n", seconds * 1e6,
              2e-12 * p.m * p.n * p.k / seconds);
#endif
  hipFree(da), hipFree(db), hipFree(dc);
  std::printf("%s\n", outside ? "FAILED" : "ok");
  return outside ? cli::exit_mismatch : cli::exit_ok;
}

const char* const usage =
    "usage: gemm_fp8_direct [M N K]\n"
    "Runs wavekit's direct fp8 GEMM C (M x N, fp32) = A (M x K) * B (N x K)^T, fp8 A and B in the format\n"
    "the device reads (e4m3fnuz on gfx942, OCP e4m3fn on gfx950), no scales, one wave per 32x32 tile;\n"
    "checks C against the host reference at the bound of the op's device test.\n"
    "  M N K   the shape (default 128 256 1024); M and N multiples of 32, K of 16";

}  // namespace

int main(int argc, char** argv) {
  const cli::command_line cmd(argc, argv, "gemm_fp8_direct", usage);
  if (cmd.help_asked()) return cmd.print_help();
  if (cmd.count() != 0 && cmd.count() != 3) return cmd.wrong_count("none or M N K");
  gd::problem p{128, 256, 1024};
  if (cmd.count() == 3 && !(cmd.read_int(1, "M", p.m) && cmd.read_int(2, "N", p.n) && cmd.read_int(3, "K", p.k)))
    return cli::exit_usage;

  // The device, and the fp8 format its matrix cores read: fnuz on gfx942, OCP on gfx950.
  const arch::target device = arch::current_device_arch().kind;
  return cli::with_fp8_of(device, [&](auto fp8_format) {
    using Fp8 = decltype(fp8_format);
    // The op's own rules for this problem on this device, before anything is allocated.
    if (status s = gd::supports<Fp8>(p, device); !s.ok()) return cli::refused(s);
    return run<Fp8>(p);
  });
}
