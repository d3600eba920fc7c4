// The MoE pipeline over MX expert weights (ops/moe/kernel_mx.hpp: x quantized to the weights' MX
// format, gate and up in one pass, the gated product quantized likewise, weighted down, combine),
// MXFP4 and MXFP8 (each config, plain weights, one token, expert parallelism), on the emulated
// gfx950 and, in the GPU build, on the device; gfx942 refuses it with a status. Checked in three
// exact steps (test/support/moe_mx_case.hpp): the device's MX quantizations equal the host
// quantizer's bit for bit (under the call's element rounding), the gated product meets a bound from
// T and the accumulation, and the output meets moe_case's bound from the device's own MX gated
// product. Every MX config the plan uses (M tiles 16, 64, 128), plain and pre-shuffled weights
// (amd-moe-mxfp4's fused [gate; up], shuffled as one tensor), bf16 and fp16, K one 64-K tile and
// many, one token, a shared expert as the last id, idle experts, expert parallelism, the same bits
// on every run, no host synchronisation inside the call, and every bad input's status; weights
// stored padded as aiter stores them (random pads) give the unpadded layer's bits, reading no pad
// byte, and each short declared buffer size is refused. And
// amd-moe-mxfp4's shapes through the one-call API with the problem's input generator against
// aiter's fused a4w4 path (host/reference_moe_mx_fused.hpp) within 1 bf16 ulp, where the two
// regressions that path rules out (G rounded before SiLU, the nearest-even quantizer) must miss.
#include <hip/hip_runtime.h>
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "support/graph_safety.hpp"
#include "support/moe_mx_case.hpp"
#include "support/moe_views_check.hpp"
#include "wavekit/host/reference_moe_mx_fused.hpp"
#include "wavekit/ops/moe.hpp"

using namespace wavekit;
namespace moe = wavekit::ops::moe;
namespace gx = wavekit::ops::gemm_mx;

namespace {

bool device_is_gfx950() { return arch::current_device_arch().kind == arch::target::gfx950; }

template <class Cfg, class T, class Elem = fp4_e2m1>
void run_case(const moe::problem& p, const std::vector<int>& ids, std::uint32_t seed, bool preshuffled) {
  const std::size_t ws = moe::plan_workspace(p, Cfg::block_m, sizeof(T), moe::mx_weight_format<Elem>).bytes;
  test::moe_mx_case<T, Elem> t(p, ids, seed, ws, preshuffled);
  status s;
  const auto unsafe = test::graph_unsafe_calls_of(
      [&](hipStream_t stream) { s = moe::launch<Cfg>(p, t.args(), arch::target::gfx950, stream); });
  INFO(Cfg::name() << " on " << p.str() << (preshuffled ? ", pre-shuffled" : ", plain")
                   << (std::is_same_v<Elem, fp4_e2m1> ? ", MXFP4: " : ", MXFP8: ") << s.message());
  REQUIRE(s.ok());
  CHECK(unsafe.empty());
  REQUIRE(hipDeviceSynchronize() == hipSuccess);
  CHECK(t.check(Cfg::block_m, Cfg::name().c_str()) == 0);
  const std::vector<T> first = t.output();  // the same bits again
  REQUIRE(moe::launch<Cfg>(p, t.args(), arch::target::gfx950, nullptr).ok());
  REQUIRE(hipDeviceSynchronize() == hipSuccess);
  const std::vector<T> second = t.output();
  CHECK(std::memcmp(first.data(), second.data(), first.size() * sizeof(T)) == 0);
}

// Elements of got further than one ulp of T (at the reference's magnitude) from ref; the first few
// printed.
template <class T>
int beyond_one_ulp(const std::vector<float>& ref, const std::vector<float>& got, const char* label) {
  int bad = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    const float r = ref[i];
    const float ulp =
        std::ldexp(1.0f, std::max(std::ilogb(r == 0.0f ? 1e-30f : r), -126) - (std::is_same_v<T, bf16> ? 7 : 10));
    if (!(std::fabs(got[i] - r) <= ulp) && bad++ < 3)
      std::printf("%s: out[%zu] = %.7g, fused path %.7g\n", label, i, double(got[i]), double(r));
  }
  return bad;
}
// Elements outside the problem's tolerance, |got - ref| <= tol + tol * |ref|.
inline int outside(const std::vector<float>& ref, const std::vector<float>& got, double tol) {
  int bad = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) bad += !(std::fabs(got[i] - ref[i]) <= tol + tol * std::fabs(ref[i]));
  return bad;
}
template <class T>
std::vector<float> widened(const std::vector<T>& v) {
  std::vector<float> f(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) f[i] = widen_to_float(v[i]);
  return f;
}

// One amd-moe-mxfp4 shape through the one-call API, with the problem's input generator, against
// aiter's fused a4w4 path (host/reference_moe_mx_fused.hpp): every output within one bf16 ulp, and
// within the problem's 5e-2. Returns the elements by which the two regressions the fused path rules
// out would miss it (G rounded to bf16 before SiLU; the nearest-even activation quantizer), which
// the caller requires to be nonzero over its shapes: proof that this check sees them.
struct fused_path_misses {
  int gate_rounded = 0, nearest_even = 0;
};
inline fused_path_misses check_against_fused_path(const moe::problem& p, int routed, int top_k, std::uint32_t seed) {
  const std::vector<int> ids = test::random_ids_with_shared(p.tokens, top_k, routed, seed);
  const std::size_t ws = moe::workspace_bytes(p, 2, moe::weight_format::mxfp4).value();
  test::moe_mx_case<bf16> t(p, ids, seed + 1, ws, true, moe::default_mx_rounding<fp4_e2m1>,
                            test::moe_mx_data::reference_problem);
  moe::plan_info ran;
  const status st = wavekit::moe(p, t.args(), nullptr, &ran);
  INFO(p.str() << ": " << st.message());
  REQUIRE(st.ok());
  REQUIRE(hipDeviceSynchronize() == hipSuccess);
  const std::vector<float> x = widened(t.x), got = widened(t.output());
  const std::string label = p.str() + " (" + ran.name + ")";
  const auto fused = host::reference_moe_mx_fused<bf16>(p, x, ids, t.weights, t.w);
  CHECK(beyond_one_ulp<bf16>(fused.out, got, label.c_str()) == 0);
  CHECK(outside(fused.out, got, 5e-2) == 0);
  fused_path_misses m;
  host::moe_mx_fused_options gate_rounded;
  gate_rounded.round_gate_to_T = true;
  m.gate_rounded =
      beyond_one_ulp<bf16>(fused.out, host::reference_moe_mx_fused<bf16>(p, x, ids, t.weights, t.w, gate_rounded).out,
                           "planted: G rounded to bf16");
  host::moe_mx_fused_options even;
  even.x_rounding = even.h_rounding = mx_rounding::nearest_even;
  m.nearest_even =
      beyond_one_ulp<bf16>(fused.out, host::reference_moe_mx_fused<bf16>(p, x, ids, t.weights, t.w, even).out,
                           "planted: nearest-even quantizer");
  return m;
}

// A layer with its weights stored padded (aiter's form: the pads random, NaN codes among them) through
// the one-call API: the same bits as the unpadded layer of the same logical weights, its three
// exact checks, and (where every expert's rows fit one M tile) each logical weight and scale byte
// read once and no pad byte read.
template <class T, class Elem>
void check_padded(const moe::problem& p, const std::vector<int>& ids, std::uint32_t seed, bool preshuffled,
                  test::moe_mx_padding pad) {
  const std::size_t ws = moe::workspace_bytes(p, 2, moe::mx_weight_format<Elem>).value();
  test::moe_mx_case<T, Elem> plain(p, ids, seed, ws, preshuffled);
  test::moe_mx_case<T, Elem> padded(p, ids, seed, ws, preshuffled, moe::default_mx_rounding<Elem>,
                                    test::moe_mx_data::blocks, pad);
  const std::string label = p.str() + ", stored [" + std::to_string(pad.expert_dim) + " / " +
                            std::to_string(pad.hidden) + "] pads" + (preshuffled ? ", pre-shuffled" : ", plain") +
                            (std::is_same_v<Elem, fp4_e2m1> ? ", MXFP4" : ", MXFP8");
  moe::plan_info ran;
  status s = wavekit::moe(p, plain.args(), nullptr);
  INFO(label << ": " << s.message());
  REQUIRE(s.ok());
#if defined(WAVEKIT_EMULATOR)
  emu::reset_counters();
#endif
  s = wavekit::moe(p, padded.args(), nullptr, &ran);
  INFO(label << ", padded: " << s.message());
  REQUIRE(s.ok());
  REQUIRE(hipDeviceSynchronize() == hipSuccess);
#if defined(WAVEKIT_EMULATOR)
  const double reads = padded.weight_reads(emu::accumulated_counters());
#endif
  const std::vector<T> want = plain.output(), got = padded.output();
  CHECK(std::memcmp(want.data(), got.data(), want.size() * sizeof(T)) == 0);
  const int tile_m = moe::with_config(moe::choose_config(p, moe::mx_weight_format<Elem>),
                                      [](auto cfg) { return decltype(cfg)::block_m; });
  CHECK(padded.check(tile_m, (label + " (" + ran.name + ")").c_str()) == 0);
#if defined(WAVEKIT_EMULATOR)
  if (p.tokens <= tile_m) CHECK(reads == 1.0);
#endif
}

}  // namespace

TEST_CASE("moe mx: weights stored padded as aiter stores them give the unpadded layer's bits", "[emu][moe]") {
  if (!device_is_gfx950()) {
    SUCCEED("MX weights are gfx950's; the status test covers this target");
    return;
  }
  // 6 routed experts + the shared one; hidden 448 (a ragged first K step of MXFP4's 256 and of
  // MXFP8's 128), expert_dim 192. Pads: both to 256's multiples (aiter's), and each alone.
  const moe::problem p{12, 448, 192, 7, 3, 0, 7, layout::k_contiguous};
  const std::vector<int> ids = test::random_ids_with_shared(p.tokens, 2, 6, 13);
  for (const test::moe_mx_padding pad :
       {test::moe_mx_padding{512, 256}, test::moe_mx_padding{512, 0}, test::moe_mx_padding{0, 320}}) {
    check_padded<bf16, fp4_e2m1>(p, ids, 51, false, pad);
    check_padded<bf16, fp4_e2m1>(p, ids, 52, true, pad);
    check_padded<fp16, fp8_e4m3fn>(p, ids, 53, false, pad);
  }
  // More tokens (the plan's wider M tiles), amd-moe-mxfp4's pre-shuffled form.
  const moe::problem wide{160, 256, 128, 9, 3, 0, 9, layout::k_contiguous};
  check_padded<bf16, fp4_e2m1>(wide, test::random_ids_with_shared(wide.tokens, 2, 8, 14), 54, true, {512, 256});
}

TEST_CASE("moe mx: each refusal of pads and declared buffer sizes", "[emu][moe]") {
  const moe::problem p{8, 192, 128, 4, 2, 0, 4, layout::k_contiguous};
  const std::vector<int> ids = test::random_ids(8, 2, 4, 1);
  const std::size_t ws = moe::workspace_bytes(p, 2, moe::weight_format::mxfp4).value();
  test::moe_mx_case<bf16> t(p, ids, 1, ws, true, moe::default_mx_rounding<fp4_e2m1>, test::moe_mx_data::blocks,
                            {256, 256});
  const std::string what = "moe " + p.str() + ": ";
  const arch::target device = arch::current_device_arch().kind;
  // The launch's status, and supports()'s the same.
  auto status_of = [&](const moe::mxfp4_args<bf16>& a) {
    const status s = wavekit::moe(p, a, nullptr);
    CHECK(moe::supports(p, a, device).message() == s.message());
    return s;
  };
  CHECK(status_of(t.args()).ok() == device_is_gfx950());
  auto a = t.args();
  a.hidden_pad = 128;
  CHECK(status_of(a).message() ==
        what + "argument hidden_pad (128) must be 0 (unpadded) or a multiple of 64 not below hidden (192)");
  a = t.args(), a.expert_dim_pad = 160;
  CHECK(status_of(a).message() ==
        what + "argument expert_dim_pad (160) must be 0 (unpadded) or a multiple of 64 not below expert_dim (128)");
  CHECK(status_of(a).code() == status_code::bad_shape);
  // Pads past 32-bit offsets.
  a = t.args(), a.hidden_pad = 1 << 20, a.expert_dim_pad = 1 << 12;
  CHECK(status_of(a).code() == status_code::too_large);
  // The scales' rows in e8m0_shuffle's layout: 256 x (256 / 32 padded to 8 columns).
  a = t.args(), a.up_scale_bytes = 256 * 8 - 1;
  CHECK(status_of(a).message() ==
        what +
            "argument up_scale_bytes must be at least 2048 (the bytes behind each pointer: [expert_dim_pad "
            "256][hidden_pad 256 / 32] e8m0 in e8m0_shuffle's layout (columns padded to 8); have 2047)");
  a.up_scale_bytes = 256 * 8;
  CHECK(status_of(a).ok() == device_is_gfx950());
  // Each declared size: one byte short, and undeclared (0), is refused by name.
  const std::size_t need_weights = moe::mx_weight_bytes<fp4_e2m1>(256, 256), need_scales = 256 * 8;
  for (const auto& [name, field, need] :
       {std::tuple{"gate_bytes", &moe::mxfp4_args<bf16>::gate_bytes, need_weights},
        std::tuple{"up_bytes", &moe::mxfp4_args<bf16>::up_bytes, need_weights},
        std::tuple{"down_bytes", &moe::mxfp4_args<bf16>::down_bytes, need_weights},
        std::tuple{"gate_scale_bytes", &moe::mxfp4_args<bf16>::gate_scale_bytes, need_scales},
        std::tuple{"up_scale_bytes", &moe::mxfp4_args<bf16>::up_scale_bytes, need_scales},
        std::tuple{"down_scale_bytes", &moe::mxfp4_args<bf16>::down_scale_bytes, need_scales}})
    for (std::size_t have : {need - 1, std::size_t{0}}) {
      a = t.args(), a.*field = have;
      const status s = status_of(a);
      INFO(name << " = " << have << ": " << s.message());
      CHECK(s.code() == status_code::bad_config);
      CHECK(s.message().starts_with(what + "argument " + name + " must be at least " + std::to_string(need) + " ("));
      a.*field = need;
      CHECK(status_of(a).ok() == device_is_gfx950());
    }
  // Plain scales (no padded columns): [256][256 / 32]; unpadded, the problem's extents.
  test::moe_mx_case<bf16> plain(p, ids, 1, ws, false);
  a = plain.args(), a.down_scale_bytes = std::size_t(192) * (128 / 32) - 1;
  CHECK(status_of(a).message() ==
        what +
            "argument down_scale_bytes must be at least 768 (the bytes behind each pointer: [hidden 192]"
            "[expert_dim 128 / 32] e8m0; have 767)");
  a = plain.args(), a.gate_bytes = 128 * 192 / 2 - 1;
  CHECK(status_of(a).message() ==
        what +
            "argument gate_bytes must be at least 12288 (the bytes behind each pointer: [expert_dim 128]"
            "[hidden 192] MXFP4; have 12287)");
}

TEST_CASE("moe mxfp4: each MX config, plain and pre-shuffled weights, bf16 and fp16", "[emu][moe]") {
  if (!device_is_gfx950()) {
    SUCCEED("MXFP4 weights are gfx950's; the status test covers this target");
    return;
  }
  for (bool shuffled : {false, true}) {
    // 6 routed experts + the shared one (id 6, weight 1 in amd-moe-mxfp4); hidden: two 256-K
    // steps of the gate and up projections; expert_dim: one of the down projection.
    const moe::problem p{37, 512, 256, 7, 3, 0, 7, layout::k_contiguous};
    const std::vector<int> ids = test::random_ids_with_shared(p.tokens, 2, 6, 11);
    run_case<gx::config_decode, bf16>(p, ids, 1, shuffled);
    run_case<gx::config_narrow, fp16>(p, ids, 2, shuffled);
    run_case<gx::config_medium, bf16>(p, ids, 3, shuffled);
  }
}

TEST_CASE("moe mx: x and out as views of wider rows give the packed result bit for bit", "[emu][moe]") {
  if (!device_is_gfx950()) {
    SUCCEED("MX weights are gfx950's; the status test covers this target");
    return;
  }
  const moe::problem p{37, 512, 256, 7, 3, 0, 7, layout::k_contiguous};
  const std::vector<int> ids = test::random_ids_with_shared(p.tokens, 2, 6, 13);
  using C = gx::config_narrow;
  const std::size_t ws = moe::plan_workspace(p, C::block_m, sizeof(bf16), moe::mx_weight_format<fp4_e2m1>).bytes;
  for (bool shuffled : {false, true}) {
    test::moe_mx_case<bf16, fp4_e2m1> t(p, ids, 4, ws, shuffled);
    test::check_views_match_packed(p, t.args(), 16, 8, [](const moe::problem& q, const auto& a) {
      return moe::launch<C>(q, a, arch::target::gfx950, nullptr);
    });
  }
}

TEST_CASE("moe mxfp8: each MX config, bf16 and fp16, one token, expert parallelism", "[emu][moe]") {
  if (!device_is_gfx950()) {
    SUCCEED("MX weights are gfx950's; the status test covers this target");
    return;
  }
  // MXFP8's K step is 128 (a 128-byte row): hidden two steps, expert_dim one and a half.
  const moe::problem p{37, 256, 192, 7, 3, 0, 7, layout::k_contiguous};
  const std::vector<int> ids = test::random_ids_with_shared(p.tokens, 2, 6, 12);
  run_case<gx::config_decode, bf16, fp8_e4m3fn>(p, ids, 1, false);
  run_case<gx::config_narrow, fp16, fp8_e4m3fn>(p, ids, 2, false);
  run_case<gx::config_medium, bf16, fp8_e4m3fn>(p, ids, 3, false);
  // One token with K of half a step; a local range of 5 of 12 experts.
  run_case<gx::config_decode, bf16, fp8_e4m3fn>(moe::problem{1, 64, 128, 16, 4, 0, 16, layout::k_contiguous},
                                                test::random_ids(1, 4, 16, 5), 4, false);
  run_case<gx::config_decode, bf16, fp8_e4m3fn>(moe::problem{40, 192, 128, 12, 3, 4, 5, layout::k_contiguous},
                                                test::random_ids(40, 3, 12, 6), 6, false);
}

TEST_CASE("moe mxfp4: one token, K of one 64-K tile, idle experts, expert parallelism", "[emu][moe]") {
  if (!device_is_gfx950()) {
    SUCCEED("MXFP4 weights are gfx950's");
    return;
  }
  // hidden 64: one 64-K tile (a quarter of an MXFP4 K step: a ragged first step); expert_dim 320.
  const moe::problem one{1, 64, 320, 16, 4, 0, 16, layout::k_contiguous};
  run_case<gx::config_decode, bf16>(one, test::random_ids(1, 4, 16, 5), 4, false);
  // A local range of 5 of 12 experts: the others' slots contribute nothing here.
  const moe::problem ep{40, 192, 128, 12, 3, 4, 5, layout::k_contiguous};
  run_case<gx::config_decode, bf16>(ep, test::random_ids(40, 3, 12, 6), 6, true);
  run_case<gx::config_narrow, bf16>(ep, test::random_ids(40, 3, 12, 7), 7, false);
}

TEST_CASE("moe mxfp4: amd-moe-mxfp4's shapes at reduced size through the one-call API", "[emu][moe]") {
  if (!device_is_gfx950()) {
    SUCCEED("MXFP4 weights are gfx950's");
    return;
  }
  // (d_expert, routed experts, top-k, d_hidden, tokens): the problem's test and benchmark rows with
  // d_hidden cut to 512 and d_expert to at most 512, top 8 (6) + the shared expert, pre-shuffled.
  struct shape {
    int d_expert, routed, top_k, tokens;
  };
  for (const shape& s : {shape{512, 256, 8, 8}, shape{512, 32, 8, 32}, shape{512, 64, 6, 128}, shape{256, 256, 8, 16},
                         shape{512, 32, 8, 128}}) {
    const moe::problem p{s.tokens, 512, s.d_expert, s.routed + 1, s.top_k + 1, 0, s.routed + 1, layout::k_contiguous};
    const std::vector<int> ids = test::random_ids_with_shared(p.tokens, s.top_k, s.routed, 8);
    const std::size_t ws = moe::workspace_bytes(p, 2, moe::weight_format::mxfp4).value();
    test::moe_mx_case<bf16> t(p, ids, 9, ws, true);
    moe::plan_info ran;
#if defined(WAVEKIT_EMULATOR)
    emu::reset_counters();
#endif
    const status st = wavekit::moe(p, t.args(), nullptr, &ran);
    INFO(p.str() << ": " << st.message());
    REQUIRE(st.ok());
    REQUIRE(hipDeviceSynchronize() == hipSuccess);
    const int tile_m = moe::with_config(moe::choose_config(p, moe::weight_format::mxfp4),
                                        [](auto cfg) { return decltype(cfg)::block_m; });
    CHECK(t.check(tile_m, ran.name.c_str()) == 0);
#if defined(WAVEKIT_EMULATOR)
    // Where every expert's rows fit one M tile, its weights and scales are read once.
    if (p.tokens <= tile_m) CHECK(t.weight_reads(emu::accumulated_counters()) == 1.0);
#endif
  }
}

TEST_CASE("moe mxfp4: amd-moe-mxfp4's shapes against aiter's fused path, within 1 bf16 ulp", "[emu][moe]") {
  if (!device_is_gfx950()) {
    SUCCEED("MXFP4 weights are gfx950's");
    return;
  }
  // (d_expert, routed experts, top-k, tokens): the problem's test and benchmark rows with d_hidden
  // cut to 512 and d_expert to at most 512, top 8 (6) + the shared expert, pre-shuffled, the
  // problem's input generator. (E 257, d_expert 256, 16 tokens runs at full size below.)
  struct shape {
    int d_expert, routed, top_k, tokens;
  };
  fused_path_misses planted;
  std::uint32_t seed = 40;
  for (const shape& s : {shape{512, 256, 8, 8}, shape{512, 32, 8, 32}, shape{512, 64, 6, 128}, shape{256, 256, 8, 128},
                         shape{512, 32, 8, 128}, shape{512, 32, 8, 512}}) {
    const moe::problem p{s.tokens, 512, s.d_expert, s.routed + 1, s.top_k + 1, 0, s.routed + 1, layout::k_contiguous};
    const fused_path_misses m = check_against_fused_path(p, s.routed, s.top_k, seed += 2);
    planted.gate_rounded += m.gate_rounded, planted.nearest_even += m.nearest_even;
  }
  // Both regressions would fail this test.
  CHECK(planted.gate_rounded > 0);
  CHECK(planted.nearest_even > 0);
}

TEST_CASE("moe mxfp4: every bad input gets its status before any launch", "[emu][moe]") {
  const moe::problem p{8, 256, 128, 4, 2, 0, 4, layout::k_contiguous};
  const std::vector<int> ids = test::random_ids(8, 2, 4, 1);
  const std::size_t ws = moe::workspace_bytes(p, 2, moe::weight_format::mxfp4).value();
  test::moe_mx_case<bf16> t(p, ids, 1, ws, false);
  const std::string what = "moe " + p.str() + ": ";
  auto status_of = [&](const moe::problem& q, const moe::mxfp4_args<bf16>& a) { return wavekit::moe(q, a, nullptr); };
  if (!device_is_gfx950())
    CHECK(status_of(p, t.args()).message() == what + "MX weights run on gfx950's scaled MFMAs; " +
                                                  arch::to_string(arch::current_device_arch().kind) + " has none");
  moe::problem mn = p;
  mn.weight_order = layout::mn_contiguous;
  CHECK(status_of(mn, t.args()).message() ==
        "moe " + mn.str() + ": MX weights are K-contiguous (layout::k_contiguous, nn.Linear's order)");
  moe::problem odd = p;
  odd.hidden = 272;
  CHECK(status_of(odd, t.args()).message() ==
        "moe " + odd.str() + ": with MX weights hidden and expert_dim must be multiples of 64");
  CHECK(!moe::workspace_bytes(odd, 2, moe::weight_format::mxfp4));
  auto a = t.args();
  a.up_scale = nullptr;
  CHECK(status_of(p, a).message() == what + "argument up_scale is null");
  a = t.args(), a.workspace_bytes = 64;
  CHECK(status_of(p, a).code() == status_code::workspace_too_small);
  a = t.args(), a.out = nullptr;
  CHECK(status_of(p, a).message() == what + "arguments out and out_unreduced are both null");
  // MXFP8 weights: no pre-shuffled layout (aiter's is of fp4 bytes).
  test::moe_mx_case<bf16, fp8_e4m3fn> t8(p, ids, 1, moe::workspace_bytes(p, 2, moe::weight_format::mxfp8).value(),
                                         false);
  auto a8 = t8.args();
  a8.weight_layout = moe::b_layout::preshuffled;
  CHECK(wavekit::moe(p, a8, nullptr).message() ==
        what + "pre-shuffled MX weights are MXFP4 (shuffle_weight of fp4 bytes)");
  a8.weight_layout = static_cast<moe::b_layout>(7);
  CHECK(wavekit::moe(p, a8, nullptr).message() == what + "weight_layout must be b_layout::plain or preshuffled");
  a = t.args(), a.rounding = static_cast<mx_rounding>(7);
  CHECK(status_of(p, a).message() ==
        what + "argument rounding must be mx_rounding::nearest_even or mx_rounding::ties_away_from_zero");
}

TEST_CASE("moe mxfp4: amd-moe-mxfp4's E 257, d_expert 256, batch 16 at full size", "[emu][moe]") {
  if (!device_is_gfx950()) {
    SUCCEED("MXFP4 weights are gfx950's");
    return;
  }
  // The problem's first benchmark shape: d_hidden 7168, 256 routed experts + the shared one, top
  // 8 + 1, 16 tokens, weights and scales pre-shuffled, through the one-call API: against aiter's
  // fused path with the problem's input generator, and in the three exact steps with every block
  // of its own magnitude.
  const moe::problem p{16, 7168, 256, 257, 9, 0, 257, layout::k_contiguous};
  check_against_fused_path(p, 256, 8, 23);
  const std::vector<int> ids = test::random_ids_with_shared(p.tokens, 8, 256, 21);
  test::moe_mx_case<bf16> t(p, ids, 22, moe::workspace_bytes(p, 2, moe::weight_format::mxfp4).value(), true);
#if defined(WAVEKIT_EMULATOR)
  emu::reset_counters();
#endif
  moe::plan_info ran;
  REQUIRE(wavekit::moe(p, t.args(), nullptr, &ran).ok());
  REQUIRE(hipDeviceSynchronize() == hipSuccess);
#if defined(WAVEKIT_EMULATOR)
  CHECK(t.weight_reads(emu::accumulated_counters()) == 1.0);  // every expert's rows in one M tile
#endif
  CHECK(t.check(16, ran.name.c_str()) == 0);
}

TEST_CASE("moe mxfp8: aiter PR #3783's grouped shapes (hidden 6144, expert dim 768)", "[emu][moe]") {
  if (!device_is_gfx950()) {
    SUCCEED("MX weights are gfx950's");
    return;
  }
  // The PR's MoE GEMMs: gate_up (N 1536 = 2 x 768, K 6144) and down (N 6144, K 768) over E
  // experts; here as the layer, at full size, with E 32 and top 8 over 2 tokens (16 experts
  // active), and E 128 / 64 at reduced hidden (their weights are the same per expert).
  for (const auto& [experts, hidden, tokens] :
       {std::tuple{32, 6144, 2}, std::tuple{128, 1536, 4}, std::tuple{64, 1536, 16}}) {
    const moe::problem p{tokens, hidden, 768, experts, 8, 0, experts, layout::k_contiguous};
    const std::vector<int> ids = test::random_ids(tokens, 8, experts, 31);
    test::moe_mx_case<bf16, fp8_e4m3fn> t(p, ids, 32, moe::workspace_bytes(p, 2, moe::weight_format::mxfp8).value(),
                                          false);
#if defined(WAVEKIT_EMULATOR)
    emu::reset_counters();
#endif
    moe::plan_info ran;
    const status s = wavekit::moe(p, t.args(), nullptr, &ran);
    INFO(p.str() << ": " << s.message());
    REQUIRE(s.ok());
    REQUIRE(hipDeviceSynchronize() == hipSuccess);
#if defined(WAVEKIT_EMULATOR)
    if (tokens <= 16) CHECK(t.weight_reads(emu::accumulated_counters()) == 1.0);  // one M tile an expert
#endif
    const int tile_m = moe::with_config(moe::choose_config(p, moe::weight_format::mxfp8),
                                        [](auto cfg) { return decltype(cfg)::block_m; });
    CHECK(t.check(tile_m, ran.name.c_str()) == 0);
  }
}
