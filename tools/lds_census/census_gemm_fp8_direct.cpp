// gemm_fp8_direct's census: the one-wave-a-tile fp8 GEMM (the device's fp8, fp32 C) on 2 x 2 tiles
// of sixteen K steps, against the host reference at host::mfma_fp32_error_bound. It reads its
// operands straight from global memory: the census confirms it issues no LDS instruction.
#include <cmath>
#include <random>
#include <vector>

#include "lds_census/census.hpp"
#include "perf_model/report_config_names.hpp"
#include "support/device_upload.hpp"
#include "wavekit/host/reference_gemm.hpp"
#include "wavekit/ops/gemm_fp8_direct.hpp"

namespace wavekit::lds_census {

namespace {

void census_gemm_fp8_direct(entries& out) {
  namespace gd = ops::gemm_fp8_direct;
  arch::with_device_fp8([&](auto fp8_format) {
    using fp8 = decltype(fp8_format);
    using op = gd::op<fp8>;
    const int m = 2 * op::tile_m, n = 2 * op::tile_n, k = 16 * op::tile_k;
    std::mt19937 rng(1);
    std::normal_distribution<float> normal(0.0f, 2.0f);
    std::vector<fp8> a(std::size_t(m) * k), b(std::size_t(n) * k);
    for (fp8& v : a) v = saturate_cast<fp8>(normal(rng));
    for (fp8& v : b) v = saturate_cast<fp8>(normal(rng));
    fp8 *d_a = test::upload(a), *d_b = test::upload(b);
    float* d_c = test::upload(std::vector<float>(std::size_t(m) * n, std::nanf("")));  // NaN where C is missing
    const std::string problem =
        std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) + " k_contiguous, " + type_name<fp8>();
    measure(
        out, "gemm_fp8_direct", perf_report::wave_tile_config(op::tile_m, op::tile_n), problem,
        [&] { return gd::launch<fp8>({d_a, d_b, d_c, m, n, k}, nullptr); },
        [&] {
          std::vector<float> c(std::size_t(m) * n);
          hipMemcpy(c.data(), d_c, c.size() * sizeof(float), hipMemcpyDeviceToHost);
          auto av = [&](int i, int kk) { return double(to_float(a[std::size_t(i) * k + kk])); };
          auto bv = [&](int j, int kk) { return double(to_float(b[std::size_t(j) * k + kk])); };
          const auto ref = host::reference_gemm_nt(m, n, k, av, bv);
          const auto abs_sum = host::reference_gemm_nt(
              m, n, k, [&](int i, int kk) { return std::fabs(av(i, kk)); },
              [&](int j, int kk) { return std::fabs(bv(j, kk)); });
          int bad = 0;
          for (std::size_t i = 0; i < c.size(); ++i)
            bad += !(std::fabs(c[i] - ref[i]) <= host::mfma_fp32_error_bound(k, 16, abs_sum[i]));
          return bad;
        });
    hipFree(d_a), hipFree(d_b), hipFree(d_c);
  });
}

const registration registered{"gemm_fp8_direct", "gemm_fp8_direct", census_gemm_fp8_direct};

}  // namespace

}  // namespace wavekit::lds_census
