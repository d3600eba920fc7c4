// A random MX GEMM problem on the device, quantized by the host MX quantizer from values whose
// magnitude changes from block to block (2^-8 .. 2^3), so every 32-K block of a row has its own
// e8m0 scale and a scale applied to the wrong block shows; and its check against the exact
// product of the quantized values at a bound computed from K, the splits and C's format.
// gemm_mx_quantizing_a_case: the same with A given as bf16 / fp16 values, which the kernel
// quantizes; the reference multiplies the host quantizer's MXFP4 of them (the kernel's must be
// the same bits, so the bound is the same).
#pragma once

#include <hip/hip_runtime.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <span>
#include <type_traits>
#include <vector>

#include "wavekit/core/float_codec.hpp"
#include "wavekit/host/quantize_mx.hpp"
#include "wavekit/host/reference_gemm.hpp"
#include "wavekit/host/shuffle_mx.hpp"
#include "wavekit/ops/gemm_mx/problem.hpp"

namespace wavekit::test {

// |C - exact| per element may be: the matrix core's accumulation (bounded as a fused sum of each
// 32-K block, the scale being a power of two, then one fp32 accumulation per block: the spec
// leaves gfx950's internal order open, docs/hardware.md 1.3 and 1.4), one fp32 rounding per split in the
// reduction, and C's rounding (2^-8 relative for bf16, 2^-11 for fp16).
template <class Out>
int check_mx_product(const ops::gemm_mx::problem& p, const std::vector<float>& xa, const std::vector<float>& xb,
                     const Out* c, int splits, const char* label) {
  const auto dot = host::reference_gemm_nt(
      p.m, p.n, p.k, [&](int i, int k) { return double(xa[std::size_t(i) * p.k + k]); },
      [&](int j, int k) { return double(xb[std::size_t(j) * p.k + k]); });
  const auto abs_sum = host::reference_gemm_nt(
      p.m, p.n, p.k, [&](int i, int k) { return std::fabs(double(xa[std::size_t(i) * p.k + k])); },
      [&](int j, int k) { return std::fabs(double(xb[std::size_t(j) * p.k + k])); });
  std::vector<Out> got(std::size_t(p.m) * p.n);
  hipMemcpy(got.data(), c, got.size() * sizeof(Out), hipMemcpyDeviceToHost);
  const double out_unit = std::is_same_v<Out, bf16> ? 0x1p-8 : 0x1p-11;
  int bad = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double e = dot[i], g = to_float(got[i]);
    const double acc = host::mfma_fp32_error_bound(p.k, 32, abs_sum[i]) + splits * 0x1p-24 * abs_sum[i];
    const double bound = acc + (std::fabs(e) + acc) * out_unit;
    if (!(std::fabs(g - e) <= bound) && bad++ < 5)
      std::printf("%s %s: C[%zu][%zu] = %.8g, reference %.8g (bound %.3g)\n", label, p.str().c_str(), i / p.n, i % p.n,
                  g, e, bound);
  }
  return bad;
}

// rows x cols normal values, each 32-column block of a row scaled by its own 2^(-8 .. 3).
inline std::vector<float> random_blocks(int rows, int cols, std::mt19937& rng) {
  std::normal_distribution<float> n(0.0f, 1.0f);
  std::uniform_int_distribution<int> exponent(-8, 3);
  std::vector<float> x(std::size_t(rows) * cols);
  for (int r = 0; r < rows; ++r)
    for (int blk = 0; blk < cols / 32; ++blk) {
      const float magnitude = std::ldexp(1.0f, exponent(rng));
      for (int i = 0; i < 32; ++i) x[std::size_t(r) * cols + blk * 32 + i] = n(rng) * magnitude;
    }
  return x;
}

template <class Elem, class Out>
struct gemm_mx_case {
  using storage = mx_storage_t<Elem>;
  ops::gemm_mx::problem p;
  storage *a = nullptr, *b = nullptr;
  e8m0 *a_scale = nullptr, *b_scale = nullptr;
  Out* c = nullptr;
  void* workspace = nullptr;
  std::size_t workspace_bytes = 0;
  host::mx_tensor<Elem> qa, qb;
  std::vector<float> xa, xb;  // the quantized values (element times scale)

  static host::mx_tensor<Elem> random_mx(int rows, int cols, std::mt19937& rng) {
    const std::vector<float> x = random_blocks(rows, cols, rng);
    return host::quantize_mx<Elem>(std::span<const float>(x), rows, cols);
  }

  gemm_mx_case(ops::gemm_mx::problem problem, std::uint32_t seed, int max_splits = 8) : p(problem) {
    std::mt19937 rng(seed);
    qa = random_mx(p.m, p.k, rng), qb = random_mx(p.n, p.k, rng);
    xa = host::dequantize(qa), xb = host::dequantize(qb);
    upload(a, qa.data), upload(a_scale, qa.scales);
    upload_b(p, qb, b, b_scale);
    hipMalloc(&c, std::size_t(p.m) * p.n * sizeof(Out));
    hipMemset(c, 0xff, std::size_t(p.m) * p.n * sizeof(Out));  // NaN where a result is missing
    workspace_bytes = std::size_t(max_splits) * p.m * p.n * sizeof(float);
    hipMalloc(&workspace, workspace_bytes);
  }
  ~gemm_mx_case() { hipFree(a), hipFree(b), hipFree(a_scale), hipFree(b_scale), hipFree(c), hipFree(workspace); }
  gemm_mx_case(const gemm_mx_case&) = delete;
  gemm_mx_case& operator=(const gemm_mx_case&) = delete;

  template <class U>
  static void upload(U*& dst, const std::vector<U>& src) {
    hipMalloc(&dst, src.size() * sizeof(U));
    hipMemcpy(dst, src.data(), src.size() * sizeof(U), hipMemcpyHostToDevice);
  }
  // B and its scales as the problem lays them out: plain, or aiter's pre-shuffled layouts.
  static void upload_b(const ops::gemm_mx::problem& p, const host::mx_tensor<Elem>& q, storage*& data, e8m0*& scales) {
    if (p.b == ops::gemm_mx::b_layout::plain) {
      upload(data, q.data), upload(scales, q.scales);
      return;
    }
    if constexpr (std::is_same_v<Elem, fp4_e2m1>) {
      upload(data, host::shuffle_weight_16x16(std::span<const storage>(q.data), p.n, p.k / 2));
      upload(scales, host::e8m0_shuffle(std::span<const e8m0>(q.scales), p.n, p.k / 32));
    }
  }

  ops::gemm_mx::args<Elem, Out> args() const { return {a, b, a_scale, b_scale, c, workspace, workspace_bytes}; }

  int check(int splits, const char* label) const { return check_mx_product(p, xa, xb, c, splits, label); }
};

// T: A's 16-bit type; B MXFP4.
template <class T, class Out>
struct gemm_mx_quantizing_a_case {
  ops::gemm_mx::problem p;
  T* a = nullptr;
  fp4x2_e2m1* b = nullptr;
  e8m0* b_scale = nullptr;
  Out* c = nullptr;
  void* workspace = nullptr;
  std::size_t workspace_bytes = 0;
  std::vector<T> a_values;
  host::mx_tensor<fp4_e2m1> qa, qb;  // qa: the host's quantization of a_values (the kernel's bits)
  std::vector<float> xa, xb;

  gemm_mx_quantizing_a_case(ops::gemm_mx::problem problem, std::uint32_t seed, int max_splits = 8) : p(problem) {
    std::mt19937 rng(seed);
    std::vector<float> af = random_blocks(p.m, p.k, rng);
    a_values.resize(af.size());
    for (std::size_t i = 0; i < af.size(); ++i) af[i] = to_float(a_values[i] = saturate_cast<T>(af[i]));
    qa = host::quantize_mx<fp4_e2m1>(std::span<const float>(af), p.m, p.k);
    qb = gemm_mx_case<fp4_e2m1, Out>::random_mx(p.n, p.k, rng);
    xa = host::dequantize(qa), xb = host::dequantize(qb);
    gemm_mx_case<fp4_e2m1, Out>::upload(a, a_values);
    gemm_mx_case<fp4_e2m1, Out>::upload_b(p, qb, b, b_scale);
    hipMalloc(&c, std::size_t(p.m) * p.n * sizeof(Out));
    hipMemset(c, 0xff, std::size_t(p.m) * p.n * sizeof(Out));
    workspace_bytes = std::size_t(max_splits) * p.m * p.n * sizeof(float);
    hipMalloc(&workspace, workspace_bytes);
  }
  ~gemm_mx_quantizing_a_case() { hipFree(a), hipFree(b), hipFree(b_scale), hipFree(c), hipFree(workspace); }
  gemm_mx_quantizing_a_case(const gemm_mx_quantizing_a_case&) = delete;
  gemm_mx_quantizing_a_case& operator=(const gemm_mx_quantizing_a_case&) = delete;

  ops::gemm_mx::args_quantizing_a<T, Out> args() const { return {a, b, b_scale, c, workspace, workspace_bytes}; }
  int check(int splits, const char* label) const { return check_mx_product(p, xa, xb, c, splits, label); }
};

}  // namespace wavekit::test
