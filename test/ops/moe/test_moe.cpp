// The MoE pipeline after routing (ops/moe/kernel.hpp: sort, one-pass gate and up, weighted down,
// combine) against host::reference_moe, on the CPU emulator (per emulated target) and, in the GPU
// build, on the device: every shipped config, bf16 and fp16, both weight storage orders, k = 1,
// experts with no tokens, every token to one expert, a local expert range (expert parallelism),
// ids outside the experts; the same bits on every run; no host synchronisation inside the call;
// every bad input's status. Bounds: test/support/moe_case.hpp.
#include <hip/hip_runtime.h>
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "support/graph_safety.hpp"
#include "support/moe_case.hpp"
#include "support/moe_views_check.hpp"
#include "support/plan_choice_check.hpp"
#include "support/tuned_entry.hpp"
#include "wavekit/host/reference_moe_routing.hpp"
#include "wavekit/ops/moe.hpp"

using namespace wavekit;
namespace moe = wavekit::ops::moe;

namespace {

template <class Cfg, class T>
void run_case(const moe::problem& p, const std::vector<int>& ids, std::uint32_t seed) {
  test::moe_case<T> t(p, ids, seed, moe::workspace_bytes_for<Cfg, T>(p));
  status s;
  const auto unsafe =
      test::graph_unsafe_calls_of([&](hipStream_t stream) { s = moe::launch<Cfg>(p, t.args(), stream); });
  INFO(Cfg::name() << " on " << p.str() << ": " << s.message());
  REQUIRE(s.ok());
  CHECK(unsafe.empty());
  REQUIRE(hipDeviceSynchronize() == hipSuccess);
  CHECK(t.check(Cfg::name().c_str()) == 0);
  // The same bits again.
  const std::vector<T> first = t.output();
  REQUIRE(moe::launch<Cfg>(p, t.args(), nullptr).ok());
  REQUIRE(hipDeviceSynchronize() == hipSuccess);
  const std::vector<T> second = t.output();
  CHECK(std::memcmp(first.data(), second.data(), first.size() * sizeof(T)) == 0);
}

}  // namespace

TEMPLATE_LIST_TEST_CASE("moe: each shipped config, both weight orders, bf16 and fp16", "[emu][moe]",
                        moe::shipped_configs) {
  using C = TestType;
  for (layout order : {layout::mn_contiguous, layout::k_contiguous}) {
    const moe::problem p{37, 256, 96, 8, 2, 0, 8, order};
    run_case<C, bf16>(p, test::random_ids(37, 2, 8, 1), 11);
    run_case<C, fp16>(p, test::random_ids(37, 2, 8, 2), 12);
  }
}

TEST_CASE("moe: k = 1, idle experts, one expert for all, expert parallelism, ids outside the experts", "[emu][moe]") {
  using C = moe::config_decode;
  // k = 1 over 16 experts with 5 tokens: most experts idle.
  run_case<C, bf16>({5, 128, 64, 16, 1, 0, 16, layout::mn_contiguous}, test::random_ids(5, 1, 16, 3), 4);
  // Every token to expert 2 (of 4): one expert's rows span several tiles.
  run_case<C, fp16>({40, 128, 64, 4, 1, 0, 4, layout::k_contiguous}, std::vector<int>(40, 2), 5);
  // Expert parallelism: only experts [8, 16) of 32 are computed here.
  run_case<moe::config_medium, bf16>({30, 128, 64, 32, 4, 8, 8, layout::mn_contiguous}, test::random_ids(30, 4, 32, 6),
                                     7);
  // Ids outside [0, experts) contribute nothing.
  std::vector<int> ids = test::random_ids(12, 3, 6, 8);
  ids[1] = -1, ids[7] = 6, ids[20] = 1 << 20;
  run_case<C, bf16>({12, 128, 64, 6, 3, 0, 6, layout::mn_contiguous}, ids, 9);
}

TEST_CASE("moe: x and out as views of wider rows give the packed result bit for bit", "[emu][moe]") {
  using C = moe::config_medium;
  for (layout order : {layout::mn_contiguous, layout::k_contiguous}) {
    const moe::problem p{37, 256, 96, 8, 2, 0, 8, order};
    test::moe_case<bf16> t(p, test::random_ids(37, 2, 8, 3), 13, moe::workspace_bytes_for<C, bf16>(p));
    test::check_views_match_packed(p, t.args(), 24, 8, [](const moe::problem& q, const moe::args<bf16>& a) {
      return moe::launch<C>(q, a, nullptr);
    });
  }
  // The rules: at least hidden, 16-byte loads and stores of 16-bit values, named in the status.
  moe::problem p{4, 256, 96, 8, 2, 0, 8, layout::k_contiguous};
  p.x_stride = 200;
  CHECK(moe::validate_shape(p).message() ==
        "moe " + p.str() + ": x_stride (200) must be 0 (packed) or at least hidden (256)");
  p.x_stride = 260;
  CHECK(moe::validate_shape(p).code() == status_code::bad_alignment);
  p.x_stride = 0, p.out_stride = 268;
  CHECK(moe::validate_shape(p).message() ==
        "moe " + p.str() + ": out_stride (268) must be a multiple of 8 elements (16-byte vector stores)");
  p.out_stride = std::int64_t(1) << 31;
  CHECK(moe::validate_shape(p).code() == status_code::too_large);
}

TEST_CASE("moe: every bad input gets its status before any launch", "[emu][moe]") {
  using C = moe::config_decode;
  const moe::problem p{8, 128, 64, 4, 2, 0, 4, layout::mn_contiguous};
  test::moe_case<bf16> t(p, test::random_ids(8, 2, 4, 1), 1, moe::workspace_bytes_for<C, bf16>(p));
  const std::string what = "moe " + p.str() + ": ";
  auto status_of = [&](const moe::problem& q, const moe::args<bf16>& a) { return moe::launch<C>(q, a, nullptr); };
  CHECK(status_of(p, t.args()).ok());
  REQUIRE(hipDeviceSynchronize() == hipSuccess);
  auto a = t.args();
  a.up = nullptr;
  CHECK(status_of(p, a).message() == what + "argument up is null");
  // The fp32 weighted rows past 32-bit offsets at the tile that runs (8192 tokens x 9 choices, 257
  // experts, hidden 7168: 77583 rows of 28672 bytes at the 16-row tile), while every T tensor fits.
  const moe::problem big{8192, 7168, 256, 257, 9, 0, 257, layout::k_contiguous};
  REQUIRE(moe::validate_shape(big).ok());
  const std::size_t y_bytes = std::size_t(moe::capacity(big.sort(16)).rows) * 7168 * 4;
  CHECK(y_bytes > std::size_t(std::numeric_limits<std::int32_t>::max()));
  CHECK(status_of(big, a).message() ==
        "moe " + big.str() + ": the weighted down projection's rows at the 16-row tile (" + std::to_string(y_bytes) +
            " bytes of fp32) exceed 2^31 - 1 bytes (32-bit buffer offsets)");
  CHECK(moe::validate_layer_rows(big, 16).code() == status_code::too_large);
  a = t.args(), a.x = reinterpret_cast<const bf16*>(reinterpret_cast<const char*>(t.d_x) + 2);
  CHECK(status_of(p, a).code() == status_code::bad_alignment);
  a = t.args(), a.workspace_bytes = 100;
  CHECK(status_of(p, a).code() == status_code::workspace_too_small);
  CHECK(status_of({8, 120, 64, 4, 2, 0, 4, layout::mn_contiguous}, t.args()).message() ==
        "moe 8 tokens, hidden 120, expert dim 64, top 2 of 4 experts (local [0, 4)), weights mn_contiguous: hidden "
        "must be a positive multiple of 16");
  CHECK(status_of({8, 128, 0, 4, 2, 0, 4, layout::mn_contiguous}, t.args()).code() == status_code::bad_shape);
  CHECK(status_of({8, 128, 64, 4, 2, 0, 4, static_cast<layout>(9)}, t.args()).code() == status_code::bad_shape);
  CHECK(status_of({8, 128, 64, 4, 33, 0, 4, layout::mn_contiguous}, t.args()).code() == status_code::bad_shape);
  CHECK(status_of({8, 128, 64, 4, 2, 2, 4, layout::mn_contiguous}, t.args()).code() == status_code::bad_shape);
  CHECK(status_of({1 << 20, 4096, 64, 4, 2, 0, 4, layout::mn_contiguous}, t.args()).code() == status_code::too_large);
  // The local experts' end in 64 bits: an expert_begin near INT_MAX does not wrap into range.
  const int near_max = std::numeric_limits<int>::max() - 1;
  CHECK(status_of({8, 128, 64, 4, 2, near_max, 4, layout::mn_contiguous}, t.args()).message() ==
        "moe 8 tokens, hidden 128, expert dim 64, top 2 of 4 experts (local [2147483646, 2147483650)), weights "
        "mn_contiguous: the local experts [expert_begin, expert_begin + local_experts) must lie in [0, experts)");
  CHECK(status_of({8, 128, 64, 4, 2, 0, near_max, layout::mn_contiguous}, t.args()).code() == status_code::bad_shape);
  CHECK(status_of({8, 128, 64, 4, -3, 0, 4, layout::mn_contiguous}, t.args()).code() == status_code::bad_shape);
}

TEST_CASE("moe: an empty batch launches nothing and takes null tensors, as moe_route does", "[emu][moe]") {
  const moe::problem empty{0, 128, 64, 4, 2, 0, 4, layout::mn_contiguous};
  const moe::args<bf16> none{};
  CHECK(moe::launch<moe::config_decode>(empty, none, nullptr).ok());
  CHECK(wavekit::moe(empty, none, nullptr).ok());
  CHECK(
      wavekit::moe_route(moe::routing_problem{0, 4, 2}, moe::softmax_topk{}, moe::routing_args<float>{}, nullptr).ok());
  // The value rules still hold for an empty batch.
  CHECK(wavekit::moe(moe::problem{0, 120, 64, 4, 2, 0, 4, layout::mn_contiguous}, none, nullptr).code() ==
        status_code::bad_shape);
}

TEST_CASE("moe: the one-call API asks the tuned tables with its activations' type, within its workspace",
          "[emu][moe]") {
  const moe::problem p{40, 128, 64, 8, 2, 0, 8, layout::k_contiguous};  // 10 rows per expert
  const arch::target t = arch::current_device_arch().kind;
  const moe::config_id model = moe::model_config(p, moe::weight_format::half, t);
  const moe::config_id tuned = model == moe::config_id::prefill ? moe::config_id::medium : moe::config_id::prefill;
  const std::string fp16_dtypes = moe::tuning_dtypes<fp16>(moe::weight_format::half, t);
  test::load_tuned_entry(moe::tuning_key(p, t, arch::facts_for(t).compute_units, fp16_dtypes), moe::tuning_value(tuned),
                         "test_moe_fp16_entry.txt");
  // Only the activations' own key names it, and only a workspace that holds its M tile runs it.
  const std::size_t tuned_bytes =
      moe::with_config(tuned, [&](auto cfg) { return moe::workspace_bytes_for<decltype(cfg), fp16>(p); });
  CHECK(moe::choose_config(p, moe::weight_format::half, t, tuned_bytes, fp16_dtypes) == tuned);
  CHECK(moe::choose_config(p, moe::weight_format::half, t, tuned_bytes) ==
        moe::model_config(p, moe::weight_format::half, t, tuned_bytes));  // the model's, within that workspace
  CHECK(moe::choose_config(p, moe::weight_format::half, t, tuned_bytes - 1, fp16_dtypes) != tuned);
  test::moe_case<fp16> call(p, test::random_ids(40, 2, 8, 23), 24, tuned_bytes);
  moe::plan_info ran;
  REQUIRE(wavekit::moe(p, call.args(), nullptr, &ran).ok());
  REQUIRE(hipDeviceSynchronize() == hipSuccess);
  CHECK(ran.name == moe::config_name(tuned));
  CHECK(call.check(ran.name.c_str()) == 0);
}

TEST_CASE("moe: the one-call API picks the model's config and runs it", "[emu][moe]") {
  // The performance model over even routing (ops/moe/model.hpp). Decode sizes (one row an expert)
  // take the 16-row tile of one wave row, which holds every expert's rows and reads its weights
  // once; larger batches the M tile within the model's error of the fastest that keeps the most
  // waves in flight in the grouped GEMMs (planning/model/plan_choice.hpp).
  const moe::problem decode{16, 7168, 256, 257, 9, 0, 257, layout::mn_contiguous};
  const moe::problem prefill{512, 7168, 2048, 8, 4, 0, 8, layout::mn_contiguous};
  for (arch::target t : {arch::target::gfx942, arch::target::gfx950}) {
    CHECK(moe::choose_config(decode, moe::weight_format::half, t) == moe::config_id::decode);
    const std::vector<int> rows = moe::even_expert_rows(prefill);
    std::vector<planning::scored_plan<moe::config_id>> candidates;
    for (moe::config_id id : moe::all_configs)
      candidates.push_back(planning::score(id, moe::model_time(prefill, moe::weight_format::half, id, rows, t)));
    const moe::config_id chosen = moe::choose_config(prefill, moe::weight_format::half, t);
    INFO(arch::to_string(t) << " prefill: " << moe::config_name(chosen));
    test::check_plan_choice(candidates, chosen, [](moe::config_id a, moe::config_id b) { return a == b; });
  }
  const moe::problem prefill_k{512, 7168, 2048, 8, 4, 0, 8, layout::k_contiguous};
  CHECK(moe::choose_config(prefill_k) != moe::config_id::decode);  // a large tile reads the weights fewer times
  // A workspace too small for the model's larger tile: the largest that fits (the 16-row tile
  // needs the least workspace).
  const std::size_t decode_bytes = moe::plan_workspace(prefill, moe::config_decode::block_m, 2).bytes;
  for (arch::target t : {arch::target::gfx942, arch::target::gfx950}) {
    CHECK(moe::choose_config(prefill, moe::weight_format::half, t, decode_bytes) == moe::config_id::decode);
    CHECK(moe::choose_config(prefill, moe::weight_format::half, t, decode_bytes - 1) == moe::config_id::decode);
  }
  // The call runs the plan's config for the (emulated) device within the workspace the query sized
  // (the query plans for gfx942).
  const moe::problem p{96, 256, 64, 8, 3, 0, 8, layout::k_contiguous};  // 36 rows per expert
  const auto bytes = moe::workspace_bytes(p);
  REQUIRE(bytes);
  CHECK(bytes.value() == moe::with_config(moe::choose_config(p),
                                          [&](auto cfg) { return moe::workspace_bytes_for<decltype(cfg), fp16>(p); }));
  const moe::config_id id =
      moe::choose_config(p, moe::weight_format::half, arch::current_device_arch().kind, bytes.value());
  test::moe_case<fp16> t(p, test::random_ids(96, 3, 8, 21), 22, bytes.value());
  moe::plan_info ran;
  REQUIRE(wavekit::moe(p, t.args(), nullptr, &ran).ok());
  REQUIRE(hipDeviceSynchronize() == hipSuccess);
  CHECK(ran.name == moe::config_name(id));
  CHECK(t.check(ran.name.c_str()) == 0);
  CHECK(!moe::workspace_bytes({48, 100, 64, 8, 3, 0, 8, layout::k_contiguous}));
}

// The one-call query for each activation type: the device's config with unlimited workspace, for
// that element type, and the call given exactly its bytes runs that config; an illegal problem gets
// the call's status.
template <class T>
void check_query_sizes_call(const moe::problem& p) {
  const arch::target device = arch::current_device_arch().kind;
  const result<std::size_t> bytes = wavekit::moe_workspace_bytes<moe::args<T>>(p);
  REQUIRE(bytes.ok());
  const moe::config_id preferred = moe::choose_config(p, moe::weight_format::half, device, moe::unlimited_workspace,
                                                      moe::tuning_dtypes<T>(moe::weight_format::half, device));
  CHECK(bytes.value() ==
        moe::with_config(preferred, [&](auto cfg) { return moe::workspace_bytes_for<decltype(cfg), T>(p); }));
  test::moe_case<T> t(p, test::random_ids(p.tokens, p.top_k, p.experts, 31), 32, bytes.value());
  moe::plan_info ran;
  REQUIRE(wavekit::moe(p, t.args(), nullptr, &ran).ok());
  REQUIRE(hipDeviceSynchronize() == hipSuccess);
  CHECK(ran.name == moe::config_name(preferred));
  CHECK(t.check(ran.name.c_str()) == 0);
  // The plan query answers what the call runs: config, name, M tile, workspace.
  const result<moe::plan_info> plan = wavekit::moe_select_plan<moe::args<T>>(p, bytes.value());
  REQUIRE(plan.ok());
  CHECK(plan.value().config == ran.config);
  CHECK(plan.value().name == ran.name);
  CHECK(plan.value().block_m == ran.block_m);
  CHECK(ran.workspace_bytes == bytes.value());
  CHECK(ran.preferred_workspace_bytes == bytes.value());
  CHECK(!ran.workspace_limited);
  // With the workspace of the decode config only (the least any config needs), a larger preferred
  // tile gives way, and the plan says so.
  const std::size_t decode_bytes = moe::workspace_bytes_for<moe::config_decode, T>(p);
  const result<moe::plan_info> small = wavekit::moe_select_plan<moe::args<T>>(p, decode_bytes);
  REQUIRE(small.ok());
  CHECK(small.value().workspace_bytes <= decode_bytes);
  CHECK(small.value().preferred_workspace_bytes == bytes.value());
  CHECK(small.value().workspace_limited == (preferred != moe::config_id::decode));
  if (small.value().workspace_limited) {
    test::moe_case<T> limited(p, test::random_ids(p.tokens, p.top_k, p.experts, 31), 32, decode_bytes);
    moe::plan_info ran_limited;
    REQUIRE(wavekit::moe(p, limited.args(), nullptr, &ran_limited).ok());
    REQUIRE(hipDeviceSynchronize() == hipSuccess);
    CHECK(ran_limited.name == small.value().name);
    CHECK(ran_limited.workspace_limited);
    CHECK(limited.check(ran_limited.name.c_str()) == 0);
  }
  const moe::problem bad{p.tokens, p.hidden + 4, p.expert_dim, p.experts, p.top_k, 0, p.experts, p.weight_order};
  CHECK(wavekit::moe_workspace_bytes<moe::args<T>>(bad).error().message() ==
        wavekit::moe(bad, t.args(), nullptr).message());
  CHECK(wavekit::moe_select_plan<moe::args<T>>(bad, bytes.value()).error().message() ==
        wavekit::moe(bad, t.args(), nullptr).message());
}

TEST_CASE("moe: the one-call workspace query sizes its call, for each activation type", "[emu][moe]") {
  for (const moe::problem p : {moe::problem{8, 256, 64, 8, 2, 0, 8, layout::k_contiguous},
                               moe::problem{96, 256, 64, 8, 3, 0, 8, layout::mn_contiguous}}) {
    check_query_sizes_call<bf16>(p);
    check_query_sizes_call<fp16>(p);
  }
}

TEST_CASE("moe: the unreduced output holds each choice's result, zeros for other ranks' experts", "[emu][moe]") {
  using C = moe::config_decode;
  // Expert parallelism: experts [4, 12) of 16 here; the reduced output is checked against the
  // reference. Both outputs come from the workspace's fp32 weighted rows Y (kernel.hpp): each
  // unreduced row is its slot's Y rounded to bf16, the reduced output the fp32 sum of a token's Y
  // rows in choice order rounded once, bit for bit.
  const moe::problem p{20, 128, 64, 16, 3, 4, 8, layout::mn_contiguous};
  test::moe_case<bf16> t(p, test::random_ids(20, 3, 16, 13), 14, moe::workspace_bytes_for<C, bf16>(p));
  bf16* unreduced = nullptr;
  hipMalloc(&unreduced, std::size_t(20) * 3 * 128 * sizeof(bf16));
  auto a = t.args();
  a.out_unreduced = unreduced;
  REQUIRE(moe::launch<C>(p, a, nullptr).ok());
  REQUIRE(hipDeviceSynchronize() == hipSuccess);
  CHECK(t.check(C::name().c_str()) == 0);
  std::vector<bf16> rows(std::size_t(20) * 3 * 128);
  hipMemcpy(rows.data(), unreduced, rows.size() * sizeof(bf16), hipMemcpyDeviceToHost);
  const moe::workspace_layout w = moe::plan_workspace(p, C::block_m, sizeof(bf16));
  std::vector<int> inverse(std::size_t(20) * 3);
  std::vector<float> y(std::size_t(w.cap.rows) * 128);
  const auto* ws = static_cast<const unsigned char*>(a.workspace);
  hipMemcpy(inverse.data(), ws + w.inverse, inverse.size() * sizeof(int), hipMemcpyDeviceToHost);
  hipMemcpy(y.data(), ws + w.down, y.size() * sizeof(float), hipMemcpyDeviceToHost);
  const std::vector<bf16> out = t.output();
  int bad = 0;
  for (int tok = 0; tok < 20; ++tok)
    for (int c = 0; c < 128; ++c) {
      float sum = 0.0f;
      for (int j = 0; j < 3; ++j) {
        const int slot = tok * 3 + j, row = inverse[std::size_t(slot)];
        const int id = t.ids[std::size_t(slot)];
        const bool local = id >= 4 && id < 12;
        if (local != (row >= 0)) ++bad;  // a row for this rank's experts only
        const float v = row >= 0 ? y[std::size_t(row) * 128 + c] : 0.0f;
        if (rows[std::size_t(slot) * 128 + c].bits != saturate_cast<bf16>(v).bits) ++bad;
        sum += v;
      }
      bad += out[std::size_t(tok) * 128 + c].bits != saturate_cast<bf16>(sum).bits;
    }
  CHECK(bad == 0);
  a.out = nullptr;  // the unreduced output alone is enough
  CHECK(moe::launch<C>(p, a, nullptr).ok());
  a.out_unreduced = nullptr;
  CHECK(moe::launch<C>(p, a, nullptr).message() ==
        "moe " + p.str() + ": arguments out and out_unreduced are both null");
  REQUIRE(hipDeviceSynchronize() == hipSuccess);
  hipFree(unreduced);
}

TEST_CASE("moe: a seeded random sweep over legal problems", "[emu][moe]") {
  std::mt19937 rng(99);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int trial = 0; trial < 6; ++trial) {
    const int experts = pick(1, 40), top_k = pick(1, std::min(6, experts)), tokens = pick(1, 50);
    const int local = pick(1, experts), begin = pick(0, experts - local);
    const moe::problem p{tokens,          16 * pick(1, 12),
                         16 * pick(1, 8), experts,
                         top_k,           begin,
                         local,           pick(0, 1) ? layout::k_contiguous : layout::mn_contiguous};
    INFO("trial " << trial << ": " << p.str());
    const auto ids = test::random_ids(tokens, top_k, experts, 100 + trial);
    if (trial % 2)
      run_case<moe::config_decode, bf16>(p, ids, 200 + trial);
    else
      run_case<moe::config_medium, fp16>(p, ids, 200 + trial);
  }
}

TEST_CASE("moe: DeepSeek routing then the layer, one graph-safe sequence", "[emu][moe]") {
  // Router logits -> grouped sigmoid top-k (with a shared expert appended) -> the layer, all on one
  // stream with nothing the host waits for in between.
  const int tokens = 24, routed = 32, top_k = 4;
  const moe::routing_problem rp{tokens, routed, top_k};
  const moe::grouped_sigmoid_topk rule{4, 2, true, 2.5f, nullptr};
  const moe::problem p{tokens, 128, 64, routed + 1, top_k + 1, 0, routed + 1, layout::k_contiguous};
  std::mt19937 rng(5);
  std::normal_distribution<float> n(0.0f, 1.0f);
  std::vector<float> logits(std::size_t(tokens) * routed);
  for (float& v : logits) v = n(rng);
  // Every expert gets weights (the routing decides on the device which are used).
  std::vector<int> all_ids;
  for (int t = 0; t < tokens; ++t)
    for (int j = 0; j <= top_k; ++j) all_ids.push_back((t * (top_k + 1) + j) % (routed + 1));
  test::moe_case<bf16> t(p, all_ids, 6, moe::workspace_bytes(p).value());
  float* d_logits = test::moe_case<bf16>::upload(logits);
  int* ids = nullptr;
  float* weights = nullptr;
  hipMalloc(&ids, std::size_t(tokens) * (top_k + 1) * 4), hipMalloc(&weights, std::size_t(tokens) * (top_k + 1) * 4);
  auto a = t.args();
  a.ids = ids, a.weights = weights;
  status routed_status, layer_status;
  const auto unsafe = test::graph_unsafe_calls_of([&](hipStream_t stream) {
    routed_status = moe_route(rp, rule, moe::routing_args<float>{d_logits, ids, weights, routed}, stream);
    layer_status = wavekit::moe(p, a, stream);
  });
  REQUIRE(routed_status.ok());
  REQUIRE(layer_status.ok());
  CHECK(unsafe.empty());
  REQUIRE(hipDeviceSynchronize() == hipSuccess);
  // The reference: the routing's reference, then the layer's.
  const auto routing = host::reference_route(logits, rp, rule, {});
  t.ids.clear(), t.weights.clear();
  for (int tok = 0; tok < tokens; ++tok) {
    for (int j = 0; j < top_k; ++j)
      t.ids.push_back(routing.ids[tok * top_k + j]), t.weights.push_back(float(routing.weights[tok * top_k + j]));
    t.ids.push_back(routed), t.weights.push_back(1.0f);
  }
  CHECK(t.check("deepseek routing + layer") == 0);
  hipFree(d_logits), hipFree(ids), hipFree(weights);
}
