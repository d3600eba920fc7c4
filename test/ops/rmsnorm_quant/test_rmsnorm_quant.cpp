// ops/rmsnorm_quant: residual + RMSNorm + fp8 against host::reference_rmsnorm_quant, bit for bit
// (the reference sums the squares in the kernel's order), over hidden 128 / 4096 / 7168 / 8192 /
// 16384 and tokens 1 / 7 / 64 / 1000, bf16 and fp16, both scalings, both storage orders, with and
// without the residual; NaN and Inf rows; saturation at the fp8 maximum; two runs equal; the
// traffic (each byte of x, the residual and the outputs moved once, the weight once a workgroup);
// views (row strides) of x, the residual and q, nothing read or written outside them; every
// bad-input status.
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
#include "wavekit/host/reference_rmsnorm_quant.hpp"
#include "wavekit/ops/rmsnorm_quant.hpp"
#include "wavekit/ops/rmsnorm_quant/model.hpp"

#if defined(WAVEKIT_EMULATOR)
#include "support/model_traffic_check.hpp"
#endif

using namespace wavekit;
namespace rq = wavekit::ops::rmsnorm_quant;

namespace {

// Values of T around 1 with a spread of magnitudes (a row's scale from 2^-spread to 2^spread).
template <class T>
std::vector<T> random_values(std::size_t n, std::uint32_t seed, float offset = 0.0f, int spread = 3) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::uniform_int_distribution<int> exponent(-spread, spread);
  std::vector<T> v(n);
  for (T& e : v) e = saturate_cast<T>(offset + std::ldexp(normal(rng), exponent(rng)));
  return v;
}

// What one run gave back.
template <class T, class Fp8>
struct outputs {
  std::vector<T> residual;
  std::vector<Fp8> q;
  std::vector<float> scales;
#if defined(WAVEKIT_EMULATOR)
  emu::launch_counters counters;
#endif
};

// x, residual ([tokens][hidden]) and q go to the device over the problem's views (packed when its
// strides are 0): NaN between and after x's and the residual's rows (a read outside a view makes
// a NaN row), q's filled with a marker; run() checks what lies outside the residual's and q's views
// is unchanged and gives back their views' values, packed (q in its order).
template <class T, class Fp8>
outputs<T, Fp8> run(const rq::problem& p, const std::vector<T>& x, const std::vector<T>& residual,
                    const std::vector<T>& weight, float scale, float eps) {
  const std::size_t n = std::size_t(p.tokens) * p.hidden;
  const row_view xv = p.x_view(), rv = p.residual_view(), qv = p.q_view();
  const T nan = T::from_bits(std::is_same_v<T, bf16> ? 0x7FC0 : 0x7E00);
  const Fp8 marker = Fp8::from_bits(0xAB);
  T *d_x = test::upload(test::rows_stored(x, xv, nan)), *d_res = test::upload(test::rows_stored(residual, rv, nan)),
    *d_w = test::upload(weight);
  std::vector<T> residual_stored(std::size_t(rv.rows * rv.ld()));
  std::vector<Fp8> q_stored(std::size_t(qv.rows * qv.ld()), marker);
  Fp8* d_q = test::upload(q_stored);
  float* d_scale = test::upload(std::vector<float>(n / 128 + 1, -1.0f));
  const rq::args<T, Fp8> a{d_x,
                           p.residual == rq::residual_mode::add ? d_res : nullptr,
                           d_w,
                           d_q,
                           p.out_scales == scale_granularity::group_1x128 ? d_scale : nullptr,
                           scale,
                           eps};
#if defined(WAVEKIT_EMULATOR)
  emu::reset_counters();
#endif
  status s;  // graph-safe: no host synchronisation, copy back or allocation inside
  CHECK(test::graph_unsafe_calls_of([&](hipStream_t stream) { s = wavekit::rmsnorm_quant(p, a, stream); }).empty());
  INFO(s.message());
  REQUIRE(s.ok());
  REQUIRE(hipDeviceSynchronize() == hipSuccess);
  outputs<T, Fp8> o;
  hipMemcpy(residual_stored.data(), d_res, residual_stored.size() * sizeof(T), hipMemcpyDeviceToHost);
  hipMemcpy(q_stored.data(), d_q, q_stored.size(), hipMemcpyDeviceToHost);
  CHECK(test::changed_outside_view(residual_stored, rv, nan) == 0);
  CHECK(test::changed_outside_view(q_stored, qv, marker) == 0);
  o.residual = test::rows_gathered(residual_stored, rv), o.q = test::rows_gathered(q_stored, qv);
  o.scales.resize(n / 128);
  hipMemcpy(o.scales.data(), d_scale, n / 128 * 4, hipMemcpyDeviceToHost);
#if defined(WAVEKIT_EMULATOR)
  o.counters = emu::last_launch_counters();
  // Traffic: x and the residual read once, the weight once a workgroup; every output written once.
  const std::uint64_t once = n * sizeof(T);
  CHECK(o.counters.bytes_read_from(d_x) == once);
  CHECK(o.counters.bytes_read_from(d_res) == (p.residual == rq::residual_mode::add ? once : 0));
  CHECK(o.counters.bytes_read_from(d_w) == std::uint64_t(o.counters.blocks) * p.hidden * sizeof(T));
  CHECK(o.counters.global_bytes_read_distinct ==
        (p.residual == rq::residual_mode::add ? 2 : 1) * once + p.hidden * sizeof(T));
  // The performance model's launch moves exactly these bytes (ops/rmsnorm_quant/model.hpp).
  test::check_model_traffic(rq::model_launches(p, arch::current_device_arch().kind), o.counters);
  CHECK(o.counters.global_bytes_written == (p.residual == rq::residual_mode::add ? once : 0) + n +
                                               (p.out_scales == scale_granularity::group_1x128 ? n / 128 * 4 : 0));
#endif
  hipFree(d_x), hipFree(d_res), hipFree(d_w), hipFree(d_q), hipFree(d_scale);
  return o;
}

// One problem against the reference; x, residual and weight random unless given.
template <class T, class Fp8>
void check(const rq::problem& p, float scale, std::vector<T> x = {}, std::vector<T> residual = {},
           std::vector<T> weight = {}, float eps = 1e-5f) {
  const std::size_t n = std::size_t(p.tokens) * p.hidden;
  const auto seed = static_cast<std::uint32_t>(p.tokens * 131 + p.hidden);
  if (x.empty()) x = random_values<T>(n, seed);
  if (residual.empty()) residual = random_values<T>(n, seed + 1);
  if (weight.empty()) weight = random_values<T>(p.hidden, seed + 2, 1.0f, 0);
  INFO(p.str() << (sizeof(T) == 2 && std::is_same_v<T, bf16> ? " bf16" : " fp16"));
  const outputs<T, Fp8> got = run<T, Fp8>(p, x, residual, weight, scale, eps);
  const bool add = p.residual == rq::residual_mode::add;
  const auto ref =
      host::reference_rmsnorm_quant<T, Fp8>(x, add ? std::span<const T>(residual) : std::span<const T>(), weight,
                                            p.tokens, p.hidden, eps, p.out_scales, scale, rq::row_threads);
  if (add) {
    long differ = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const bool nan = std::isnan(widen_to_float(ref.residual[i]));
      differ += nan ? !std::isnan(widen_to_float(got.residual[i])) : got.residual[i].bits != ref.residual[i].bits;
    }
    CHECK(differ == 0);
  }
  const test::fp8_rows_diff d = test::compare_fp8_rows(ref.out, got.q, got.scales, p.order);
  INFO(d.first);
  CHECK(d.codes == 0);
  CHECK(d.scales == 0);
}

// Every variant of scaling, order and residual for one shape and type.
template <class T, class Fp8>
void check_variants(int tokens, int hidden) {
  for (scale_granularity s : {scale_granularity::tensor, scale_granularity::group_1x128})
    for (layout o : {layout::k_contiguous, layout::mn_contiguous})
      for (rq::residual_mode r : {rq::residual_mode::add, rq::residual_mode::none})
        check<T, Fp8>(rq::problem{tokens, hidden, s, o, r}, 0.02f);
}

}  // namespace

TEST_CASE("rmsnorm_quant: the grid is the model's choice", "[ops]") {
  // A workgroup a row, or 1, 2, 4 or 8 a CU: the grid taken is within the model's error of the
  // fastest of them, and none that close keeps more waves in flight (planning/model/plan_choice.hpp). Every
  // grid is at most the rows, and one row takes one workgroup.
  namespace rq = wavekit::ops::rmsnorm_quant;
  for (arch::target t : {arch::target::gfx942, arch::target::gfx950})
    for (int tokens : {1, 8, 64, 304, 1000, 2048, 16384}) {
      const rq::problem p{tokens, 7168, scale_granularity::group_1x128, layout::k_contiguous, rq::residual_mode::add};
      const int cus = arch::facts_for(t).compute_units;
      std::vector<planning::scored_plan<int>> candidates;
      for (int grid : {tokens, std::min(tokens, cus), std::min(tokens, 2 * cus), std::min(tokens, 4 * cus),
                       std::min(tokens, 8 * cus)})
        candidates.push_back(planning::score(grid, planning::predict(rq::model_launches(p, t, grid), t)));
      const int chosen = rq::workgroups(p, t);
      INFO(arch::to_string(t) << " " << tokens << " rows: " << chosen << " workgroups");
      CHECK(chosen <= tokens);
      test::check_plan_choice(candidates, chosen, [](int a, int b) { return a == b; });
    }
  CHECK(rq::workgroups({1, 7168, scale_granularity::tensor, layout::k_contiguous, rq::residual_mode::add},
                       arch::target::gfx942) == 1);
}

TEST_CASE("rmsnorm_quant: every variant matches the reference bit for bit at small sizes", "[emu][ops]") {
  test::with_device_fp8([&](auto fp8_format) {
    using fp8 = decltype(fp8_format);
    for (int tokens : {1, 7, 64})
      for (int hidden : {128, 384})
        check_variants<fp16, fp8>(tokens, hidden), check_variants<bf16, fp8>(tokens, hidden);
    // hidden a multiple of 8 but not of 128: per tensor only.
    for (rq::residual_mode r : {rq::residual_mode::add, rq::residual_mode::none}) {
      check<fp16, fp8>(rq::problem{7, 8, scale_granularity::tensor, layout::k_contiguous, r}, 0.02f);
      check<bf16, fp8>(rq::problem{5, 1000, scale_granularity::tensor, layout::mn_contiguous, r}, 0.02f);
    }
  });
}

TEST_CASE("rmsnorm_quant: hidden 128 to 16384, tokens 1 to 1000, match the reference bit for bit", "[emu][ops]") {
  test::with_device_fp8([&](auto fp8_format) {
    using fp8 = decltype(fp8_format);
    constexpr auto add = rq::residual_mode::add;
    int variant = 0;
    for (int hidden : {128, 4096, 7168, 8192, 16384})
      for (int tokens : {1, 7, 64, 1000}) {
        if (tokens == 1000 && hidden != 128 && hidden != 7168) continue;  // the emulator's time
        // The seed's form (fp16, per tensor, k_contiguous, residual added) at every shape below
        // 1000 tokens, and one more variant in turn: a type, a scaling, an order, a residual mode.
        if (tokens < 1000)
          check<fp16, fp8>(rq::problem{tokens, hidden, scale_granularity::tensor, layout::k_contiguous, add}, 0.02f);
        const scale_granularity s = variant % 2 ? scale_granularity::tensor : scale_granularity::group_1x128;
        const layout o = variant / 2 % 2 ? layout::mn_contiguous : layout::k_contiguous;
        const rq::residual_mode r = variant % 5 == 4 ? rq::residual_mode::none : add;
        const rq::problem p{tokens, hidden, s, o, r};
        if (variant++ / 4 % 2)
          check<fp16, fp8>(p, 0.05f);
        else
          check<bf16, fp8>(p, 0.05f);
      }
  });
}

TEST_CASE("rmsnorm_quant: views of x, the residual and q match the packed reference bit for bit", "[emu][ops]") {
  // Rows a stride apart with NaN between the rows of x and of the residual and a marker between q's:
  // the result is the packed problem's, bit for bit, and nothing outside the residual's and q's
  // views is written (run() checks both).
  test::with_device_fp8([&](auto fp8_format) {
    using fp8 = decltype(fp8_format);
    for (int tokens : {1, 7})
      for (scale_granularity s : {scale_granularity::tensor, scale_granularity::group_1x128})
        for (layout o : {layout::k_contiguous, layout::mn_contiguous})
          for (rq::residual_mode r : {rq::residual_mode::add, rq::residual_mode::none}) {
            rq::problem p{tokens, 384, s, o, r};
            p.x_stride = 384 + 128;       // x: the first 384 columns of wider rows
            p.residual_stride = 384 + 8;  // one 16-byte load's worth of padding, unlike x's
            p.q_stride = o == layout::k_contiguous ? 384 + 24 : tokens + 3;  // the mn order takes any stride
            check<bf16, fp8>(p, 0.02f);
            check<fp16, fp8>(p, 0.02f);
          }
    // One view at a time, the others packed; hidden a multiple of 8 only (per tensor).
    rq::problem only_x{5, 1000, scale_granularity::tensor, layout::k_contiguous, rq::residual_mode::add};
    only_x.x_stride = 1016;
    check<fp16, fp8>(only_x, 0.02f);
    rq::problem only_residual{5, 256, scale_granularity::group_1x128, layout::mn_contiguous, rq::residual_mode::add};
    only_residual.residual_stride = 4096;
    check<bf16, fp8>(only_residual, 0.02f);
    rq::problem only_q{5, 256, scale_granularity::group_1x128, layout::k_contiguous, rq::residual_mode::add};
    only_q.q_stride = 1024;
    check<bf16, fp8>(only_q, 0.02f);
    // Workgroups that take several rows: each row's start moves by the strides.
    rq::problem many{1000, 128, scale_granularity::group_1x128, layout::k_contiguous, rq::residual_mode::add};
    many.x_stride = 136, many.residual_stride = 256, many.q_stride = 200;
    REQUIRE(rq::workgroups(many, arch::current_device_arch().kind) < many.tokens);
    check<bf16, fp8>(many, 0.02f);
    many.order = layout::mn_contiguous, many.q_stride = 1001;
    check<fp16, fp8>(many, 0.02f);
    // The problem's text names its non-zero strides.
    CHECK(many.str() ==
          "1000x128 scales group_1x128 mn_contiguous residual add x_stride 136 residual_stride 256 "
          "q_stride 1001");
  });
}

TEST_CASE("rmsnorm_quant: NaN and Inf propagate as the reference says", "[emu][ops]") {
  test::with_device_fp8([&](auto fp8_format) {
    using fp8 = decltype(fp8_format);
    const int tokens = 6, hidden = 256;
    auto x = random_values<fp16>(tokens * hidden, 5), residual = random_values<fp16>(tokens * hidden, 6);
    const auto weight = random_values<fp16>(hidden, 7, 1.0f, 0);
    const fp16 inf = fp16::from_bits(0x7C00), nan = fp16::from_bits(0x7E00), zero = fp16::from_bits(0);
    x[0 * hidden + 5] = nan;                                                       // row 0: a NaN
    residual[1 * hidden + 7] = inf;                                                // row 1: an Inf residual
    x[2 * hidden + 3] = residual[2 * hidden + 3] = saturate_cast<fp16>(60000.0f);  // row 2: the sum overflows fp16
    for (int c = 0; c < hidden; ++c) x[3 * hidden + c] = residual[3 * hidden + c] = zero;  // row 3: all zero
    x[4 * hidden + 200] = fp16::from_bits(0xFC00);                                         // row 4: -Inf
    for (scale_granularity s : {scale_granularity::tensor, scale_granularity::group_1x128})
      for (layout o : {layout::k_contiguous, layout::mn_contiguous}) {
        const rq::problem p{tokens, hidden, s, o, rq::residual_mode::add};
        check<fp16, fp8>(p, 0.02f, x, residual, weight);
        // The documented outcomes, spelled out: row 0 all NaN; rows 1, 2 and 4 zero but their Inf
        // element (NaN); row 3 zero (its 1x128 scales 1); row 5 finite.
        const auto got = run<fp16, fp8>(p, x, residual, weight, 0.02f, 1e-5f);
        auto code = [&](int t, int c) { return got.q[o == layout::k_contiguous ? t * hidden + c : c * tokens + t]; };
        for (int c = 0; c < hidden; ++c) {
          INFO("column " << c);
          CHECK(std::isnan(to_float(code(0, c))));
          CHECK((c == 7 ? std::isnan(to_float(code(1, c))) : to_float(code(1, c)) == 0.0f));
          CHECK((c == 3 ? std::isnan(to_float(code(2, c))) : to_float(code(2, c)) == 0.0f));
          CHECK(to_float(code(3, c)) == 0.0f);
          CHECK((c == 200 ? std::isnan(to_float(code(4, c))) : to_float(code(4, c)) == 0.0f));
          CHECK(!std::isnan(to_float(code(5, c))));
        }
        if (s == scale_granularity::group_1x128) {
          const int groups = hidden / 128;
          auto scale = [&](int t, int g) {
            return got.scales[o == layout::k_contiguous ? t * groups + g : g * tokens + t];
          };
          CHECK(scale(0, 0) == 1.0f);  // no amax: NaN is never one
          CHECK(scale(3, 1) == 1.0f);  // an all-zero group
        }
      }
    // eps = 0 and an all-zero row: rstd = 1 / sqrt(0) = Inf, y = 0 * Inf = NaN.
    check<fp16, fp8>(
        rq::problem{tokens, hidden, scale_granularity::tensor, layout::k_contiguous, rq::residual_mode::add}, 0.02f, x,
        residual, weight, 0.0f);
    // bf16: squares past fp32's range make the sum Inf (rstd 0, the row zero).
    auto xb = random_values<bf16>(tokens * hidden, 8);
    xb[2 * hidden + 9] = saturate_cast<bf16>(0x1p70f);
    check<bf16, fp8>(
        rq::problem{tokens, hidden, scale_granularity::group_1x128, layout::k_contiguous, rq::residual_mode::none},
        0.0f, xb);
  });
}

TEST_CASE("rmsnorm_quant: saturates at the fp8 maximum", "[emu][ops]") {
  test::with_device_fp8([&](auto fp8_format) {
    using fp8 = decltype(fp8_format);
    const int tokens = 7, hidden = 4096;
    const auto x = random_values<bf16>(tokens * hidden, 9), residual = random_values<bf16>(tokens * hidden, 10);
    const auto weight = random_values<bf16>(hidden, 11, 1.0f, 0);
    const std::uint8_t max_code = fp8::from_bits(0x7F).bits == 0x7F && std::isnan(to_float(fp8::from_bits(0x7F)))
                                      ? 0x7E
                                      : 0x7F;  // e4m3fn's 0x7F is NaN, its largest finite 0x7E
    // Per tensor: a scale small enough that most of each row lands past the largest finite value.
    for (layout o : {layout::k_contiguous, layout::mn_contiguous}) {
      const rq::problem p{tokens, hidden, scale_granularity::tensor, o, rq::residual_mode::add};
      check<bf16, fp8>(p, 1e-4f, x, residual, weight);
      const auto got = run<bf16, fp8>(p, x, residual, weight, 1e-4f, 1e-5f);
      long saturated = 0, nans = 0;
      for (fp8 q : got.q) saturated += (q.bits & 0x7F) == max_code, nans += std::isnan(to_float(q));
      CHECK(saturated > long(got.q.size()) / 2);
      CHECK(nans == 0);
    }
    // 1x128: each group's amax lands exactly on the largest finite code.
    const rq::problem p{tokens, hidden, scale_granularity::group_1x128, layout::k_contiguous, rq::residual_mode::add};
    const auto got = run<bf16, fp8>(p, x, residual, weight, 0.0f, 1e-5f);
    for (int g = 0; g < tokens * hidden / 128; ++g) {
      bool at_max = false;
      for (int c = 0; c < 128; ++c) at_max |= (got.q[g * 128 + c].bits & 0x7F) == max_code;
      CHECK(at_max);
    }
  });
}

TEST_CASE("rmsnorm_quant: two runs give the same bits", "[emu][ops]") {
  test::with_device_fp8([&](auto fp8_format) {
    using fp8 = decltype(fp8_format);
    for (scale_granularity s : {scale_granularity::tensor, scale_granularity::group_1x128}) {
      const rq::problem p{700, 4096, s, layout::k_contiguous, rq::residual_mode::add};  // rows share workgroups
      const auto x = random_values<bf16>(700 * 4096, 12), residual = random_values<bf16>(700 * 4096, 13);
      const auto weight = random_values<bf16>(4096, 14, 1.0f, 0);
      const auto a = run<bf16, fp8>(p, x, residual, weight, 0.05f, 1e-6f);
      const auto b = run<bf16, fp8>(p, x, residual, weight, 0.05f, 1e-6f);
      CHECK(std::memcmp(a.q.data(), b.q.data(), a.q.size()) == 0);
      CHECK(std::memcmp(a.scales.data(), b.scales.data(), a.scales.size() * 4) == 0);
      CHECK(std::memcmp(a.residual.data(), b.residual.data(), a.residual.size() * 2) == 0);
    }
  });
}

#if defined(WAVEKIT_EMULATOR)
TEST_CASE("rmsnorm_quant: bytes moved against the ideal (inputs and outputs once)", "[emu][ops]") {
  test::with_device_fp8([&](auto fp8_format) {
    using fp8 = decltype(fp8_format);
    // Seed shapes: Llama 405B TP8 decode (hidden 16384) and DeepSeek-V3 (7168). run() checks x, the
    // residual and the outputs move once and the weight once a workgroup; here the totals.
    for (int hidden : {16384, 7168})
      for (int tokens : {1, 16, 64, 1000})
        for (scale_granularity s : {scale_granularity::tensor, scale_granularity::group_1x128}) {
          if (tokens == 1000 && (hidden != 7168 || s != scale_granularity::tensor)) continue;  // the emulator's time
          const rq::problem p{tokens, hidden, s, layout::k_contiguous, rq::residual_mode::add};
          const std::size_t n = std::size_t(tokens) * hidden;
          const auto got = run<fp16, fp8>(p, random_values<fp16>(n, 15), random_values<fp16>(n, 16),
                                          random_values<fp16>(hidden, 17, 1.0f, 0), 0.05f, 1e-6f);
          const double elements = double(n), scales = s == scale_granularity::group_1x128 ? elements / 128 * 4 : 0.0;
          const double ideal_read = elements * 4 + hidden * 2.0, ideal_written = elements * 3 + scales;
          const double read = double(got.counters.global_bytes_read),
                       written = double(got.counters.global_bytes_written);
          std::printf(
              "rmsnorm_quant %5d x %5d fp16 %-11s: read %.4g B (ideal %.4g, ratio %.3f), written %.4g B "
              "(ideal %.4g, ratio %.3f), weight read by %llu workgroups, distinct bytes read %.3f of the "
              "ideal\n",
              tokens, hidden, to_string(s), read, ideal_read, read / ideal_read, written, ideal_written,
              written / ideal_written, static_cast<unsigned long long>(got.counters.blocks),
              double(got.counters.global_bytes_read_distinct) / ideal_read);
          CHECK(written == ideal_written);
          CHECK(read == ideal_read + double(got.counters.blocks - 1) * hidden * 2);
          // The weight's repeats are the only re-reads: DRAM, behind a cache holding the weight,
          // serves exactly the ideal.
          CHECK(double(got.counters.global_bytes_read_distinct) == ideal_read);
        }
  });
}
#endif

TEST_CASE("rmsnorm_quant: bad inputs are refused before any launch, naming the argument and the rule", "[emu][ops]") {
  test::with_device_fp8([&](auto fp8_format) {
    using fp8 = decltype(fp8_format);
    alignas(16) static unsigned char memory[64];
    auto* t = reinterpret_cast<fp16*>(memory);
    auto* skew = reinterpret_cast<fp16*>(memory + 2);
    auto* q = reinterpret_cast<fp8*>(memory);
    auto* scales = reinterpret_cast<float*>(memory);
    const rq::args<fp16, fp8> good{t, t, t, q, scales, 0.5f, 1e-6f};
    constexpr auto add = rq::residual_mode::add;
    const rq::problem p{4, 256, scale_granularity::group_1x128, layout::k_contiguous, add};
    auto expect = [&](const rq::problem& pp, rq::args<fp16, fp8> a, status_code code, const std::string& text) {
      const status s = wavekit::rmsnorm_quant(pp, a, nullptr);
      INFO(s.message());
      CHECK(s.code() == code);
      CHECK(s.message().find("rmsnorm_quant") != std::string::npos);
      CHECK(s.message().find(text) != std::string::npos);
    };
    auto with = [&](auto change) {
      rq::args<fp16, fp8> a = good;
      change(a);
      return a;
    };
    expect(p, with([&](auto& a) { a.x = nullptr; }), status_code::null_pointer, "argument x is null");
    expect(p, with([&](auto& a) { a.residual = nullptr; }), status_code::null_pointer, "argument residual is null");
    expect(p, with([&](auto& a) { a.weight = nullptr; }), status_code::null_pointer, "argument weight is null");
    expect(p, with([&](auto& a) { a.q = nullptr; }), status_code::null_pointer, "argument q is null");
    expect(p, with([&](auto& a) { a.q_scale = nullptr; }), status_code::null_pointer, "argument q_scale is null");
    expect(p, with([&](auto& a) { a.x = skew; }), status_code::bad_alignment, "argument x must be 16-byte aligned");
    expect(p, with([&](auto& a) { a.residual = skew; }), status_code::bad_alignment,
           "argument residual must be 16-byte aligned");
    expect(p, with([&](auto& a) { a.weight = skew; }), status_code::bad_alignment,
           "argument weight must be 16-byte aligned");
    expect(p, with([&](auto& a) { a.q = q + 4; }), status_code::bad_alignment, "argument q must be 8-byte aligned");
    expect(p, with([&](auto& a) { a.q_scale = reinterpret_cast<float*>(memory + 2); }), status_code::bad_alignment,
           "argument q_scale must be 4-byte aligned");
    expect(rq::problem{-3, 256, scale_granularity::tensor, layout::k_contiguous, add}, good, status_code::bad_shape,
           "tokens must be >= 0");
    // No tokens: no pointer is checked, nothing is launched; the value rules (eps, scale) hold.
    test::check_launches_nothing([] {
      return wavekit::rmsnorm_quant(rq::problem{0, 256, scale_granularity::tensor, layout::k_contiguous, add},
                                    rq::args<bf16, fp8>{nullptr, nullptr, nullptr, nullptr, nullptr, 0.5f, 1e-6f},
                                    nullptr);
    });
    CHECK(rq::validate(rq::problem{0, 256, scale_granularity::tensor, layout::k_contiguous, add},
                       rq::args<bf16, fp8>{nullptr, nullptr, nullptr, nullptr, nullptr, -1.0f, 1e-6f})
              .code() == status_code::bad_shape);
    expect(rq::problem{4, 0, scale_granularity::tensor, layout::k_contiguous, add}, good, status_code::bad_shape,
           "hidden must be a positive multiple of 8");
    expect(rq::problem{4, 100, scale_granularity::tensor, layout::k_contiguous, add}, good, status_code::bad_shape,
           "hidden must be a positive multiple of 8");
    expect(rq::problem{4, 16392, scale_granularity::tensor, layout::k_contiguous, add}, good, status_code::bad_shape,
           "hidden must be at most 16384");
    expect(rq::problem{4, 264, scale_granularity::group_1x128, layout::k_contiguous, add}, good, status_code::bad_shape,
           "hidden must be a multiple of 128 for 1x128 scales");
    expect(rq::problem{4, 256, static_cast<scale_granularity>(7), layout::k_contiguous, add}, good,
           status_code::bad_format, "out_scales must be scale_granularity::tensor or group_1x128");
    expect(rq::problem{4, 256, scale_granularity::row, layout::k_contiguous, add}, good, status_code::bad_format,
           "out_scales must be scale_granularity::tensor or group_1x128");
    expect(rq::problem{4, 256, scale_granularity::tensor, static_cast<layout>(7), add}, good, status_code::bad_shape,
           "order must be");
    expect(rq::problem{4, 256, scale_granularity::tensor, layout::k_contiguous, static_cast<rq::residual_mode>(7)},
           good, status_code::bad_shape, "residual must be");
    expect(rq::problem{1 << 17, 16384, scale_granularity::tensor, layout::k_contiguous, add}, good,
           status_code::too_large, "32-bit buffer offsets");
    // Row strides: each status names the field and its rule (core/row_view.hpp).
    auto strided = [&](layout o, rq::residual_mode r, auto change) {
      rq::problem pp{4, 256, scale_granularity::group_1x128, o, r};
      change(pp);
      return pp;
    };
    const auto k = layout::k_contiguous, mn = layout::mn_contiguous;
    const std::int64_t two_31 = std::int64_t(1) << 31;
    expect(strided(k, add, [](auto& pp) { pp.x_stride = 248; }), good, status_code::bad_shape,
           "x_stride (248) must be 0 (packed) or at least hidden (256)");
    expect(strided(k, add, [](auto& pp) { pp.x_stride = -256; }), good, status_code::bad_shape,
           "x_stride (-256) must be 0 (packed) or at least hidden (256)");
    expect(strided(k, add, [](auto& pp) { pp.x_stride = 260; }), good, status_code::bad_alignment,
           "x_stride (260) must be a multiple of 8 elements (16-byte vector loads)");
    expect(strided(k, add, [&](auto& pp) { pp.x_stride = two_31; }), good, status_code::too_large,
           "x_stride (2147483648) must be below 2^31");
    expect(strided(k, add, [](auto& pp) { pp.x_stride = std::int64_t(1) << 30; }), good, status_code::too_large,
           "x spans 3221225728 elements ((tokens - 1) * x_stride + hidden,");
    expect(strided(k, add, [](auto& pp) { pp.residual_stride = 128; }), good, status_code::bad_shape,
           "residual_stride (128) must be 0 (packed) or at least hidden (256)");
    expect(strided(k, add, [](auto& pp) { pp.residual_stride = 257; }), good, status_code::bad_alignment,
           "residual_stride (257) must be a multiple of 8 elements (16-byte vector loads and stores)");
    expect(strided(k, add, [&](auto& pp) { pp.residual_stride = two_31 + 8; }), good, status_code::too_large,
           "residual_stride (2147483656) must be below 2^31");
    expect(strided(k, add, [](auto& pp) { pp.residual_stride = 1 << 29; }), good, status_code::too_large,
           "residual spans 1610612992 elements ((tokens - 1) * residual_stride + hidden,");
    expect(strided(k, add, [](auto& pp) { pp.q_stride = 255; }), good, status_code::bad_shape,
           "q_stride (255) must be 0 (packed) or at least hidden (256)");
    expect(strided(k, add, [](auto& pp) { pp.q_stride = 260; }), good, status_code::bad_alignment,
           "q_stride (260) must be a multiple of 8 elements (8-byte vector stores)");
    expect(strided(k, add, [&](auto& pp) { pp.q_stride = two_31; }), good, status_code::too_large,
           "q_stride (2147483648) must be below 2^31");
    expect(strided(k, add, [](auto& pp) { pp.q_stride = 1 << 30; }), good, status_code::too_large,
           "q spans 3221225728 elements ((tokens - 1) * q_stride + hidden,");
    // The mn_contiguous q: hidden rows of tokens codes, any stride from tokens on.
    expect(strided(mn, add, [](auto& pp) { pp.q_stride = 3; }), good, status_code::bad_shape,
           "q_stride (3) must be 0 (packed) or at least tokens (4)");
    expect(strided(mn, add, [&](auto& pp) { pp.q_stride = two_31; }), good, status_code::too_large,
           "q_stride (2147483648) must be below 2^31");
    expect(strided(mn, add, [](auto& pp) { pp.q_stride = 1 << 24; }), good, status_code::too_large,
           "q spans 4278190084 elements ((hidden - 1) * q_stride + tokens,");
    CHECK(rq::validate(strided(mn, add, [](auto& pp) { pp.q_stride = 5; }), good).ok());
    CHECK(rq::validate(strided(mn, add, [&](auto& pp) { pp.q_stride = two_31 - 1; }), good).code() ==
          status_code::too_large);  // a legal stride, but hidden rows of it pass 2^31 bytes
    // Without a residual its stride, like its pointer, is not read.
    CHECK(rq::validate(strided(k, rq::residual_mode::none, [](auto& pp) { pp.residual_stride = 3; }), good).ok());
    for (float eps : {-1e-6f, std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()})
      expect(p, with([&](auto& a) { a.eps = eps; }), status_code::bad_shape, "eps must be finite and >= 0");
    const rq::problem per_tensor{4, 256, scale_granularity::tensor, layout::k_contiguous, add};
    for (float scale : {0.0f, -1.0f, std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()})
      expect(per_tensor, with([&](auto& a) { a.scale = scale; }), status_code::bad_shape,
             "the per-tensor scale must be finite and positive");
    // Per tensor reads no q_scale; without a residual, none is read or written.
    const rq::problem plain{4, 256, scale_granularity::tensor, layout::mn_contiguous, rq::residual_mode::none};
    CHECK(rq::validate(plain, with([&](auto& a) { a.q_scale = nullptr, a.residual = nullptr, a.q = q + 1; })).ok());
    // The device's fp8 format only.
    using other = test::other_fp8_t<fp8>;
    const rq::args<fp16, other> wrong{t, t, t, reinterpret_cast<other*>(memory), scales, 0.5f, 1e-6f};
    const status s = wavekit::rmsnorm_quant(p, wrong, nullptr);
    INFO(s.message());
    CHECK(s.code() == status_code::bad_format);
    CHECK(s.message().find("rmsnorm_quant") != std::string::npos);
  });
}
