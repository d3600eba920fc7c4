// The epilogue slot (block/epilogue_fused.hpp) composed with a GEMM the way an op composes it
// (gemm_half's parts, its own epilogue): every kind of D input (per row, per column, per element,
// a row's factor through an index table with -1 entries), in a chosen order, then an activation and
// C's conversion, against a host model with the same roundings; with split-K the fused reduction
// runs the whole fusion once after the sum.
#include <hip/hip_runtime.h>
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <random>
#include <type_traits>
#include <vector>

#include "support/device_upload.hpp"
#include "support/fused_gemm.hpp"
#include "wavekit/block/epilogue_fused.hpp"
#include "wavekit/host/reference_gemm.hpp"

using namespace wavekit;
namespace gh = wavekit::ops::gemm_half;

namespace {

// D values of T (as stored and as fp32), normal times `spread`.
template <class T>
struct d_tensor {
  std::vector<float> x;
  T* device;
  d_tensor(std::size_t count, float spread, std::mt19937& rng) {
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<T> h(count);
    x.resize(count);
    for (std::size_t i = 0; i < count; ++i) {
      if constexpr (std::is_same_v<T, float>)
        h[i] = spread * normal(rng);
      else
        h[i] = saturate_cast<T>(spread * normal(rng));
      x[i] = widen_to_float(h[i]);
    }
    device = test::upload(h);
  }
  ~d_tensor() { hipFree(device); }
};

// v through the inputs in order, as the epilogue does, with the error bound carried along: e bounds
// |v - exact|, mag bounds |v| and its parts (each step's fp32 rounding is half an ulp of that).
struct carried {
  float v;
  double e, mag;
  void add(float x) { v = v + x, mag += std::fabs(x), e += 0x1p-24 * mag; }
  void multiply(float x) { v = v * x, e = e * std::fabs(x) + 0x1p-24 * mag * std::fabs(x), mag *= std::fabs(x); }
};

// Runs the GEMM of config Cfg with epilogue E over an m x n x k problem with `splits` K splits;
// `reference(i, j, carried&)` applies E's inputs in its order on the host. Returns the mismatches.
template <class Cfg, class E, activation Act, class Fill, class Reference>
int run(int m, int n, int k, int splits, std::uint32_t seed, Fill&& fill, Reference&& reference) {
  using Out = typename E::out_type;
  std::mt19937 rng(seed);
  d_tensor<bf16> a(std::size_t(m) * k, 1.0f, rng), b(std::size_t(n) * k, 1.0f, rng);
  Out* c = nullptr;
  hipMalloc(&c, std::size_t(m) * n * sizeof(Out));
  hipMemset(c, 0xff, std::size_t(m) * n * sizeof(Out));
  float* partials = nullptr;
  hipMalloc(&partials, std::size_t(splits) * m * n * sizeof(float));
  typename E::args out{{c, splits > 1 ? partials : nullptr}, {}};
  fill(out, rng);
  test::run_fused_gemm<Cfg, E, Out>(
      a.device, b.device, out, m, n, k, splits, [](const float* partials, const auto& o, int rows, int cols, int used) {
        return block::launch_splitk_reduce_fused<E>(partials, o, block::reduce_view::packed(rows, cols), used, nullptr);
      });
  std::vector<Out> got(std::size_t(m) * n);
  hipMemcpy(got.data(), c, got.size() * sizeof(Out), hipMemcpyDeviceToHost);
  hipFree(c), hipFree(partials);

  const auto at_a = [&](int i, int kk) { return double(a.x[std::size_t(i) * k + kk]); };
  const auto at_b = [&](int j, int kk) { return double(b.x[std::size_t(j) * k + kk]); };
  const auto exact = host::reference_gemm_nt(m, n, k, at_a, at_b);
  const auto abs_sum = host::reference_gemm_nt(
      m, n, k, [&](int i, int kk) { return std::fabs(at_a(i, kk)); },
      [&](int j, int kk) { return std::fabs(at_b(j, kk)); });
  int bad = 0;
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      const std::size_t at = std::size_t(i) * n + j;
      carried v{float(exact[at]), host::mfma_fp32_error_bound(k, 8, abs_sum[at]) + (splits + 1) * 0x1p-24 * abs_sum[at],
                abs_sum[at]};
      reference(i, j, v);
      const float y = activate<Act>(v.v);
      const double ey = 1.13 * v.e + 0x1p-20 * (std::fabs(y) + v.mag);
      const double g = widen_to_float(got[at]);
      const double bound = ey + (std::fabs(y) + ey) * (std::is_same_v<Out, float> ? 0.0 : 0x1p-8);
      if (!(std::fabs(g - y) <= bound) && bad++ < 5)
        std::printf("%s, %d splits: C[%d][%d] = %.8g, reference %.8g (bound %.3g)\n", Cfg::name().c_str(), splits, i, j,
                    g, y, bound);
    }
  return bad;
}

}  // namespace

TEST_CASE("epilogue_fused: row bias, column bias, residual and row weights in order, then SiLU", "[emu][gemm]") {
  using E = block::epilogue_fused<float, activation::silu, block::row_bias<fp16>, block::column_bias<float>,
                                  block::residual<bf16>, block::row_weights>;
  for (int splits : {1, 3})
    for (auto [m, n, k] : {std::tuple{1, 144, 200}, std::tuple{63, 128, 512}, std::tuple{65, 32, 64}}) {
      std::mt19937 values(7);
      d_tensor<fp16> row_bias(m, 2.0f, values);
      d_tensor<float> column_bias(n, 2.0f, values), weights(m, 0.5f, values);
      d_tensor<bf16> residual(std::size_t(m) * n, 2.0f, values);
      auto fill = [&](E::args& out, std::mt19937&) {
        out.d[0] = {row_bias.device}, out.d[1] = {column_bias.device}, out.d[2] = {residual.device},
        out.d[3] = {weights.device};
      };
      auto reference = [&](int i, int j, carried& v) {
        v.add(row_bias.x[i]), v.add(column_bias.x[j]), v.add(residual.x[std::size_t(i) * n + j]);
        v.multiply(weights.x[i]);
      };
      INFO(m << "x" << n << "x" << k << ", " << splits << " splits");
      CHECK(run<gh::config_narrow, E, activation::silu>(m, n, k, splits, 11 + m, fill, reference) == 0);
      CHECK(run<gh::config_decode, E, activation::silu>(m, n, k, splits, 12 + m, fill, reference) == 0);
    }
}

TEST_CASE("epilogue_fused: a row's factor through an index table (-1: zero), a residual, GELU, bf16 C", "[emu][gemm]") {
  using E = block::epilogue_fused<bf16, activation::gelu_erf, block::gathered_row_weights, block::residual<float>>;
  for (int splits : {1, 2})
    for (auto [m, n, k] : {std::tuple{5, 128, 96}, std::tuple{70, 256, 1000}}) {
      std::mt19937 values(9);
      const int count = 37;
      d_tensor<float> factors(count, 1.0f, values), residual(std::size_t(m) * n, 1.0f, values);
      std::vector<int> index(m);
      for (int i = 0; i < m; ++i) index[i] = i % 4 == 3 ? -1 : (i * 7) % count;
      int* index_device = test::upload(index);
      auto fill = [&](E::args& out, std::mt19937&) {
        out.d[0] = {factors.device, index_device, count}, out.d[1] = {residual.device};
      };
      auto reference = [&](int i, int j, carried& v) {
        v.multiply(index[i] < 0 ? 0.0f : factors.x[index[i]]);
        v.add(residual.x[std::size_t(i) * n + j]);
      };
      INFO(m << "x" << n << "x" << k << ", " << splits << " splits");
      CHECK(run<gh::config_medium, E, activation::gelu_erf>(m, n, k, splits, 21 + m, fill, reference) == 0);
      hipFree(index_device);
    }
}
