// The glue ops' census, in the report's forms (fp16 in, the device's fp8 out per tensor,
// K-contiguous; RMSNorm adding the residual): rmsnorm_quant on two rows of the report's hidden
// 16384 and swiglu_quant on two of its d 8192, each checked bit for bit against its host reference
// (SwiGLU's given the emulator's model of the device's expf, as the op's test does).
#include <cmath>
#include <cstdint>
#include <random>
#include <span>
#include <vector>

#include "lds_census/census.hpp"
#include "perf_model/report_config_names.hpp"
#include "support/device_upload.hpp"
#include "support/fp8_rows_check.hpp"
#include "wavekit/emu/device_math.hpp"
#include "wavekit/host/reference_rmsnorm_quant.hpp"
#include "wavekit/host/reference_swiglu_quant.hpp"
#include "wavekit/ops/rmsnorm_quant.hpp"
#include "wavekit/ops/swiglu_quant.hpp"

namespace wavekit::lds_census {

namespace {

// n values of T around 0 with magnitudes from 2^-3 to 2^3 (offset: added, for RMSNorm's weight).
template <class T>
std::vector<T> random_values(std::size_t n, std::uint32_t seed, float offset = 0.0f) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::uniform_int_distribution<int> exponent(-3, 3);
  std::vector<T> v(n);
  for (T& e : v) e = saturate_cast<T>(offset + std::ldexp(normal(rng), exponent(rng)));
  return v;
}

template <class Fp8>
std::vector<Fp8> download_fp8(const Fp8* d, std::size_t n) {
  std::vector<Fp8> v(n);
  hipMemcpy(v.data(), d, n, hipMemcpyDeviceToHost);
  return v;
}

template <class Fp8>
void rmsnorm(entries& out) {
  namespace rq = ops::rmsnorm_quant;
  const rq::problem p{2, 16384, scale_granularity::tensor, layout::k_contiguous, rq::residual_mode::add};
  const std::size_t n = std::size_t(p.tokens) * p.hidden;
  const float scale = 0.02f, eps = 1e-5f;
  const std::vector<fp16> x = random_values<fp16>(n, 1), residual = random_values<fp16>(n, 2),
                          weight = random_values<fp16>(p.hidden, 3, 1.0f);
  fp16 *d_x = test::upload(x), *d_residual = test::upload(residual), *d_weight = test::upload(weight);
  Fp8* d_q = test::upload(std::vector<Fp8>(n, Fp8::from_bits(0xAB)));  // a code no output keeps by chance
  const rq::args<fp16, Fp8> a{d_x, d_residual, d_weight, d_q, nullptr, scale, eps};
  measure(
      out, "rmsnorm_quant", perf_report::row_workgroup_config(rq::row_threads), p.str() + ", fp16",
      [&] { return wavekit::rmsnorm_quant(p, a, nullptr); },
      [&] {
        const auto ref = host::reference_rmsnorm_quant<fp16, Fp8>(x, residual, weight, p.tokens, p.hidden, eps,
                                                                  p.out_scales, scale, rq::row_threads);
        std::vector<fp16> got_residual(n);
        hipMemcpy(got_residual.data(), d_residual, n * sizeof(fp16), hipMemcpyDeviceToHost);
        long bad = test::compare_fp8_rows(ref.out, download_fp8(d_q, n), {}, p.order).codes;
        for (std::size_t i = 0; i < n; ++i) bad += got_residual[i].bits != ref.residual[i].bits;
        return static_cast<int>(bad);
      });
  hipFree(d_x), hipFree(d_residual), hipFree(d_weight), hipFree(d_q);
}

template <class Fp8>
void swiglu(entries& out) {
  namespace sq = ops::swiglu_quant;
  const sq::problem p{2, 8192, scale_granularity::tensor, layout::k_contiguous};
  const std::size_t n = std::size_t(p.tokens) * p.d;
  const float scale = 0.02f;
  const std::vector<fp16> x = random_values<fp16>(2 * n, 4);  // [tokens][gate | up]
  fp16* d_x = test::upload(x);
  Fp8* d_q = test::upload(std::vector<Fp8>(n, Fp8::from_bits(0xAB)));  // a code no output keeps by chance
  const sq::args<fp16, Fp8> a{d_x, d_q, nullptr, scale};
  measure(
      out, "swiglu_quant", perf_report::row_workgroup_config(sq::row_threads), p.str() + ", fp16",
      [&] { return wavekit::swiglu_quant(p, a, nullptr); },
      [&] {
        const auto ref = host::reference_swiglu_quant<fp16, Fp8>(x, p.tokens, p.d, p.out_scales, scale,
                                                                 [](float v) { return emu::device_math::expf(v); });
        return static_cast<int>(test::compare_fp8_rows(ref.out, download_fp8(d_q, n), {}, p.order).codes);
      });
  hipFree(d_x), hipFree(d_q);
}

// Each op its own census, in the device's fp8 format.
const registration registered_rmsnorm{
    "rmsnorm_quant", "rmsnorm_quant",
    [](entries& out) { arch::with_device_fp8([&](auto fp8_format) { rmsnorm<decltype(fp8_format)>(out); }); }};
const registration registered_swiglu{
    "swiglu_quant", "swiglu_quant",
    [](entries& out) { arch::with_device_fp8([&](auto fp8_format) { swiglu<decltype(fp8_format)>(out); }); }};

}  // namespace

}  // namespace wavekit::lds_census
