// The MoE pipeline after routing (ops/moe/kernel.hpp: sort, gate, gated up, weighted down,
// combine) against host::reference_moe, on the CPU emulator (per emulated target) and, in the GPU
// build, on the device: every shipped config, bf16 and fp16, both weight storage orders, k = 1,
// experts with no tokens, every token to one expert, a local expert range (expert parallelism),
// ids outside the experts; the same bits on every run; no host synchronisation inside the call;
// every bad input's status. Bounds: test/support/moe_case.hpp.
#include <hip/hip_runtime.h>
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "support/graph_safety.hpp"
#include "support/moe_case.hpp"
#include "wavekit/ops/moe.hpp"

using namespace wavekit;
namespace moe = wavekit::ops::moe;

namespace {

std::vector<int> random_ids(int tokens, int top_k, int experts, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<int> all(experts), ids;
  for (int e = 0; e < experts; ++e) all[e] = e;
  for (int t = 0; t < tokens; ++t) {
    std::shuffle(all.begin(), all.end(), rng);
    ids.insert(ids.end(), all.begin(), all.begin() + top_k);
  }
  return ids;
}

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
    run_case<C, bf16>(p, random_ids(37, 2, 8, 1), 11);
    run_case<C, fp16>(p, random_ids(37, 2, 8, 2), 12);
  }
}

TEST_CASE("moe: k = 1, idle experts, one expert for all, expert parallelism, ids outside the experts", "[emu][moe]") {
  using C = moe::config_decode;
  // k = 1 over 16 experts with 5 tokens: most experts idle.
  run_case<C, bf16>({5, 128, 64, 16, 1, 0, 16, layout::mn_contiguous}, random_ids(5, 1, 16, 3), 4);
  // Every token to expert 2 (of 4): one expert's rows span several tiles.
  run_case<C, fp16>({40, 128, 64, 4, 1, 0, 4, layout::k_contiguous}, std::vector<int>(40, 2), 5);
  // Expert parallelism: only experts [8, 16) of 32 are computed here.
  run_case<moe::config_medium, bf16>({30, 128, 64, 32, 4, 8, 8, layout::mn_contiguous}, random_ids(30, 4, 32, 6), 7);
  // Ids outside [0, experts) contribute nothing.
  std::vector<int> ids = random_ids(12, 3, 6, 8);
  ids[1] = -1, ids[7] = 6, ids[20] = 1 << 20;
  run_case<C, bf16>({12, 128, 64, 6, 3, 0, 6, layout::mn_contiguous}, ids, 9);
}

TEST_CASE("moe: every bad input gets its status before any launch", "[emu][moe]") {
  using C = moe::config_decode;
  const moe::problem p{8, 128, 64, 4, 2, 0, 4, layout::mn_contiguous};
  test::moe_case<bf16> t(p, random_ids(8, 2, 4, 1), 1, moe::workspace_bytes_for<C, bf16>(p));
  const std::string what = "moe " + p.str() + ": ";
  auto status_of = [&](const moe::problem& q, const moe::args<bf16>& a) { return moe::launch<C>(q, a, nullptr); };
  CHECK(status_of(p, t.args()).ok());
  REQUIRE(hipDeviceSynchronize() == hipSuccess);
  auto a = t.args();
  a.up = nullptr;
  CHECK(status_of(p, a).message() == what + "argument up is null");
  a = t.args(), a.x = reinterpret_cast<const bf16*>(reinterpret_cast<const char*>(t.d_x) + 2);
  CHECK(status_of(p, a).code() == status_code::bad_alignment);
  a = t.args(), a.workspace_bytes = 100;
  CHECK(status_of(p, a).code() == status_code::bad_config);
  CHECK(status_of({8, 120, 64, 4, 2, 0, 4, layout::mn_contiguous}, t.args()).message() ==
        "moe 8 tokens, hidden 120, expert dim 64, top 2 of 4 experts (local [0, 4)), weights mn_contiguous: hidden "
        "must be a positive multiple of 16");
  CHECK(status_of({8, 128, 0, 4, 2, 0, 4, layout::mn_contiguous}, t.args()).code() == status_code::bad_shape);
  CHECK(status_of({8, 128, 64, 4, 2, 0, 4, static_cast<layout>(9)}, t.args()).code() == status_code::bad_shape);
  CHECK(status_of({8, 128, 64, 4, 17, 0, 4, layout::mn_contiguous}, t.args()).code() == status_code::bad_shape);
  CHECK(status_of({8, 128, 64, 4, 2, 2, 4, layout::mn_contiguous}, t.args()).code() == status_code::bad_shape);
  CHECK(status_of({1 << 20, 4096, 64, 4, 2, 0, 4, layout::mn_contiguous}, t.args()).code() == status_code::too_large);
}

TEST_CASE("moe: the one-call API picks the config by rows per expert and runs it", "[emu][moe]") {
  // Decode: under 24 rows per expert; medium; prefill: hundreds.
  CHECK(moe::choose_config({16, 7168, 256, 257, 9, 0, 257, layout::mn_contiguous}) == moe::config_id::decode);
  CHECK(moe::choose_config({512, 7168, 2048, 8, 4, 0, 8, layout::mn_contiguous}) == moe::config_id::prefill);
  CHECK(moe::choose_config({128, 4096, 1024, 16, 4, 0, 16, layout::mn_contiguous}) == moe::config_id::medium);
  const moe::problem p{96, 256, 64, 8, 3, 0, 8, layout::k_contiguous};  // 36 rows per expert
  const auto bytes = moe::workspace_bytes(p);
  REQUIRE(bytes);
  CHECK(bytes.value() == moe::workspace_bytes_for<moe::config_medium, fp16>(p));
  test::moe_case<fp16> t(p, random_ids(96, 3, 8, 21), 22, bytes.value());
  std::string ran;
  REQUIRE(wavekit::moe(p, t.args(), nullptr, &ran).ok());
  REQUIRE(hipDeviceSynchronize() == hipSuccess);
  CHECK(ran == moe::config_medium::name());
  CHECK(t.check(ran.c_str()) == 0);
  CHECK(!moe::workspace_bytes({48, 100, 64, 8, 3, 0, 8, layout::k_contiguous}));
}

TEST_CASE("moe: the unreduced output holds each choice's result, zeros for other ranks' experts", "[emu][moe]") {
  using C = moe::config_decode;
  // Expert parallelism: experts [4, 12) of 16 here; the reduced output is checked against the
  // reference, and summing the unreduced rows in choice order (fp32, as the combine does) must give
  // it bit for bit.
  const moe::problem p{20, 128, 64, 16, 3, 4, 8, layout::mn_contiguous};
  test::moe_case<bf16> t(p, random_ids(20, 3, 16, 13), 14, moe::workspace_bytes_for<C, bf16>(p));
  bf16* unreduced = nullptr;
  hipMalloc(&unreduced, std::size_t(20) * 3 * 128 * sizeof(bf16));
  auto a = t.args();
  a.out_unreduced = unreduced;
  REQUIRE(moe::launch<C>(p, a, nullptr).ok());
  REQUIRE(hipDeviceSynchronize() == hipSuccess);
  CHECK(t.check(C::name().c_str()) == 0);
  std::vector<bf16> rows(std::size_t(20) * 3 * 128);
  hipMemcpy(rows.data(), unreduced, rows.size() * sizeof(bf16), hipMemcpyDeviceToHost);
  const std::vector<bf16> out = t.output();
  int bad = 0;
  for (int tok = 0; tok < 20; ++tok)
    for (int c = 0; c < 128; ++c) {
      float sum = 0.0f;
      for (int j = 0; j < 3; ++j) {
        const float v = widen_to_float(rows[(std::size_t(tok) * 3 + j) * 128 + c]);
        const int id = t.ids[tok * 3 + j];
        if ((id < 4 || id >= 12) && v != 0.0f) ++bad;  // another rank's expert: 0
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
