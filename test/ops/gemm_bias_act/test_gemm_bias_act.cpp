// GEMM + bias + activation against the host reference, on the CPU emulator (per emulated target)
// and, in the GPU build, on the device: every gemm_half config on shapes derived from its tile
// (M = 1, tile - 1, tile + 1; K below one step, one step, many), both storage orders, every
// activation, C in bf16, fp16, fp32 and the target's fp8 (saturating), split-K (the fusion runs
// once, after the sum), the one-call API, and every error status.
#include <hip/hip_runtime.h>
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <type_traits>
#include <vector>

#include "support/device_fp8.hpp"
#include "support/device_upload.hpp"
#include "support/gemm_view_storage.hpp"
#include "support/supports_check.hpp"
#include "wavekit/host/reference_gemm_bias_act.hpp"
#include "wavekit/host/transpose.hpp"
#include "wavekit/ops/gemm_bias_act.hpp"

using namespace wavekit;
namespace gba = wavekit::ops::gemm_bias_act;
namespace gh = wavekit::ops::gemm_half;

namespace {

constexpr activation all_activations[] = {activation::identity, activation::relu, activation::silu,
                                          activation::gelu_erf, activation::gelu_tanh};

// A random problem on the device (A, B normal; the bias normal times 4), C filled with NaN bits.
template <class T, class Out>
struct bias_act_case {
  gba::problem p;
  float out_scale;
  std::vector<float> xa, xb, xbias;
  T *a = nullptr, *b = nullptr, *bias = nullptr;
  Out* c = nullptr;
  void* workspace = nullptr;
  std::size_t workspace_bytes;

  bias_act_case(gba::problem problem, std::uint32_t seed, float scale = 1.0f, int max_splits = 8)
      : p(problem), out_scale(scale) {
    const gh::problem& g = p.gemm;
    std::mt19937 rng(seed);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    auto values = [&](std::size_t count, float spread, std::vector<float>& x) {
      std::vector<T> h(count);
      x.resize(count);
      for (std::size_t i = 0; i < count; ++i) h[i] = saturate_cast<T>(spread * normal(rng)), x[i] = to_float(h[i]);
      return h;
    };
    std::vector<T> ha = values(std::size_t(g.m) * g.k, 1.0f, xa), hb = values(std::size_t(g.n) * g.k, 1.0f, xb);
    if (g.order == layout::mn_contiguous) ha = host::transposed(ha, g.m, g.k), hb = host::transposed(hb, g.n, g.k);
    a = test::upload(ha), b = test::upload(hb), bias = test::upload(values(g.n, 4.0f, xbias));
    hipMalloc(&c, std::size_t(g.m) * g.n * sizeof(Out) + 16);
    hipMemset(c, 0xff, std::size_t(g.m) * g.n * sizeof(Out) + 16);
    workspace_bytes = std::size_t(max_splits) * g.m * g.n * sizeof(float);
    hipMalloc(&workspace, workspace_bytes);
  }
  ~bias_act_case() { hipFree(a), hipFree(b), hipFree(bias), hipFree(c), hipFree(workspace); }

  gba::args<T, Out> args() const { return {a, b, bias, c, out_scale, workspace, workspace_bytes}; }

  // y = act(v), v = A x B^T + bias. |v - reference| may be the MFMA accumulation (groups of 8
  // products), one fp32 rounding a split and the bias add's; the activation's slope (at most 1.13:
  // the GELUs') carries that to y, whose own evaluation (the device library's e^x, erf, tanh against
  // the host's) adds a few fp32 ulps of |y| + |v|; then C's rounding: half an ulp of bf16 / fp16, or of
  // fp8 (3 mantissa bits) plus half its smallest step, after saturation at its largest value.
  int check(int splits, const char* label) const {
    const gh::problem& g = p.gemm;
    const auto at_a = [&](int i, int k) { return double(xa[std::size_t(i) * g.k + k]); };
    const auto at_b = [&](int j, int k) { return double(xb[std::size_t(j) * g.k + k]); };
    const auto y = host::reference_gemm_bias_act(g.m, g.n, g.k, p.act, at_a, at_b, [&](int j) { return xbias[j]; });
    const auto abs_sum = host::reference_gemm_nt(
        g.m, g.n, g.k, [&](int i, int k) { return std::fabs(at_a(i, k)); },
        [&](int j, int k) { return std::fabs(at_b(j, k)); });
    std::vector<Out> got(std::size_t(g.m) * g.n);
    hipMemcpy(got.data(), c, got.size() * sizeof(Out), hipMemcpyDeviceToHost);
    int bad = 0;
    for (std::size_t i = 0; i < got.size(); ++i) {
      const double v_abs = abs_sum[i] + std::fabs(xbias[i % g.n]);
      const double ev = host::mfma_fp32_error_bound(g.k, 8, abs_sum[i]) + (splits + 2) * 0x1p-24 * v_abs;
      const double ey = 1.13 * ev + 0x1p-20 * (std::fabs(y[i]) + v_abs);
      double g_out, ref = y[i], bound;
      if constexpr (block::is_fp8_v<Out>) {
        const double max = element_limits<Out>::max_finite, q = std::fmax(-max, std::fmin(max, y[i] / out_scale));
        g_out = to_float(got[i]), ref = q;
        bound = ey / out_scale + (std::fabs(q) + ey / out_scale) * 0x1p-4 + element_limits<Out>::min_subnormal / 2;
      } else if constexpr (std::is_same_v<Out, float>) {
        g_out = got[i], bound = ey;
      } else {
        g_out = to_float(got[i]);
        bound = ey + (std::fabs(y[i]) + ey) * (std::is_same_v<Out, bf16> ? 0x1p-8 : 0x1p-11);
      }
      if (!(std::fabs(g_out - ref) <= bound) && bad++ < 5)
        std::printf("%s %s: C[%zu][%zu] = %.8g, reference %.8g (bound %.3g)\n", label, p.str().c_str(), i / g.n,
                    i % g.n, g_out, ref, bound);
    }
    return bad;
  }
};

template <class Cfg, class T, class Out>
int run_config(const gba::problem& p, int splits, std::uint32_t seed, float out_scale = 1.0f) {
  bias_act_case<T, Out> t(p, seed, out_scale);
  const status s = gba::launch<Cfg>(p, t.args(), splits, nullptr);
  INFO(Cfg::name(splits) << " on " << p.str() << ": " << s.message());
  REQUIRE(s.ok());
  REQUIRE(hipDeviceSynchronize() == hipSuccess);
  return t.check(splits, Cfg::name(splits).c_str());
}

}  // namespace

TEMPLATE_LIST_TEST_CASE("gemm_bias_act: each gemm_half config on shapes derived from its tile", "[emu][gemm]",
                        gh::shipped_configs) {
  using C = TestType;
  const int bm = C::block_m, bn = C::block_n, bk = C::block_k;
  int a = 0;
  test::with_device_fp8([&](auto fp8_format) {
    using fp8 = decltype(fp8_format);
    for (int m : {1, bm - 1, bm + 1})
      for (int k : {8, bk, 3 * bk + 24}) {
        const gba::problem p{{m, bn + 16, k, layout::k_contiguous}, all_activations[a++ % 5]};
        CHECK(run_config<C, bf16, bf16>(p, 1, 100 + m + k) == 0);
      }
    // fp8 C, saturating (out_scale 1/16: |y| / out_scale reaches past the largest fp8), split-K.
    CHECK(run_config<C, bf16, fp8>({{bm + 1, bn, 4 * bk, layout::k_contiguous}, activation::gelu_tanh}, 1, 5,
                                   0.0625f) == 0);
    CHECK(run_config<C, bf16, fp8>({{bm - 1, bn, 5 * bk, layout::k_contiguous}, activation::gelu_tanh}, 3, 6,
                                   0.0625f) == 0);
  });
  // The M/N-contiguous order; fp16 in, fp32 and fp16 out; uneven split-K.
  CHECK(run_config<C, fp16, float>({{bm, bn, 2 * bk + 8, layout::mn_contiguous}, activation::silu}, 1, 7) == 0);
  CHECK(run_config<C, fp16, fp16>({{bm + 16, 16, 5 * bk, layout::mn_contiguous}, activation::gelu_erf}, 3, 9) == 0);
}

TEST_CASE("gemm_bias_act: every activation, split-K adds the bias once", "[emu][gemm]") {
  for (activation act : all_activations) {
    const gba::problem p{{40, 128, 1024, layout::k_contiguous}, act};
    for (int splits : {1, 2, 5}) CHECK(run_config<gh::config_narrow, bf16, float>(p, splits, 31) == 0);
  }
}

// A batch of GEMMs over views (heads interleaved in A's and C's rows, one bias for all) against the
// same GEMMs run one by one on packed copies: bit for bit, split-K included, and C's elements
// outside the views untouched.
template <class Out>
void check_batch_matches_singles(activation act, int splits, float out_scale) {
  constexpr int heads = 3, m = 20, n = 48, k = 200, width = 64;  // C: head h's N columns at h * 64
  gba::problem p{{m, n, k, layout::k_contiguous}, act};
  p.gemm.strides = {.lda = heads * k, .ldc = heads * width};
  p.gemm.batch = {heads, k, n * k, width};
  std::mt19937 rng(77);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  auto draw = [&](std::size_t count, float spread) {
    std::vector<bf16> h(count);
    for (bf16& x : h) x = saturate_cast<bf16>(spread * normal(rng));
    return h;
  };
  const std::vector<bf16> a_all = draw(std::size_t(m) * heads * k, 1.0f),
                          b_all = draw(std::size_t(heads) * n * k, 1.0f), bias = draw(n, 4.0f);
  bf16 *a = test::upload(a_all), *b = test::upload(b_all), *d_bias = test::upload(bias);
  const std::size_t c_count = std::size_t(m) * heads * width, ws = std::size_t(splits) * c_count * 4;
  Out *c = nullptr, *c_one = nullptr;
  void* workspace = nullptr;
  hipMalloc(&c, c_count * sizeof(Out)), hipMalloc(&c_one, std::size_t(m) * n * sizeof(Out));
  hipMalloc(&workspace, ws);
  hipMemset(c, 0xff, c_count * sizeof(Out));
  const status s = gba::launch<gh::config_small>(p, gba::args<bf16, Out>{a, b, d_bias, c, out_scale, workspace, ws},
                                                 splits, nullptr);
  INFO(p.str() << ", " << splits << " splits: " << s.message());
  REQUIRE(s.ok());
  std::vector<Out> got(c_count), one(std::size_t(m) * n);
  hipMemcpy(got.data(), c, got.size() * sizeof(Out), hipMemcpyDeviceToHost);
  for (int h = 0; h < heads; ++h) {
    bf16* d_a_h = test::upload(test::packed_operand_of(p.gemm, a_all, m, heads * k, k, h));
    const gba::problem single{{m, n, k, layout::k_contiguous}, act};
    const gba::args<bf16, Out> args{d_a_h, b + std::size_t(h) * n * k, d_bias, c_one, out_scale, workspace, ws};
    REQUIRE(gba::launch<gh::config_small>(single, args, splits, nullptr).ok());
    hipMemcpy(one.data(), c_one, one.size() * sizeof(Out), hipMemcpyDeviceToHost);
    hipFree(d_a_h);
    INFO("head " << h);
    CHECK(test::outputs_differing(p.gemm, got, one, h) == 0);
  }
  CHECK(test::written_outside_views(p.gemm, got) == 0);
  hipFree(a), hipFree(b), hipFree(d_bias), hipFree(c), hipFree(c_one), hipFree(workspace);
}

TEST_CASE("gemm_bias_act: a batch of views gives each GEMM's result bit for bit, split-K included", "[emu][gemm]") {
  check_batch_matches_singles<bf16>(activation::silu, 1, 1.0f);
  check_batch_matches_singles<float>(activation::gelu_erf, 3, 1.0f);
  test::with_device_fp8(
      [&](auto fp8_format) { check_batch_matches_singles<decltype(fp8_format)>(activation::gelu_tanh, 2, 0.25f); });
}

TEST_CASE("gemm_bias_act: the one-call API runs gemm_half's plan", "[emu][gemm]") {
  test::with_device_fp8([&](auto fp8_format) {
    using fp8 = decltype(fp8_format);
    for (const gh::problem& g :
         {gh::problem{1, 256, 4096, layout::k_contiguous}, gh::problem{96, 128, 1000, layout::k_contiguous}}) {
      const gba::problem p{g, activation::gelu_tanh};
      bias_act_case<bf16, fp8> t(p, 42, 0.25f, 16);
      gh::plan_info ran;
      REQUIRE(gemm_bias_act(p, t.args(), nullptr, &ran).ok());
      REQUIRE(hipDeviceSynchronize() == hipSuccess);
      CHECK(ran.name ==
            gh::select_plan(g, t.workspace_bytes, arch::current_device_arch().kind, gba::tuning_dtypes_of(t.args()))
                .value()
                .name);
      CHECK(t.check(ran.plan.splits, ran.name.c_str()) == 0);
      CHECK(gemm_bias_act_workspace_bytes<gba::args<bf16, fp8>>(p).value() ==
            gh::workspace_bytes(g, arch::current_device_arch().kind, gba::tuning_dtypes_of(t.args())).value());
    }
  });
}

TEST_CASE("gemm_bias_act: bad arguments get a status naming the op, the argument and the rule", "[emu][gemm]") {
  const gba::problem p{{32, 64, 256, layout::k_contiguous}, activation::gelu_erf};
  bias_act_case<bf16, bf16> t(p, 3);
  auto refused = [](const status& s, status_code code, const char* words) {
    INFO(s.message());
    CHECK(s.code() == code);
    CHECK(s.message().find("gemm_bias_act") != std::string::npos);
    CHECK(s.message().find(words) != std::string::npos);
  };
  auto a = t.args();
  a.bias = nullptr;
  refused(gemm_bias_act(p, a, nullptr), status_code::null_pointer, "argument bias is null");
  a = t.args();
  a.c = reinterpret_cast<bf16*>(reinterpret_cast<char*>(t.c) + 2);
  refused(gba::launch<gh::config_small>(p, a, 1, nullptr), status_code::bad_alignment, "argument c must be 8-byte");
  refused(gemm_bias_act(gba::problem{{32, 40, 256, layout::k_contiguous}, activation::relu}, t.args(), nullptr),
          status_code::bad_shape, "N must be a multiple of 16");
  refused(
      gemm_bias_act(gba::problem{{32, 64, 256, layout::k_contiguous}, static_cast<activation>(17)}, t.args(), nullptr),
      status_code::bad_config, "act must be");
  a = t.args();
  a.workspace_bytes = 16;
  refused(gba::launch<gh::config_small>(p, a, 2, nullptr), status_code::workspace_too_small, "split-K needs");
  test::with_device_fp8([&](auto fp8_format) {
    using fp8 = decltype(fp8_format);
    bias_act_case<bf16, fp8> q(p, 4);
    auto fa = q.args();
    for (float scale : {0.0f, -1.0f, std::numeric_limits<float>::infinity(), std::nanf("")}) {
      fa.out_scale = scale;
      refused(gemm_bias_act(p, fa, nullptr), status_code::bad_shape, "argument out_scale must be finite and > 0");
    }
    // The other target's fp8 is refused before any launch.
    using other = std::conditional_t<std::is_same_v<fp8, fp8_e4m3fnuz>, fp8_e4m3fn, fp8_e4m3fnuz>;
    bias_act_case<bf16, other> o(p, 5);
    refused(gemm_bias_act(p, o.args(), nullptr), status_code::bad_format, "reads fp8 as");
  });
  // An empty problem launches nothing and checks no pointer.
  CHECK(gemm_bias_act(gba::problem{{0, 64, 256, layout::k_contiguous}, activation::silu}, gba::args<bf16, bf16>{},
                      nullptr)
            .ok());
}

TEST_CASE("gemm_bias_act: supports() gives the one-call API's status", "[emu][gemm]") {
  const arch::target t = arch::current_device_arch().kind;
  auto* any = test::dummy_pointer();
  auto args_for = [&](auto out) {
    using Out = decltype(out);
    return gba::args<bf16, Out>{static_cast<const bf16*>(any),
                                static_cast<const bf16*>(any),
                                static_cast<const bf16*>(any),
                                static_cast<Out*>(any),
                                1.0f,
                                nullptr,
                                0};
  };
  for (const gba::problem& p : {gba::problem{{32, 40, 256, layout::k_contiguous}, activation::relu},
                                gba::problem{{32, 64, 12, layout::k_contiguous}, activation::silu},
                                gba::problem{{24, 64, 256, layout::mn_contiguous}, activation::identity},
                                gba::problem{{32, 64, 256, layout::k_contiguous}, static_cast<activation>(9)}})
    test::check_same_refusal(gba::supports<bf16>(p, t), gemm_bias_act(p, args_for(bf16{}), nullptr));
  const gba::problem fine{{32, 64, 256, layout::k_contiguous}, activation::gelu_tanh};
  CHECK(gba::supports<bf16>(fine, t).ok());
  test::with_device_fp8([&](auto fp8_format) {
    using fp8 = decltype(fp8_format);
    CHECK(gba::supports<fp8>(fine, t).ok());
    using other = test::other_fp8_t<fp8>;
    test::check_same_refusal(gba::supports<other>(fine, t), gemm_bias_act(fine, args_for(other{}), nullptr));
  });
  for (arch::target target : test::kernel_targets) CHECK(gba::supports<float>(fine, target).ok());
  CHECK(gba::supports<bf16>(fine, arch::target::host).code() == status_code::unsupported_target);
}
