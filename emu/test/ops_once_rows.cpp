// ops_once's row-wise glue on gfx942: RMSNorm and SwiGLU with fp8 quantization (ops_once.cpp says
// what is checked).
#include <hip/hip_runtime.h>

#include "wavekit/arch/target.hpp"

#if !WAVEKIT_TARGET_GFX950
#include <random>
#include <vector>

#include "ops_once.hpp"
#include "support/device_upload.hpp"
#include "wavekit/arch/gfx942.hpp"
#include "wavekit/ops/rmsnorm_quant.hpp"
#include "wavekit/ops/swiglu_quant.hpp"

using namespace wavekit;

namespace ops_once {

using fp8 = arch::gfx942::fp8;

template <class T>
std::vector<T> random_values(std::size_t n, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<T> v(n);
  for (T& e : v) e = saturate_cast<T>(normal(rng));
  return v;
}

void run_rmsnorm_quant() {
  namespace rq = ops::rmsnorm_quant;
  const rq::problem p{7, 256, scale_granularity::group_1x128, layout::k_contiguous, rq::residual_mode::add};
  const std::size_t n = std::size_t(p.tokens) * p.hidden;
  bf16 *x = test::upload(random_values<bf16>(n, 8)), *residual = test::upload(random_values<bf16>(n, 9)),
       *weight = test::upload(random_values<bf16>(p.hidden, 10));
  fp8* q = test::upload(std::vector<fp8>(n));
  float* scales = test::upload(std::vector<float>(n / 128));
  report("rmsnorm_quant", wavekit::rmsnorm_quant(p, rq::args<bf16, fp8>{x, residual, weight, q, scales}, nullptr));
  hipFree(x), hipFree(residual), hipFree(weight), hipFree(q), hipFree(scales);
}

void run_swiglu_quant() {
  namespace sq = ops::swiglu_quant;
  const sq::problem p{7, 256, scale_granularity::group_1x128, layout::k_contiguous};
  const std::size_t n = std::size_t(p.tokens) * p.d;
  bf16* x = test::upload(random_values<bf16>(2 * n, 11));
  fp8* q = test::upload(std::vector<fp8>(n));
  float* scales = test::upload(std::vector<float>(n / 128));
  report("swiglu_quant", wavekit::swiglu_quant(p, sq::args<bf16, fp8>{x, q, scales}, nullptr));
  hipFree(x), hipFree(q), hipFree(scales);
}

}  // namespace ops_once

#endif
