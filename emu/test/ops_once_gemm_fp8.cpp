// ops_once's fp8 GEMMs on gfx942: block-scaled, scaled and direct (ops_once.cpp says what is
// checked).
#include <hip/hip_runtime.h>

#include "wavekit/arch/target.hpp"

#if !WAVEKIT_TARGET_GFX950
#include <random>
#include <vector>

#include "ops_once.hpp"
#include "support/blockscale_case.hpp"
#include "support/device_upload.hpp"
#include "support/gemm_fp8_scaled_case.hpp"
#include "wavekit/arch/gfx942.hpp"
#include "wavekit/ops/gemm_fp8_blockscale.hpp"
#include "wavekit/ops/gemm_fp8_direct.hpp"
#include "wavekit/ops/gemm_fp8_scaled.hpp"

using namespace wavekit;

namespace ops_once {

using fp8 = arch::gfx942::fp8;

void run_gemm_fp8_blockscale() {
  test::blockscale_case<fp8> t({40, 256, 384, layout::k_contiguous}, 2);
  ops::gemm_fp8_blockscale::plan_info ran;
  const status s = wavekit::gemm_fp8_blockscale(t.p, t.args(), nullptr, &ran);
  report("gemm_fp8_blockscale", s, s.ok() ? t.check(t.reference(), ran.plan.splits, "gemm_fp8_blockscale") : 0);
}

void run_gemm_fp8_scaled() {
  namespace gs = ops::gemm_fp8_scaled;
  test::gemm_fp8_scaled_case<fp8, bf16> t(
      {40, 80, 256, layout::k_contiguous, gs::scale_granularity::row, gs::scale_granularity::tensor}, 3);
  gs::plan_info ran;
  const status s = wavekit::gemm_fp8_scaled(t.p, t.args(), nullptr, &ran);
  report("gemm_fp8_scaled", s, s.ok() ? t.check(ran.plan.splits, "gemm_fp8_scaled") : 0);
}

void run_gemm_fp8_direct() {
  const int m = 64, n = 96, k = 128;
  std::mt19937 rng(4);
  std::uniform_int_distribution<int> small(-2, 2);
  std::vector<fp8> a(std::size_t(m) * k), b(std::size_t(n) * k);
  for (auto& v : a) v = saturate_cast<fp8>(float(small(rng)));
  for (auto& v : b) v = saturate_cast<fp8>(float(small(rng)));
  fp8 *da = test::upload(a), *db = test::upload(b);
  float* dc = nullptr;
  hipMalloc(&dc, sizeof(float) * m * n);
  const status s = ops::gemm_fp8_direct::launch<fp8>({da, db, dc, m, n, k}, nullptr);
  std::vector<float> c(std::size_t(m) * n);
  hipMemcpy(c.data(), dc, sizeof(float) * c.size(), hipMemcpyDeviceToHost);
  int bad = 0;  // small integers: every sum is exact
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      float want = 0;
      for (int kk = 0; kk < k; ++kk)
        want += to_float(a[std::size_t(i) * k + kk]) * to_float(b[std::size_t(j) * k + kk]);
      bad += c[std::size_t(i) * n + j] != want;
    }
  report("gemm_fp8_direct", s, s.ok() ? bad : 0);
  hipFree(da), hipFree(db), hipFree(dc);
}
}  // namespace ops_once

#endif
