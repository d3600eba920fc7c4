// ops/swiglu_quant: SwiGLU + fp8 against host::reference_swiglu_quant, bit for bit on the emulator
// (one SiLU definition, core/silu.hpp, and the reference given the emulator's model of the device
// library's expf; on a GPU the reference's host expf may move a code by one step or a scale by an
// ulp), over d 128 / 4096 / 7168 / 8192 / 16384 and tokens 1 / 7 / 64 / 1000, bf16 and fp16, both
// scalings, both storage orders; NaN and Inf gates and ups; saturation at the fp8 maximum; two runs
// equal; the traffic (each byte of x read once, each output byte written once); views (row
// strides) of x and q, nothing read or written outside them; every bad-input status.
#include <hip/hip_runtime.h>
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "support/device_fp8.hpp"
#include "support/device_upload.hpp"
#include "support/empty_problem.hpp"
#include "support/fp8_rows_check.hpp"
#include "support/graph_safety.hpp"
#include "support/plan_choice_check.hpp"
#include "support/row_view_storage.hpp"
#include "wavekit/host/reference_swiglu_quant.hpp"
#include "wavekit/ops/swiglu_quant.hpp"
#include "wavekit/ops/swiglu_quant/plan.hpp"

#if defined(WAVEKIT_EMULATOR)
#include "support/model_traffic_check.hpp"
#include "wavekit/emu/device_math.hpp"
#endif

using namespace wavekit;
namespace sq = wavekit::ops::swiglu_quant;

namespace {

#if defined(WAVEKIT_EMULATOR)
// The kernel's e^x on the emulator: the model of the device library's expf; the reference takes it.
struct reference_exp {
  float operator()(float x) const { return emu::device_math::expf(x); }
};
constexpr int expf_steps = 0;
#else
using reference_exp = plain_expf;
constexpr int expf_steps = 1;  // the device library's expf: an ulp from the host's
#endif

// Gates and ups of T: normal values scaled by 2^[-spread, spread] (SiLU's both tails).
template <class T>
std::vector<T> random_values(std::size_t n, std::uint32_t seed, int spread = 3) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::uniform_int_distribution<int> exponent(-spread, spread);
  std::vector<T> v(n);
  for (T& e : v) e = saturate_cast<T>(std::ldexp(normal(rng), exponent(rng)));
  return v;
}

template <class Fp8>
struct outputs {
  std::vector<Fp8> q;
  std::vector<float> scales;
#if defined(WAVEKIT_EMULATOR)
  emu::launch_counters counters;
#endif
};

// x ([tokens][2 * d]) and q go to the device over the problem's views (packed when its strides are
// 0): NaN between and after x's rows (a read outside the view makes a NaN code), q's filled with a
// marker; run() checks what lies outside q's view is unchanged and gives back its view's codes,
// packed in q's order.
template <class T, class Fp8>
outputs<Fp8> run(const sq::problem& p, const std::vector<T>& x, float scale) {
  const std::size_t n = std::size_t(p.tokens) * p.d;
  const row_view xv = p.x_view(), qv = p.q_view();
  const Fp8 marker = Fp8::from_bits(0xAB);
  T* d_x = test::upload(test::rows_stored(x, xv, T::from_bits(std::is_same_v<T, bf16> ? 0x7FC0 : 0x7E00)));
  std::vector<Fp8> q_stored(std::size_t(qv.rows * qv.ld()), marker);
  Fp8* d_q = test::upload(q_stored);
  float* d_scale = test::upload(std::vector<float>(n / 128 + 1, -1.0f));
  const sq::args<T, Fp8> a{d_x, d_q, p.out_scales == scale_granularity::group_1x128 ? d_scale : nullptr, scale};
#if defined(WAVEKIT_EMULATOR)
  emu::reset_counters();
#endif
  status s;  // graph-safe: no host synchronisation, copy back or allocation inside
  CHECK(test::graph_unsafe_calls_of([&](hipStream_t stream) { s = wavekit::swiglu_quant(p, a, stream); }).empty());
  INFO(s.message());
  REQUIRE(s.ok());
  REQUIRE(hipDeviceSynchronize() == hipSuccess);
  outputs<Fp8> o;
  hipMemcpy(q_stored.data(), d_q, q_stored.size(), hipMemcpyDeviceToHost);
  CHECK(test::changed_outside_view(q_stored, qv, marker) == 0);
  o.q = test::rows_gathered(q_stored, qv);
  o.scales.resize(n / 128);
  hipMemcpy(o.scales.data(), d_scale, n / 128 * 4, hipMemcpyDeviceToHost);
#if defined(WAVEKIT_EMULATOR)
  o.counters = emu::last_launch_counters();
  // Traffic: x read once; q and its scales written once.
  CHECK(o.counters.bytes_read_from(d_x) == 2 * n * sizeof(T));
  CHECK(o.counters.global_bytes_read == 2 * n * sizeof(T));
  CHECK(o.counters.global_bytes_written == n + (p.out_scales == scale_granularity::group_1x128 ? n / 128 * 4 : 0));
  // The performance model's launch moves exactly these bytes (ops/swiglu_quant/model.hpp).
  test::check_model_traffic(ops::swiglu_quant::model_launches(p, arch::current_device_arch().kind), o.counters);
#endif
  hipFree(d_x), hipFree(d_q), hipFree(d_scale);
  return o;
}

template <class T, class Fp8>
void check(const sq::problem& p, float scale, std::vector<T> x = {}) {
  if (x.empty()) x = random_values<T>(std::size_t(p.tokens) * 2 * p.d, static_cast<std::uint32_t>(p.tokens * 7 + p.d));
  INFO(p.str() << (std::is_same_v<T, bf16> ? " bf16" : " fp16"));
  const outputs<Fp8> got = run<T, Fp8>(p, x, scale);
  const auto ref = host::reference_swiglu_quant<T, Fp8>(x, p.tokens, p.d, p.out_scales, scale, reference_exp{});
  const test::fp8_rows_diff d = test::compare_fp8_rows(ref.out, got.q, got.scales, p.order, expf_steps);
  INFO(d.first);
  CHECK(d.codes == 0);
  CHECK(d.scales == 0);
}

}  // namespace

TEST_CASE("swiglu_quant: the grid is the model's choice", "[ops]") {
  // A workgroup a row, or 1, 2, 4 or 8 a CU: the grid taken is within the model's error of the
  // fastest of them, and none that close is more robust (planning/model/plan_choice.hpp). Every
  // grid is at most the rows, and one row takes one workgroup.
  for (arch::target t : {arch::target::gfx942, arch::target::gfx950})
    for (int tokens : {1, 8, 64, 304, 1000, 2048, 4096, 16384})
      for (int d : {128, 7168}) {
        const sq::problem p{tokens, d, scale_granularity::group_1x128, layout::k_contiguous};
        const int cus = arch::facts_for(t).compute_units;
        std::vector<planning::scored_plan<int>> candidates;
        for (int grid : {tokens, std::min(tokens, cus), std::min(tokens, 2 * cus), std::min(tokens, 4 * cus),
                         std::min(tokens, 8 * cus)})
          candidates.push_back(planning::score(grid, planning::predict(sq::model_launches(p, t, grid), t)));
        const int chosen = sq::workgroups(p, t);
        INFO(arch::to_string(t) << " " << tokens << " x " << d << ": " << chosen << " workgroups");
        CHECK(chosen <= tokens);
        test::check_plan_choice(candidates, chosen, [](int a, int b) { return a == b; });
      }
  CHECK(sq::workgroups({1, 7168, scale_granularity::tensor, layout::k_contiguous}, arch::target::gfx942) == 1);
}

TEST_CASE("swiglu_quant: workgroups that take several rows match the reference", "[emu][ops]") {
  // 4096 rows of 128: the model gives each workgroup several rows on both targets (above), so
  // rows blockIdx.x + k * gridDim.x all run, and each once (the traffic checks in run()).
  test::with_device_fp8([&](auto fp8_format) {
    using fp8 = decltype(fp8_format);
    const sq::problem p{4096, 128, scale_granularity::group_1x128, layout::k_contiguous};
    REQUIRE(sq::workgroups(p, arch::current_device_arch().kind) < p.tokens);
    check<bf16, fp8>(p, 0.01f);
    check<fp16, fp8>(sq::problem{4096, 128, scale_granularity::tensor, layout::mn_contiguous}, 0.01f);
  });
}

TEST_CASE("swiglu_quant: every variant matches the reference at small sizes", "[emu][ops]") {
  test::with_device_fp8([&](auto fp8_format) {
    using fp8 = decltype(fp8_format);
    for (int tokens : {1, 7, 64})
      for (int d : {128, 384})
        for (scale_granularity s : {scale_granularity::tensor, scale_granularity::group_1x128})
          for (layout o : {layout::k_contiguous, layout::mn_contiguous})
            check<fp16, fp8>(sq::problem{tokens, d, s, o}, 0.01f),
                check<bf16, fp8>(sq::problem{tokens, d, s, o}, 0.01f);
    // d a multiple of 8 but not of 128: per tensor only.
    check<fp16, fp8>(sq::problem{7, 8, scale_granularity::tensor, layout::k_contiguous}, 0.01f);
    check<bf16, fp8>(sq::problem{5, 1000, scale_granularity::tensor, layout::mn_contiguous}, 0.01f);
  });
}

TEST_CASE("swiglu_quant: d 128 to 16384, tokens 1 to 1000, match the reference", "[emu][ops]") {
  test::with_device_fp8([&](auto fp8_format) {
    using fp8 = decltype(fp8_format);
    int variant = 0;
    for (int d : {128, 4096, 7168, 8192, 16384})
      for (int tokens : {1, 7, 64, 1000}) {
        if (tokens == 1000 && d != 128 && d != 4096) continue;  // the emulator's time
        // The seed's form (fp16, per tensor, k_contiguous) below 1000 tokens, and one more
        // variant in turn: a type, a scaling, an order.
        if (tokens < 1000)
          check<fp16, fp8>(sq::problem{tokens, d, scale_granularity::tensor, layout::k_contiguous}, 0.01f);
        const scale_granularity s = variant % 2 ? scale_granularity::tensor : scale_granularity::group_1x128;
        const layout o = variant / 2 % 2 ? layout::mn_contiguous : layout::k_contiguous;
        if (variant++ / 4 % 2)
          check<fp16, fp8>(sq::problem{tokens, d, s, o}, 0.02f);
        else
          check<bf16, fp8>(sq::problem{tokens, d, s, o}, 0.02f);
      }
  });
}

TEST_CASE("swiglu_quant: views of x and q match the packed reference", "[emu][ops]") {
  // Rows a stride apart with NaN between x's rows and a marker between q's: the result is the
  // packed problem's, and nothing outside q's view is written (run() checks it).
  test::with_device_fp8([&](auto fp8_format) {
    using fp8 = decltype(fp8_format);
    for (int tokens : {1, 7})
      for (scale_granularity s : {scale_granularity::tensor, scale_granularity::group_1x128})
        for (layout o : {layout::k_contiguous, layout::mn_contiguous}) {
          sq::problem p{tokens, 384, s, o};
          p.x_stride = 2 * 384 + 64;                                      // a fused projection's padded rows
          p.q_stride = o == layout::k_contiguous ? 384 + 8 : tokens + 5;  // the mn order takes any stride
          check<bf16, fp8>(p, 0.01f);
          check<fp16, fp8>(p, 0.01f);
        }
    // One view at a time, the other packed; d a multiple of 8 only (per tensor).
    sq::problem only_x{5, 1000, scale_granularity::tensor, layout::mn_contiguous};
    only_x.x_stride = 2008;
    check<fp16, fp8>(only_x, 0.01f);
    sq::problem only_q{5, 256, scale_granularity::group_1x128, layout::k_contiguous};
    only_q.q_stride = 1024;
    check<bf16, fp8>(only_q, 0.01f);
    // Workgroups that take several rows: each row's start moves by the strides.
    sq::problem many{4096, 128, scale_granularity::group_1x128, layout::k_contiguous};
    many.x_stride = 264, many.q_stride = 136;
    REQUIRE(sq::workgroups(many, arch::current_device_arch().kind) < many.tokens);
    check<bf16, fp8>(many, 0.01f);
    many.order = layout::mn_contiguous, many.q_stride = 4099;
    check<fp16, fp8>(many, 0.01f);
    // The problem's text names its non-zero strides.
    CHECK(many.str() == "4096x128 scales group_1x128 mn_contiguous x_stride 264 q_stride 4099");
  });
}

TEST_CASE("swiglu_quant: NaN and Inf propagate as the reference says", "[emu][ops]") {
  test::with_device_fp8([&](auto fp8_format) {
    using fp8 = decltype(fp8_format);
    const int tokens = 3, d = 256;
    auto x = random_values<bf16>(std::size_t(tokens) * 2 * d, 21);
    const bf16 inf = bf16::from_bits(0x7F80), minus_inf = bf16::from_bits(0xFF80), nan = bf16::from_bits(0x7FC0);
    auto gate = [&](int t, int c) -> bf16& { return x[std::size_t(t) * 2 * d + c]; };
    auto up = [&](int t, int c) -> bf16& { return x[std::size_t(t) * 2 * d + d + c]; };
    gate(0, 1) = nan;                                            // NaN
    up(0, 2) = nan;                                              // NaN
    gate(0, 3) = minus_inf;                                      // -Inf / Inf: NaN
    gate(0, 4) = inf, up(0, 4) = saturate_cast<bf16>(-0.5f);     // -Inf: saturates per tensor
    gate(0, 5) = bf16::from_bits(0), up(0, 5) = inf;             // 0 * Inf: NaN
    gate(1, 130) = inf, up(1, 130) = saturate_cast<bf16>(2.0f);  // an Inf in group 1 of row 1
    for (scale_granularity s : {scale_granularity::tensor, scale_granularity::group_1x128})
      for (layout o : {layout::k_contiguous, layout::mn_contiguous}) {
        const sq::problem p{tokens, d, s, o};
        check<bf16, fp8>(p, 0.01f, x);
        const auto got = run<bf16, fp8>(p, x, 0.01f);
        auto code = [&](int t, int c) {
          return to_float(got.q[o == layout::k_contiguous ? t * d + c : c * tokens + t]);
        };
        for (int c : {1, 2, 3, 5}) CHECK(std::isnan(code(0, c)));
        CHECK(std::isnan(code(1, 130)) == (s == scale_granularity::group_1x128));  // Inf / Inf in its group
        if (s == scale_granularity::tensor) {
          CHECK(code(0, 4) == -element_limits<fp8>::max_finite);
          CHECK(code(1, 130) == element_limits<fp8>::max_finite);
        } else {
          for (int c = 128; c < 256; ++c)
            if (c != 130) CHECK(code(1, c) == 0.0f);  // the group's scale is Inf
        }
      }
  });
}

TEST_CASE("swiglu_quant: saturates at the fp8 maximum", "[emu][ops]") {
  test::with_device_fp8([&](auto fp8_format) {
    using fp8 = decltype(fp8_format);
    const int tokens = 7, d = 4096;
    const auto x = random_values<fp16>(std::size_t(tokens) * 2 * d, 22);
    for (layout o : {layout::k_contiguous, layout::mn_contiguous}) {
      const sq::problem p{tokens, d, scale_granularity::tensor, o};
      check<fp16, fp8>(p, 1e-4f, x);
      const auto got = run<fp16, fp8>(p, x, 1e-4f);
      long saturated = 0, nans = 0;
      for (fp8 q : got.q)
        saturated += std::fabs(to_float(q)) == element_limits<fp8>::max_finite, nans += std::isnan(to_float(q));
      CHECK(saturated > long(got.q.size()) / 4);
      CHECK(nans == 0);
    }
    // 1x128: each group's amax lands exactly on the largest finite value.
    const auto got =
        run<fp16, fp8>(sq::problem{tokens, d, scale_granularity::group_1x128, layout::k_contiguous}, x, 1.0f);
    for (int g = 0; g < tokens * d / 128; ++g) {
      bool at_max = false;
      for (int c = 0; c < 128; ++c)
        at_max |= std::fabs(to_float(got.q[g * 128 + c])) == element_limits<fp8>::max_finite;
      CHECK(at_max);
    }
  });
}

TEST_CASE("swiglu_quant: two runs give the same bits", "[emu][ops]") {
  test::with_device_fp8([&](auto fp8_format) {
    using fp8 = decltype(fp8_format);
    const auto x = random_values<bf16>(std::size_t(700) * 2 * 4096, 23);
    for (scale_granularity s : {scale_granularity::tensor, scale_granularity::group_1x128}) {
      const sq::problem p{700, 4096, s, layout::mn_contiguous};
      const auto a = run<bf16, fp8>(p, x, 0.02f), b = run<bf16, fp8>(p, x, 0.02f);
      CHECK(std::memcmp(a.q.data(), b.q.data(), a.q.size()) == 0);
      CHECK(std::memcmp(a.scales.data(), b.scales.data(), a.scales.size() * 4) == 0);
    }
  });
}

#if defined(WAVEKIT_EMULATOR)
TEST_CASE("swiglu_quant: bytes moved against the ideal (inputs and outputs once)", "[emu][ops]") {
  test::with_device_fp8([&](auto fp8_format) {
    using fp8 = decltype(fp8_format);
    // Llama 405B TP8's intermediate 53248 / 8 = 6656 and DeepSeek-V3's 18432 / 8 = 2304: run()
    // checks every byte moves once; here the totals.
    for (int d : {6656, 2304})
      for (int tokens : {1, 16, 64})
        for (scale_granularity s : {scale_granularity::tensor, scale_granularity::group_1x128}) {
          const sq::problem p{tokens, d, s, layout::k_contiguous};
          const std::size_t n = std::size_t(tokens) * d;
          const auto got = run<fp16, fp8>(p, random_values<fp16>(2 * n, 24), 0.02f);
          const double elements = double(n), ideal_read = elements * 4;
          const double ideal_written = elements + (s == scale_granularity::group_1x128 ? elements / 128 * 4 : 0.0);
          const double read = double(got.counters.global_bytes_read),
                       written = double(got.counters.global_bytes_written);
          std::printf(
              "swiglu_quant %3d x %5d fp16 %-11s: read %.4g B (ideal %.4g, ratio %.3f), written %.4g B "
              "(ideal %.4g, ratio %.3f)\n",
              tokens, d, to_string(s), read, ideal_read, read / ideal_read, written, ideal_written,
              written / ideal_written);
          CHECK(read == ideal_read);
          CHECK(written == ideal_written);
        }
  });
}
#endif

TEST_CASE("swiglu_quant: bad inputs are refused before any launch, naming the argument and the rule", "[emu][ops]") {
  test::with_device_fp8([&](auto fp8_format) {
    using fp8 = decltype(fp8_format);
    alignas(16) static unsigned char memory[64];
    auto* x = reinterpret_cast<bf16*>(memory);
    auto* q = reinterpret_cast<fp8*>(memory);
    auto* scales = reinterpret_cast<float*>(memory);
    const sq::args<bf16, fp8> good{x, q, scales, 0.5f};
    const sq::problem p{4, 256, scale_granularity::group_1x128, layout::k_contiguous};
    auto expect = [&](const sq::problem& pp, sq::args<bf16, fp8> a, status_code code, const std::string& text) {
      const status s = wavekit::swiglu_quant(pp, a, nullptr);
      INFO(s.message());
      CHECK(s.code() == code);
      CHECK(s.message().find("swiglu_quant") != std::string::npos);
      CHECK(s.message().find(text) != std::string::npos);
    };
    auto with = [&](auto change) {
      sq::args<bf16, fp8> a = good;
      change(a);
      return a;
    };
    expect(p, with([&](auto& a) { a.x = nullptr; }), status_code::null_pointer, "argument x is null");
    expect(p, with([&](auto& a) { a.q = nullptr; }), status_code::null_pointer, "argument q is null");
    expect(p, with([&](auto& a) { a.q_scale = nullptr; }), status_code::null_pointer, "argument q_scale is null");
    expect(p, with([&](auto& a) { a.x = reinterpret_cast<bf16*>(memory + 8); }), status_code::bad_alignment,
           "argument x must be 16-byte aligned");
    expect(p, with([&](auto& a) { a.q = q + 4; }), status_code::bad_alignment, "argument q must be 8-byte aligned");
    expect(p, with([&](auto& a) { a.q_scale = reinterpret_cast<float*>(memory + 2); }), status_code::bad_alignment,
           "argument q_scale must be 4-byte aligned");
    expect(sq::problem{-1, 256, scale_granularity::tensor, layout::k_contiguous}, good, status_code::bad_shape,
           "tokens must be >= 0");
    // No tokens: no pointer is checked, nothing is launched.
    test::check_launches_nothing([] {
      return wavekit::swiglu_quant(sq::problem{0, 256, scale_granularity::tensor, layout::k_contiguous},
                                   sq::args<bf16, fp8>{nullptr, nullptr, nullptr, 0.5f}, nullptr);
    });
    expect(sq::problem{4, -8, scale_granularity::tensor, layout::k_contiguous}, good, status_code::bad_shape,
           "d must be a positive multiple of 8");
    expect(sq::problem{4, 20, scale_granularity::tensor, layout::k_contiguous}, good, status_code::bad_shape,
           "d must be a positive multiple of 8");
    expect(sq::problem{4, 200, scale_granularity::group_1x128, layout::k_contiguous}, good, status_code::bad_shape,
           "d must be a multiple of 128 for 1x128 scales");
    expect(sq::problem{4, 256, static_cast<scale_granularity>(7), layout::k_contiguous}, good, status_code::bad_format,
           "out_scales must be scale_granularity::tensor or group_1x128");
    expect(sq::problem{4, 256, scale_granularity::row, layout::k_contiguous}, good, status_code::bad_format,
           "out_scales must be scale_granularity::tensor or group_1x128");
    expect(sq::problem{4, 256, scale_granularity::tensor, static_cast<layout>(7)}, good, status_code::bad_shape,
           "order must be");
    expect(sq::problem{1 << 16, 8192, scale_granularity::tensor, layout::k_contiguous}, good, status_code::too_large,
           "32-bit buffer offsets");
    // Row strides: each status names the field and its rule (core/row_view.hpp).
    auto strided = [&](layout o, auto change) {
      sq::problem pp{4, 256, scale_granularity::group_1x128, o};
      change(pp);
      return pp;
    };
    const auto k = layout::k_contiguous, mn = layout::mn_contiguous;
    const std::int64_t two_31 = std::int64_t(1) << 31;
    expect(strided(k, [](auto& pp) { pp.x_stride = 504; }), good, status_code::bad_shape,
           "x_stride (504) must be 0 (packed) or at least 2 * d (512)");
    expect(strided(k, [](auto& pp) { pp.x_stride = -512; }), good, status_code::bad_shape,
           "x_stride (-512) must be 0 (packed) or at least 2 * d (512)");
    expect(strided(k, [](auto& pp) { pp.x_stride = 516; }), good, status_code::bad_alignment,
           "x_stride (516) must be a multiple of 8 elements (16-byte vector loads)");
    expect(strided(k, [&](auto& pp) { pp.x_stride = two_31; }), good, status_code::too_large,
           "x_stride (2147483648) must be below 2^31");
    expect(strided(k, [](auto& pp) { pp.x_stride = std::int64_t(1) << 29; }), good, status_code::too_large,
           "x spans 1610613248 elements ((tokens - 1) * x_stride + 2 * d,");
    expect(strided(k, [](auto& pp) { pp.q_stride = 128; }), good, status_code::bad_shape,
           "q_stride (128) must be 0 (packed) or at least d (256)");
    expect(strided(k, [](auto& pp) { pp.q_stride = 257; }), good, status_code::bad_alignment,
           "q_stride (257) must be a multiple of 8 elements (8-byte vector stores)");
    expect(strided(k, [&](auto& pp) { pp.q_stride = two_31 + 8; }), good, status_code::too_large,
           "q_stride (2147483656) must be below 2^31");
    expect(strided(k, [](auto& pp) { pp.q_stride = 1 << 30; }), good, status_code::too_large,
           "q spans 3221225728 elements ((tokens - 1) * q_stride + d,");
    // The mn_contiguous q: d rows of tokens codes, any stride from tokens on.
    expect(strided(mn, [](auto& pp) { pp.q_stride = 2; }), good, status_code::bad_shape,
           "q_stride (2) must be 0 (packed) or at least tokens (4)");
    expect(strided(mn, [&](auto& pp) { pp.q_stride = two_31; }), good, status_code::too_large,
           "q_stride (2147483648) must be below 2^31");
    expect(strided(mn, [](auto& pp) { pp.q_stride = 1 << 24; }), good, status_code::too_large,
           "q spans 4278190084 elements ((d - 1) * q_stride + tokens,");
    CHECK(sq::validate(strided(mn, [](auto& pp) { pp.q_stride = 7; }), good).ok());
    const sq::problem per_tensor{4, 256, scale_granularity::tensor, layout::k_contiguous};
    for (float scale : {0.0f, -1.0f, std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()})
      expect(per_tensor, with([&](auto& a) { a.scale = scale; }), status_code::bad_shape,
             "the per-tensor scale must be finite and positive");
    // Per tensor reads no q_scale; the mn_contiguous order stores bytes (any alignment of q).
    const sq::problem plain{4, 256, scale_granularity::tensor, layout::mn_contiguous};
    CHECK(sq::validate(plain, with([&](auto& a) { a.q_scale = nullptr, a.q = q + 1; })).ok());
    using other = test::other_fp8_t<fp8>;
    const sq::args<bf16, other> wrong{x, reinterpret_cast<other*>(memory), scales, 0.5f};
    const status s = wavekit::swiglu_quant(p, wrong, nullptr);
    INFO(s.message());
    CHECK(s.code() == status_code::bad_format);
    CHECK(s.message().find("swiglu_quant") != std::string::npos);
  });
}
