// A random block-scaled fp8 GEMM problem on the device, in either storage order: A and B
// quantized with wavekit's host quantizers (1x128 and 128x128 blocks), some scales negated (the
// reference problem's scales are randn), and the host reference to check a result against.
#pragma once

#include <hip/hip_runtime.h>

#include <cstdio>
#include <random>
#include <vector>

#include "wavekit/host/quantize_blockscale.hpp"
#include "wavekit/host/reference_gemm_fp8_blockscale.hpp"
#include "wavekit/host/transpose.hpp"
#include "wavekit/ops/gemm_fp8_blockscale/problem.hpp"

namespace wavekit::test {

namespace gb = wavekit::ops::gemm_fp8_blockscale;

template <class Fp8>
struct blockscale_case {
  gb::problem p;
  Fp8 *a = nullptr, *b = nullptr;
  float *a_scale = nullptr, *b_scale = nullptr;
  bf16* c = nullptr;
  void* workspace = nullptr;
  std::size_t workspace_bytes = 0;
  std::vector<Fp8> ha, hb;  // as stored on the device
  std::vector<float> has, hbs;

  blockscale_case(gb::problem problem, std::uint32_t seed, int max_splits = 8) : p(problem) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> n(0.0f, 1.0f);
    std::bernoulli_distribution flip(0.25);
    std::vector<float> xa(std::size_t(p.m) * p.k), xb(std::size_t(p.n) * p.k);
    for (float& v : xa) v = n(rng);
    for (float& v : xb) v = n(rng);
    auto qa = host::quantize_fp8_1x128<Fp8>(xa, p.m, p.k);
    auto qb = host::quantize_fp8_128x128<Fp8>(xb, p.n, p.k);
    for (float& s : qa.scales) s = flip(rng) ? -s : s;
    for (float& s : qb.scales) s = flip(rng) ? -s : s;
    const int kb = p.k_groups(), nb = p.n_groups();
    if (p.order == layout::k_contiguous) {
      ha = qa.data, hb = qb.data, has = qa.scales, hbs = qb.scales;
    } else {  // transposed into the mn_contiguous order
      ha = host::transposed(qa.data, p.m, p.k), hb = host::transposed(qb.data, p.n, p.k);
      has = host::transposed(qa.scales, p.m, kb), hbs = host::transposed(qb.scales, nb, kb);
    }
    upload(a, ha), upload(b, hb), upload(a_scale, has), upload(b_scale, hbs);
    hipMalloc(&c, std::size_t(p.m) * p.n * sizeof(bf16));
    workspace_bytes = std::size_t(max_splits) * p.m * p.n * sizeof(float);
    hipMalloc(&workspace, workspace_bytes);
  }
  ~blockscale_case() { hipFree(a), hipFree(b), hipFree(a_scale), hipFree(b_scale), hipFree(c), hipFree(workspace); }
  blockscale_case(const blockscale_case&) = delete;
  blockscale_case& operator=(const blockscale_case&) = delete;

  template <class T>
  static void upload(T*& dst, const std::vector<T>& src) {
    hipMalloc(&dst, src.size() * sizeof(T));
    hipMemcpy(dst, src.data(), src.size() * sizeof(T), hipMemcpyHostToDevice);
  }

  gb::args<Fp8> args() const { return {a, b, a_scale, b_scale, c, workspace, workspace_bytes}; }

  host::blockscale_reference reference() const {
    return host::reference_gemm_fp8_blockscale(p, ha.data(), hb.data(), has.data(), hbs.data());
  }

  // Compares C with the reference at the computed bound and at the reference problem's
  // tolerance (rtol 2e-2, atol 1e-3). Returns the number of violations; prints the first few.
  int check(const host::blockscale_reference& ref, int splits, const char* label) const {
    std::vector<bf16> got(std::size_t(p.m) * p.n);
    hipMemcpy(got.data(), c, got.size() * sizeof(bf16), hipMemcpyDeviceToHost);
    int bad = 0;
    double worst = 0;
    for (std::size_t i = 0; i < got.size(); ++i) {
      const double g = to_float(got[i]), e = ref.c[i];
      const double err = std::fabs(g - e);
      const double bound = host::blockscale_error_bound(ref.abs_sum[i], e, p.k, splits);
      worst = std::fmax(worst, err / (bound > 0 ? bound : 1));
      if ((err > bound || err > 1e-3 + 2e-2 * std::fabs(e)) && bad++ < 5)
        std::printf("%s %s: C[%zu][%zu] = %.6g, reference %.6g (bound %.3g)\n", label, p.str().c_str(), i / p.n,
                    i % p.n, g, e, bound);
    }
    return bad;
  }
};

}  // namespace wavekit::test
