// The epilogue slot with an fp8 C quantized 1x128 in the epilogue (block/epilogue_fused_1x128.hpp),
// composed with gemm_half's K loop as an op would: on values the GEMM computes exactly (small
// integers), C's bytes and scales are the host quantizer's (host/quantize_blockscale.hpp) bit for bit,
// with and without split-K, for tiles whose 128-column groups span 2 and 4 waves and for 16x16 and
// 32x32 MFMAs; on random values with GELU, within the bound of the values' own error.
#include <hip/hip_runtime.h>
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <random>
#include <span>
#include <vector>

#include "support/device_fp8.hpp"
#include "support/device_upload.hpp"
#include "support/fused_gemm.hpp"
#include "wavekit/block/epilogue_fused_1x128.hpp"
#include "wavekit/host/quantize_blockscale.hpp"
#include "wavekit/host/reference_gemm.hpp"

using namespace wavekit;
namespace gh = wavekit::ops::gemm_half;

namespace {

struct result_1x128 {
  std::vector<float> y;   // the reference's values (before quantization)
  std::vector<double> e;  // a bound on |device value - y|
  std::vector<std::uint8_t> q;
  std::vector<float> scales;
};

// C = Act(A B^T + bias) quantized 1x128 by config Cfg with `splits` K splits. exact: A, B small
// integers and the bias halves (every sum exact in fp32); otherwise normal values.
template <class Cfg, class Fp8, activation Act>
result_1x128 run(int m, int n, int k, int splits, bool exact, std::uint32_t seed) {
  using E = block::epilogue_fused_1x128<Fp8, Act, block::column_bias<float>>;
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::uniform_int_distribution<int> small(-3, 3);
  auto value = [&] { return exact ? float(small(rng)) : normal(rng); };
  std::vector<bf16> ha(std::size_t(m) * k), hb(std::size_t(n) * k);
  std::vector<float> xa(ha.size()), xb(hb.size()), bias(n);
  for (std::size_t i = 0; i < ha.size(); ++i) ha[i] = saturate_cast<bf16>(value()), xa[i] = to_float(ha[i]);
  for (std::size_t i = 0; i < hb.size(); ++i) hb[i] = saturate_cast<bf16>(value()), xb[i] = to_float(hb[i]);
  for (int j = 0; j < n; ++j) bias[j] = exact ? 0.5f * float(small(rng)) : 2.0f * normal(rng);
  bf16 *a = test::upload(ha), *b = test::upload(hb);
  float* d_bias = test::upload(bias);
  Fp8* c = nullptr;
  float *scales = nullptr, *partials = nullptr;
  hipMalloc(&c, std::size_t(m) * n), hipMemset(c, 0xAB, std::size_t(m) * n);
  hipMalloc(&scales, std::size_t(m) * n / 128 * 4), hipMemset(scales, 0xff, std::size_t(m) * n / 128 * 4);
  hipMalloc(&partials, std::size_t(splits) * m * n * 4);
  typename E::args out{{c, splits > 1 ? partials : nullptr}, {{d_bias}}, scales};
#if defined(WAVEKIT_EMULATOR)
  emu::reset_counters();
#endif
  test::run_fused_gemm<Cfg, E, Fp8>(
      a, b, out, m, n, k, splits, [](auto... r) { return block::launch_splitk_reduce_fused_1x128<E>(r..., nullptr); });
#if defined(WAVEKIT_EMULATOR)
  CHECK(emu::accumulated_counters().lds_bank_conflict_cycles == 0);  // the maxima's exchange included
#endif
  result_1x128 r;
  r.q.resize(std::size_t(m) * n), r.scales.resize(std::size_t(m) * n / 128);
  hipMemcpy(r.q.data(), c, r.q.size(), hipMemcpyDeviceToHost);
  hipMemcpy(r.scales.data(), scales, r.scales.size() * 4, hipMemcpyDeviceToHost);
  hipFree(a), hipFree(b), hipFree(d_bias), hipFree(c), hipFree(scales), hipFree(partials);

  const auto at_a = [&](int i, int kk) { return double(xa[std::size_t(i) * k + kk]); };
  const auto at_b = [&](int j, int kk) { return double(xb[std::size_t(j) * k + kk]); };
  const auto sum = host::reference_gemm_nt(m, n, k, at_a, at_b);
  const auto abs_sum = host::reference_gemm_nt(
      m, n, k, [&](int i, int kk) { return std::fabs(at_a(i, kk)); },
      [&](int j, int kk) { return std::fabs(at_b(j, kk)); });
  r.y.resize(sum.size()), r.e.resize(sum.size());
  for (std::size_t i = 0; i < sum.size(); ++i) {
    const double mag = abs_sum[i] + std::fabs(bias[i % n]);
    const double ev = host::mfma_fp32_error_bound(k, 8, abs_sum[i]) + (splits + 2) * 0x1p-24 * mag;
    r.y[i] = activate<Act>(float(sum[i]) + bias[i % n]);
    r.e[i] = exact ? 0.0 : 1.13 * ev + 0x1p-20 * (std::fabs(r.y[i]) + mag);
  }
  return r;
}

template <class Cfg, class Fp8>
void check_exact(int m, int n, int k, int splits) {
  INFO(Cfg::name() << " " << m << "x" << n << "x" << k << ", " << splits << " splits");
  const result_1x128 r = run<Cfg, Fp8, activation::relu>(m, n, k, splits, true, 5 + m + k);
  const auto want = host::quantize_fp8_1x128<Fp8>(std::span<const float>(r.y), m, n);
  int bad = 0;
  for (std::size_t i = 0; i < r.q.size(); ++i)
    if (r.q[i] != want.data[i].bits && bad++ < 5)
      std::printf("q[%zu][%zu] = 0x%02x, host 0x%02x\n", i / n, i % n, r.q[i], want.data[i].bits);
  for (std::size_t i = 0; i < r.scales.size(); ++i)
    if (r.scales[i] != want.scales[i] && bad++ < 10)
      std::printf("scale[%zu][%zu] = %.9g, host %.9g\n", i / (n / 128), i % (n / 128), r.scales[i], want.scales[i]);
  CHECK(bad == 0);
}

}  // namespace

TEST_CASE("epilogue_fused_1x128: bit for bit the host quantizer on exact values, groups over 2 and 4 waves",
          "[emu][gemm]") {
  test::with_device_fp8([&](auto fp8_format) {
    using fp8 = decltype(fp8_format);
    for (int splits : {1, 3}) {
      check_exact<gh::config_decode, fp8>(1, 256, 200, splits);  // 4 waves a group, 16x16 MFMAs
      check_exact<gh::config_decode, fp8>(17, 128, 64, splits);
      check_exact<gh::config_narrow, fp8>(63, 384, 136, splits);  // 2 waves a group
      check_exact<gh::config_large, fp8>(257, 128, 96, splits);   // 2 waves a group, 32x32 MFMAs
    }
  });
}

TEST_CASE("epilogue_fused_1x128: GELU on random values, each byte within its value's bound", "[emu][gemm]") {
  test::with_device_fp8([&](auto fp8_format) {
    using fp8 = decltype(fp8_format);
    for (int splits : {1, 2}) {
      const int m = 65, n = 256, k = 1000;
      const result_1x128 r = run<gh::config_medium, fp8, activation::gelu_tanh>(m, n, k, splits, false, 77);
      int bad = 0;
      for (int i = 0; i < m; ++i)
        for (int g = 0; g < n / 128; ++g) {
          double amax = 0.0, eg = 0.0;
          for (int j = g * 128; j < g * 128 + 128; ++j)
            amax = std::fmax(amax, std::fabs(r.y[std::size_t(i) * n + j])),
            eg = std::fmax(eg, r.e[std::size_t(i) * n + j]);
          const double scale = r.scales[std::size_t(i) * (n / 128) + g];
          // The scale is its group's amax (within the values' error) over the largest fp8 value.
          if (!(std::fabs(scale * element_limits<fp8>::max_finite - amax) <= eg + amax * 0x1p-22) && bad++ < 5)
            std::printf("row %d group %d: scale %.9g for amax %.9g\n", i, g, scale, amax);
          for (int j = g * 128; j < g * 128 + 128; ++j) {
            const std::size_t at = std::size_t(i) * n + j;
            const double got = to_float(fp8::from_bits(r.q[at])) * scale, y = r.y[at];
            const double bound =
                r.e[at] + (std::fabs(y) + r.e[at]) * 0x1p-4 + element_limits<fp8>::min_subnormal * scale / 2;
            if (!(std::fabs(got - y) <= bound) && bad++ < 5)
              std::printf("C[%d][%d] = %.8g, reference %.8g (bound %.3g)\n", i, j, got, y, bound);
          }
        }
      CHECK(bad == 0);
    }
  });
}
