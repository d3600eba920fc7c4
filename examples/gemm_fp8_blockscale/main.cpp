// wavekit's block-scaled fp8 GEMM on one problem: quantize random A and B (1x128 and 128x128
// fp32 scales), run wavekit::gemm_fp8_blockscale, compare with the host reference, and print the
// error beside the bound it must meet. On the CPU emulator it also prints the launches'
// counters; on a GPU, the time.
//
//   gemm_fp8_blockscale [M N K [mn|k]]     default: 64 1536 7168 mn (an amd-fp8-mm test shape)
//   gemm_fp8_blockscale --help             usage and exit codes (examples/common/cli.hpp)
#include <hip/hip_runtime.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "cli.hpp"
#include "wavekit/arch/device.hpp"
#include "wavekit/host/quantize_blockscale.hpp"
#include "wavekit/host/reference_gemm_fp8_blockscale.hpp"
#include "wavekit/host/transpose.hpp"
#include "wavekit/ops/gemm_fp8_blockscale.hpp"

using namespace wavekit;
namespace gb = wavekit::ops::gemm_fp8_blockscale;

// p: a problem gb::supports<Fp8> accepted on this device.
template <class Fp8>
int run(const gb::problem& p) {
  hipDeviceProp_t prop;
  if (hipGetDeviceProperties(&prop, 0) == hipSuccess) std::printf("device: %s (%s)\n", prop.name, prop.gcnArchName);
  // Operands in the problem's storage order, quantized on the host.
  std::mt19937 rng(8135);
  std::normal_distribution<float> dist(0.0f, 1.0f);
  std::vector<float> xa(std::size_t(p.m) * p.k), xb(std::size_t(p.n) * p.k);
  for (float& v : xa) v = dist(rng);
  for (float& v : xb) v = dist(rng);
  auto qa = host::quantize_fp8_1x128<Fp8>(xa, p.m, p.k);
  auto qb = host::quantize_fp8_128x128<Fp8>(xb, p.n, p.k);
  std::vector<Fp8> a = qa.data, b = qb.data;
  std::vector<float> as = qa.scales, bs = qb.scales;
  if (p.order == layout::mn_contiguous) {
    a = host::transposed(qa.data, p.m, p.k), b = host::transposed(qb.data, p.n, p.k);
    as = host::transposed(qa.scales, p.m, p.k_groups()), bs = host::transposed(qb.scales, p.n_groups(), p.k_groups());
  }
  Fp8 *da, *db;
  float *das, *dbs;
  bf16* dc;
  void* workspace = nullptr;
  const result<std::size_t> wanted = gemm_fp8_blockscale_workspace_bytes<ops::gemm_fp8_blockscale::args<Fp8>>(p);
  if (!wanted) return cli::refused(wanted.error());
  const std::size_t workspace_bytes = wanted.value();
  hipMalloc(&da, a.size()), hipMalloc(&db, b.size());
  hipMalloc(&das, as.size() * 4), hipMalloc(&dbs, bs.size() * 4);
  hipMalloc(&dc, std::size_t(p.m) * p.n * 2);
  if (workspace_bytes) hipMalloc(&workspace, workspace_bytes);
  hipMemcpy(da, a.data(), a.size(), hipMemcpyHostToDevice);
  hipMemcpy(db, b.data(), b.size(), hipMemcpyHostToDevice);
  hipMemcpy(das, as.data(), as.size() * 4, hipMemcpyHostToDevice);
  hipMemcpy(dbs, bs.data(), bs.size() * 4, hipMemcpyHostToDevice);

  const gb::args<Fp8> args{da, db, das, dbs, dc, workspace, workspace_bytes};
  std::printf("gemm_fp8_blockscale %s\n", p.str().c_str());
  std::fflush(stdout);
#if defined(WAVEKIT_EMULATOR)
  emu::reset_counters();
#endif
  const auto start = std::chrono::steady_clock::now();
  gb::plan_info ran;
  const status s = gemm_fp8_blockscale(p, args, nullptr, &ran);
  hipDeviceSynchronize();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!s.ok()) return cli::launch_failed(s);
  std::printf("  plan: %s, workspace %zu bytes\n", ran.name.c_str(), ran.workspace_bytes);
  std::vector<bf16> c(std::size_t(p.m) * p.n);
  hipMemcpy(c.data(), dc, c.size() * 2, hipMemcpyDeviceToHost);

  const host::blockscale_reference ref =
      host::reference_gemm_fp8_blockscale(p, a.data(), b.data(), as.data(), bs.data());
  const int splits = ran.plan.splits;
  double worst_abs = 0, worst_vs_bound = 0;
  long outside = 0;
  for (std::size_t i = 0; i < c.size(); ++i) {
    const double err = std::fabs(double(to_float(c[i])) - ref.c[i]);
    worst_abs = std::fmax(worst_abs, err);
    worst_vs_bound =
        std::fmax(worst_vs_bound, err / host::blockscale_error_bound(ref.abs_sum[i], ref.c[i], p.k, splits));
    outside += err > 1e-3 + 2e-2 * std::fabs(ref.c[i]);
  }
  std::printf("  max |error| %.3g; max error / computed bound %.3f; outside rtol 2e-2 atol 1e-3: %ld of %zu\n",
              worst_abs, worst_vs_bound, outside, c.size());
#if defined(WAVEKIT_EMULATOR)
  std::printf("  emulated in %.2f s (%.2f GFLOP/s); counters:\n  %s\n", seconds, 2e-9 * p.m * p.n * p.k / seconds,
              emu::accumulated_counters().summary().c_str());
#else
  std::printf("  %.1f us (first call, includes launch), %.1f TFLOPS\n", seconds * 1e6,
              2e-12 * p.m * p.n * p.k / seconds);
#endif
  hipFree(da), hipFree(db), hipFree(das), hipFree(dbs), hipFree(dc), hipFree(workspace);
  const bool ok = worst_vs_bound <= 1.0 && outside == 0;
  std::printf("%s\n", ok ? "ok" : "FAILED");
  return ok ? cli::exit_ok : cli::exit_mismatch;
}

const char* const usage =
    "usage: gemm_fp8_blockscale [M N K [mn|k]]\n"
    "Runs wavekit's block-scaled fp8 GEMM C (M x N, bf16) = A (M x K) * B (N x K)^T with 1x128 A and 128x128\n"
    "B fp32 scales, checks it against the host reference and prints the error beside its computed bound.\n"
    "  M N K   the shape (default 64 1536 7168, an amd-fp8-mm test shape); N a multiple of 16, K of 128\n"
    "  mn      A [K][M], B [K][N], the amd-fp8-mm reference order (default; M a multiple of 16)\n"
    "  k       A [M][K], B [N][K]\n"
    "On the CPU emulator it also prints the launch counters; it emulates about 1 GFLOP/s per core\n"
    "(the default shape takes a few seconds on 2 cores, M = N = K = 4096 a few minutes).";

int main(int argc, char** argv) {
  const cli::command_line cmd(argc, argv, "gemm_fp8_blockscale", usage);
  if (cmd.help_asked()) return cmd.print_help();
  if (cmd.count() != 0 && cmd.count() != 3 && cmd.count() != 4) return cmd.wrong_count("none, M N K or M N K mn|k");
  gb::problem p{64, 1536, 7168, layout::mn_contiguous};
  if (cmd.count() >= 3 && !(cmd.read_int(1, "M", p.m) && cmd.read_int(2, "N", p.n) && cmd.read_int(3, "K", p.k)))
    return cli::exit_usage;
  if (cmd.count() == 4 && !cmd.read_order(4, "order", p.order)) return cli::exit_usage;

  // The device, and the fp8 format its matrix cores read: fnuz on gfx942, OCP on gfx950.
  const arch::target device = arch::current_device_arch().kind;
  return cli::with_fp8_of(device, [&](auto fp8_format) {
    using Fp8 = decltype(fp8_format);
    // The op's own rules for this problem on this device, before anything is allocated.
    if (status s = gb::supports<Fp8>(p, device); !s.ok()) return cli::refused(s);
    return run<Fp8>(p);
  });
}
