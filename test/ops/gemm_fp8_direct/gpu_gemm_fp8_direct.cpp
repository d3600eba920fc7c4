// gemm_fp8_direct on a device: a real GPU (label gpu) or, once it lands, the CPU emulator.
// Random fp8 operands in the device's format (fnuz on gfx942, OCP on gfx950), compared with the
// double-precision host reference at the bound of host::mfma_fp32_error_bound.
// Exits 77 (ctest: skipped) when no gfx942/gfx950 device is present.
#include <hip/hip_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "wavekit/arch/device.hpp"
#include "wavekit/core/gemm_view.hpp"
#include "wavekit/host/reference_gemm.hpp"
#include "wavekit/ops/gemm_fp8_direct/kernel.hpp"

using namespace wavekit;

#define CHECK_HIP(expr)                                                                         \
  do {                                                                                          \
    if (hipError_t e = (expr); e != hipSuccess) {                                               \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #expr, hipGetErrorString(e)); \
      return 1;                                                                                 \
    }                                                                                           \
  } while (0)

// exact: operands are small integers, so every partial sum is exact in fp32 and the result must
// equal the reference bit for bit; otherwise normal values, within host::mfma_fp32_error_bound.
template <class fp8>
int run_case(int m, int n, int k, std::uint32_t seed, bool exact = false) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> dist(0.0f, 2.0f);
  std::uniform_int_distribution<int> small(-2, 2);
  std::vector<fp8> a(std::size_t(m) * k), b(std::size_t(n) * k);
  for (auto& v : a) v = saturate_cast<fp8>(exact ? float(small(rng)) : dist(rng));
  for (auto& v : b) v = saturate_cast<fp8>(exact ? float(small(rng)) : dist(rng));

  fp8 *da = nullptr, *db = nullptr;
  float* dc = nullptr;
  CHECK_HIP(hipMalloc(&da, a.size()));
  CHECK_HIP(hipMalloc(&db, b.size()));
  CHECK_HIP(hipMalloc(&dc, sizeof(float) * m * n));
  CHECK_HIP(hipMemcpy(da, a.data(), a.size(), hipMemcpyHostToDevice));
  CHECK_HIP(hipMemcpy(db, b.data(), b.size(), hipMemcpyHostToDevice));
  const status s = ops::gemm_fp8_direct::launch<fp8>({da, db, dc, m, n, k}, nullptr);
  if (!s.ok()) {
    std::fprintf(stderr, "launch failed: %s\n", s.message().c_str());
    return 1;
  }
  std::vector<float> c(std::size_t(m) * n);
  CHECK_HIP(hipMemcpy(c.data(), dc, sizeof(float) * c.size(), hipMemcpyDeviceToHost));
  CHECK_HIP(hipFree(da));
  CHECK_HIP(hipFree(db));
  CHECK_HIP(hipFree(dc));

  auto av = [&](int i, int kk) { return double(to_float(a[std::size_t(i) * k + kk])); };
  auto bv = [&](int j, int kk) { return double(to_float(b[std::size_t(j) * k + kk])); };
  const std::vector<double> ref = host::reference_gemm_nt(m, n, k, av, bv);
  int bad = 0;
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double sum_abs = 0.0;
      for (int kk = 0; kk < k; ++kk) sum_abs += std::fabs(av(i, kk) * bv(j, kk));
      const double err = std::fabs(double(c[std::size_t(i) * n + j]) - ref[std::size_t(i) * n + j]);
      const double bound = exact ? 0.0 : host::mfma_fp32_error_bound(k, 16, sum_abs);
      if (err > bound && bad++ < 5)
        std::fprintf(stderr, "C[%d][%d] = %.9g, reference %.9g\n", i, j, c[std::size_t(i) * n + j],
                     ref[std::size_t(i) * n + j]);
    }
  std::printf("%s %dx%dx%d%s: %s\n", ops::gemm_fp8_direct::op<fp8>::name().c_str(), m, n, k, exact ? " (exact)" : "",
              bad ? "FAILED" : "ok");
  return bad ? 1 : 0;
}

// A batch of views: A's GEMMs stacked with padded rows, one B shared by every GEMM, C's GEMMs
// interleaved in its rows (heads side by side). Each GEMM's C against the reference within the
// bound, and C's elements outside the views keep their fill (NaN bits).
template <class fp8>
int run_view_case(std::uint32_t seed) {
  constexpr int m = 64, n = 32, k = 80, heads = 3, lda = k + 16, width = 40;
  const ops::gemm_fp8_direct::problem p{m, n, k, {lda, 0, heads * width}, {heads, std::int64_t(m) * lda, 0, width}};
  const gemm_views v = p.views();
  std::mt19937 rng(seed);
  std::normal_distribution<float> dist(0.0f, 2.0f);
  std::vector<fp8> a(std::size_t((heads - 1) * p.batch.a + v.a_extent)), b(std::size_t(v.b_extent));
  for (auto& x : a) x = saturate_cast<fp8>(dist(rng));
  for (auto& x : b) x = saturate_cast<fp8>(dist(rng));
  const std::size_t c_count = std::size_t(v.c_batch_extent(p.batch));
  fp8 *da = nullptr, *db = nullptr;
  float* dc = nullptr;
  CHECK_HIP(hipMalloc(&da, a.size()));
  CHECK_HIP(hipMalloc(&db, b.size()));
  CHECK_HIP(hipMalloc(&dc, sizeof(float) * c_count));
  CHECK_HIP(hipMemcpy(da, a.data(), a.size(), hipMemcpyHostToDevice));
  CHECK_HIP(hipMemcpy(db, b.data(), b.size(), hipMemcpyHostToDevice));
  CHECK_HIP(hipMemset(dc, 0xff, sizeof(float) * c_count));
  const status s = ops::gemm_fp8_direct::launch<fp8>({da, db, dc, m, n, k, p.strides, p.batch}, nullptr);
  if (!s.ok()) {
    std::fprintf(stderr, "launch failed: %s\n", s.message().c_str());
    return 1;
  }
  std::vector<float> c(c_count);
  CHECK_HIP(hipMemcpy(c.data(), dc, sizeof(float) * c_count, hipMemcpyDeviceToHost));
  CHECK_HIP(hipFree(da));
  CHECK_HIP(hipFree(db));
  CHECK_HIP(hipFree(dc));
  int bad = 0;
  std::vector<bool> in_view(c_count, false);
  for (int g = 0; g < heads; ++g) {
    auto av = [&](int i, int kk) { return double(to_float(a[std::size_t(g * p.batch.a + i * lda + kk)])); };
    auto bv = [&](int j, int kk) { return double(to_float(b[std::size_t(j) * k + kk])); };
    const std::vector<double> ref = host::reference_gemm_nt(m, n, k, av, bv);
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) {
        double sum_abs = 0.0;
        for (int kk = 0; kk < k; ++kk) sum_abs += std::fabs(av(i, kk) * bv(j, kk));
        const std::size_t at = std::size_t(g * p.batch.c + i * v.ldc + j);
        in_view[at] = true;
        const double err = std::fabs(double(c[at]) - ref[std::size_t(i) * n + j]);
        bad += !(err <= host::mfma_fp32_error_bound(k, 16, sum_abs));
      }
  }
  int written_outside = 0;
  for (std::size_t e = 0; e < c_count; ++e) {
    std::uint32_t bits;
    std::memcpy(&bits, &c[e], 4);
    written_outside += !in_view[e] && bits != 0xffffffffu;
  }
  std::printf("%s %dx%dx%d%s: %s\n", ops::gemm_fp8_direct::op<fp8>::name().c_str(), m, n, k,
              to_string(p.strides, p.batch).c_str(), bad || written_outside ? "FAILED" : "ok");
  return bad || written_outside ? 1 : 0;
}

template <class fp8>
int run_all() {
  int failures = 0;
  failures += run_case<fp8>(32, 32, 16, 1);         // one tile, one K step
  failures += run_case<fp8>(64, 96, 528, 2);        // K not a multiple of 64
  failures += run_case<fp8>(256, 128, 2048, 3);     // many tiles
  failures += run_case<fp8>(96, 64, 512, 4, true);  // identical to the reference
  failures += run_view_case<fp8>(5);
  // Bad input is refused before launch.
  const status s = ops::gemm_fp8_direct::launch<fp8>({nullptr, nullptr, nullptr, 32, 32, 16}, nullptr);
  if (s.code() != status_code::null_pointer) ++failures;
  return failures ? 1 : 0;
}

int main() {
  const arch::device_arch device = arch::current_device_arch();
  if (device.name.empty()) {
    std::printf("no GPU: skipped\n");
    return 77;
  }
  if (device.kind == arch::target::host) {
    std::printf("device is %s, not gfx942/gfx950: skipped\n", device.name.c_str());
    return 77;
  }
  return arch::with_device_fp8([](auto fp8_format) { return run_all<decltype(fp8_format)>(); });
}
