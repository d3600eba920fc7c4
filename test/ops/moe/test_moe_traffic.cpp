// MoE decode traffic on the emulator's counters: a decode-size batch of DeepSeek-V3's shape
// (16 tokens, 256 routed experts + 1 shared, top-8 + shared, hidden 7168, expert dim 256, bf16)
// must read each active expert's weights from memory once: global bytes read <= 1.1 x (the
// weights of the experts with tokens + the activations + the output). The output is checked
// against the host reference too. The same batch with fp8 block-scaled weights (DeepSeek-V3's
// storage: nn.Linear order, 128x128 scales; x quantized inside) must read each active expert's fp8
// weights and scales once. Full tier only (the largest MoE cases).
#include <hip/hip_runtime.h>
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <random>
#include <vector>

#include "support/device_fp8.hpp"
#include "support/moe_blockscale_case.hpp"
#include "support/moe_case.hpp"
#include "wavekit/ops/moe.hpp"

using namespace wavekit;
namespace moe = wavekit::ops::moe;

namespace {

constexpr int tokens = 16, routed = 256, top_k = 8;

// Top-8 of 256 routed experts per token, then the shared expert.
std::vector<int> decode_ids() { return test::random_ids_with_shared(tokens, top_k, routed, 31); }

// Global bytes read since the counters were reset against the ideal: the active experts' weights,
// x read and the output written once.
void check_traffic(const char* label, std::size_t weight_bytes, int hidden) {
#if defined(WAVEKIT_EMULATOR)
  const double read = double(emu::accumulated_counters().global_bytes_read);
  const double ideal = double(weight_bytes) + 2.0 * 2 * tokens * hidden;
  std::printf("%s: %.1f MB read, ideal %.1f MB, ratio %.3f\n", label, read / 1e6, ideal / 1e6, read / ideal);
  CHECK(read <= 1.1 * ideal);
#else
  (void)label, (void)weight_bytes, (void)hidden;
#endif
}

}  // namespace

TEST_CASE("moe: a decode batch reads each active expert's weights once", "[emu][moe]") {
  const moe::problem p{tokens, 7168, 256, routed + 1, top_k + 1, 0, routed + 1, layout::mn_contiguous};
  const std::vector<int> ids = decode_ids();
  test::moe_case<bf16> t(p, ids, 3, moe::workspace_bytes(p).value());
  moe::plan_info ran;
#if defined(WAVEKIT_EMULATOR)
  emu::reset_counters();
#endif
  REQUIRE(wavekit::moe(p, t.args(), nullptr, &ran).ok());
  REQUIRE(hipDeviceSynchronize() == hipSuccess);
  INFO(ran.name);
  CHECK(ran.name == moe::config_decode::name());
  CHECK(t.check(ran.name.c_str()) == 0);
  check_traffic("moe decode traffic", t.active_weight_bytes(), p.hidden);
}

TEST_CASE("moe fp8: a decode batch reads each active expert's fp8 weights and scales once", "[emu][moe]") {
  test::with_device_fp8([&](auto fp8_format) {
    using fp8 = decltype(fp8_format);
    const moe::problem p{tokens, 7168, 256, routed + 1, top_k + 1, 0, routed + 1, layout::k_contiguous};
    test::moe_blockscale_case<bf16, fp8> t(p, decode_ids(), 3,
                                           moe::workspace_bytes(p, 2, moe::weight_format::fp8_blockscale).value());
    moe::plan_info ran;
#if defined(WAVEKIT_EMULATOR)
    emu::reset_counters();
#endif
    REQUIRE(wavekit::moe(p, t.args(), nullptr, &ran).ok());
    REQUIRE(hipDeviceSynchronize() == hipSuccess);
    INFO(ran.name);
    CHECK(ran.name == moe::blockscale::config_decode::name());
    check_traffic("moe fp8 decode traffic", t.active_weight_bytes(), p.hidden);
    CHECK(t.check_standard(moe::blockscale::config_decode::block_m, ran.name.c_str()) == 0);
  });
}
