// wavekit's skinny fp8 GEMM: a decode step's projection, C (M x N, fp16) = A (M x K) x B (N x K)^T
// with one fp32 scale for A and one for B, as Hugging Face's MI300X kernels and vLLM run it
// (torch._scaled_mm). On gfx942, M <= 8 runs the sparse MFMA's row pairs (no padding rows
// multiplied; docs/gemm-fp8-skinny.md), M 9-16 dense 16-row tiles. Each call is compared with the
// host reference (double over the fp8 values), the largest error beside the bound wavekit's tests
// use. On the CPU emulator it also prints the bytes read from the weights per weight byte (1.000:
// read once); on a GPU, the time.
//
//   gemm_fp8_skinny [m n k]   default: M = 4 and M = 12, 2304 x 4096 (Llama 405B TP8's QKV, K cut)
#include <hip/hip_runtime.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "wavekit/core/float_codec.hpp"
#include "wavekit/host/reference_gemm.hpp"
#include "wavekit/ops/gemm_fp8_scaled.hpp"

using namespace wavekit;
namespace gs = wavekit::ops::gemm_fp8_scaled;

namespace {

template <class U>
U* upload(const std::vector<U>& v) {
  U* d = nullptr;
  hipMalloc(&d, v.size() * sizeof(U));
  hipMemcpy(d, v.data(), v.size() * sizeof(U), hipMemcpyHostToDevice);
  return d;
}

// One problem: random fp8 operands, the call, the check. Returns the outputs outside the bound.
template <class Fp8>
int run(int m, int n, int k) {
  const gs::problem p{m, n, k, layout::k_contiguous, gs::scale_granularity::tensor, gs::scale_granularity::tensor};
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
  if (!need) {
    std::fprintf(stderr, "%s\n", need.error().message().c_str());
    std::exit(1);
  }
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
  if (!s.ok()) {
    std::fprintf(stderr, "%s\n", s.message().c_str());
    std::exit(1);
  }
  std::vector<fp16> got(std::size_t(m) * n);
  hipMemcpy(got.data(), c, got.size() * sizeof(fp16), hipMemcpyDeviceToHost);
  const auto value = [&](const std::vector<Fp8>& v, int row, int kk) {
    return double(to_float(v[std::size_t(row) * k + kk]));
  };
  const auto dot = host::reference_gemm_nt(
      m, n, k, [&](int i, int kk) { return value(a, i, kk); }, [&](int j, int kk) { return value(b, j, kk); });
  const auto abs_dot = host::reference_gemm_nt(
      m, n, k, [&](int i, int kk) { return std::fabs(value(a, i, kk)); },
      [&](int j, int kk) { return std::fabs(value(b, j, kk)); });
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
  return outside;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 1 && argc != 4) {
    std::fprintf(stderr, "usage: gemm_fp8_skinny [m n k]\n");
    return 2;
  }
  return arch::with_device_fp8([&](auto fp8_format) {
    using fp8 = decltype(fp8_format);
    if (argc == 4) return run<fp8>(std::atoi(argv[1]), std::atoi(argv[2]), std::atoi(argv[3])) ? 1 : 0;
    const int bad = run<fp8>(4, 2304, 4096) + run<fp8>(12, 2304, 4096);
    return bad ? 1 : 0;
  });
}
