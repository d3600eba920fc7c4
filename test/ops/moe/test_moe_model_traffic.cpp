// The MoE layer's performance model (ops/moe/model.hpp) against the emulator, launch by launch
// (emu::launch_log): the sort, the quantizations, the three grouped GEMMs and the combine move the
// bytes the model says for the routing's own rows per expert and tokens with a local expert
// (moe::expert_rows, moe::local_tokens). Small layers of every weight form the target runs (bf16
// and fp8 block-scaled; MXFP4, plain and pre-shuffled, and MXFP8 on gfx950) with every config:
// rows spanning several M tiles, idle experts, N past the last N tile's columns, expert
// parallelism. What the emulator cannot count, or the model leaves out on purpose, is taken out
// first (as_emulated; docs/performance-model.md, validation).
#include <hip/hip_runtime.h>
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "support/device_fp8.hpp"
#include "support/moe_blockscale_case.hpp"
#include "support/moe_case.hpp"
#include "support/moe_mx_case.hpp"
#include "wavekit/ops/moe.hpp"
#include "wavekit/ops/moe/model.hpp"

#if defined(WAVEKIT_EMULATOR)
#include "support/model_traffic_check.hpp"
#endif

using namespace wavekit;
namespace moe = wavekit::ops::moe;

namespace {

#if defined(WAVEKIT_EMULATOR)
// The model's launches as the emulator counts them. The sort's and the combine's int tables (the
// ids, the sort's outputs, the combine's inverse) are plain loads and stores, which the emulator
// does not see: the sort's bytes are not checked, the combine's are less its inverse reads. The
// grids of the grouped GEMMs and of the gated product's quantization cover the sort's capacity;
// their blocks past the rows in use return at once and the model leaves them out.
std::vector<planning::launch_work> as_emulated(std::vector<planning::launch_work> model, const moe::problem& p,
                                               std::span<const int> rows, int block_m, int block_n) {
  const moe::sort_capacity cap = moe::capacity(p.sort(block_m));
  double tiles_in_use = 0;
  for (int r : rows) tiles_in_use += std::ceil(double(r) / block_m);
  for (planning::launch_work& w : model) {
    if (w.what == "sort") {
      w.loaded_bytes = w.dram_read_bytes = w.written_bytes = 0;
    } else if (w.what == "combine") {
      w.loaded_bytes -= 4.0 * p.tokens * p.top_k, w.dram_read_bytes -= 4.0 * p.tokens * p.top_k;
    } else if (w.what == "quantize h") {
      w.workgroups = std::ceil(double(cap.rows) * p.expert_dim / 8 / 256);  // 8 values a lane, 256 lanes
    } else if (w.what != "quantize x") {
      // The grouped GEMMs (gate and up: the pair's N, twice the expert dim).
      const int n = w.what == "down, weighted" ? p.hidden : 2 * p.expert_dim;
      w.workgroups += (cap.tiles - tiles_in_use) * std::ceil(double(n) / block_n);
    }
  }
  return model;
}

#endif

// Runs `launch` (one moe::launch) and, on the emulator, checks each kernel's counters against the
// model for config id with the routing's rows per expert (on a GPU: only that it runs).
template <class F>
void check_layer(const moe::problem& p, moe::weight_format weights, moe::config_id id, const std::vector<int>& ids,
                 int block_m, int block_n, F&& launch) {
  INFO(moe::config_id_name(id) << " on " << p.str() << ", weights " << static_cast<int>(weights));
#if defined(WAVEKIT_EMULATOR)
  emu::launch_log log;
#endif
  launch();
  REQUIRE(hipDeviceSynchronize() == hipSuccess);
#if defined(WAVEKIT_EMULATOR)
  const std::vector<int> rows = moe::expert_rows(p, ids);
  const auto model =
      moe::model_launches(p, weights, id, rows, arch::current_device_arch().kind, moe::local_tokens(p, ids));
  test::check_model_traffic_each(as_emulated(model, p, rows, block_m, block_n), log.launches());
#else
  (void)weights, (void)id, (void)ids, (void)block_m, (void)block_n;
#endif
}

// Small layers with their ids: random top-k with N past the last N tile's columns (expert_dim
// `dim_a`); every token to one expert (its rows span several M tiles of the small configs) with
// idle experts, weights in `order`; experts [8, 16) of 32 computed here (tokens with no local
// expert).
struct layer {
  moe::problem p;
  std::vector<int> ids;
};
std::vector<layer> layers(int hidden, int dim_a, int dim_b, layout order) {
  return {{{37, hidden, dim_a, 8, 2, 0, 8, layout::k_contiguous}, test::random_ids(37, 2, 8, 1)},
          {{40, hidden, dim_b, 4, 1, 0, 4, order}, std::vector<int>(40, 2)},
          {{30, hidden, dim_b, 32, 4, 8, 8, layout::k_contiguous}, test::random_ids(30, 4, 32, 6)}};
}

}  // namespace

TEST_CASE("moe model: every launch's bytes, bf16 weights", "[emu][moe]") {
  for (const layer& l : layers(256, 96, 128, layout::mn_contiguous))
    for (moe::config_id id : moe::all_configs)
      moe::with_config(id, [&](auto cfg) {
        using C = decltype(cfg);
        test::moe_case<bf16> t(l.p, l.ids, 11, moe::workspace_bytes_for<C, bf16>(l.p));
        check_layer(l.p, moe::weight_format::half, id, l.ids, C::block_m, C::block_n,
                    [&] { REQUIRE(moe::launch<C>(l.p, t.args(), nullptr).ok()); });
      });
}

TEST_CASE("moe model: every launch's bytes, fp8 block-scaled weights", "[emu][moe]") {
  test::with_device_fp8([&](auto fp8_format) {
    using fp8 = decltype(fp8_format);
    for (const layer& l : layers(256, 128, 128, layout::mn_contiguous))
      for (moe::config_id id : moe::all_configs)
        moe::blockscale::with_config(moe::blockscale_config_of(id), [&](auto cfg) {
          using C = decltype(cfg);
          test::moe_blockscale_case<bf16, fp8> t(l.p, l.ids, 12, moe::blockscale_workspace_bytes_for<C, bf16>(l.p));
          check_layer(l.p, moe::weight_format::fp8_blockscale, id, l.ids, C::block_m, C::block_n,
                      [&] { REQUIRE(moe::launch<C>(l.p, t.args(), nullptr).ok()); });
        });
  });
}

TEST_CASE("moe model: every launch's bytes, MX weights", "[emu][moe]") {
  if (arch::current_device_arch().kind != arch::target::gfx950) {
    SUCCEED("MX weights are gfx950's");
    return;
  }
  for (moe::config_id id : moe::all_configs)
    moe::with_mx_config(id, [&](auto cfg) {
      using C = decltype(cfg);
      for (const layer& l : layers(512, 192, 256, layout::k_contiguous)) {
        const std::size_t fp4_ws = moe::plan_workspace(l.p, C::block_m, 2, moe::weight_format::mxfp4).bytes;
        for (bool shuffled : {false, true}) {
          test::moe_mx_case<bf16, fp4_e2m1> t(l.p, l.ids, 13, fp4_ws, shuffled);
          check_layer(l.p, moe::weight_format::mxfp4, id, l.ids, C::block_m, C::block_n,
                      [&] { REQUIRE(moe::launch<C>(l.p, t.args(), arch::target::gfx950, nullptr).ok()); });
        }
        const std::size_t fp8_ws = moe::plan_workspace(l.p, C::block_m, 2, moe::weight_format::mxfp8).bytes;
        test::moe_mx_case<bf16, fp8_e4m3fn> t(l.p, l.ids, 14, fp8_ws, false);
        check_layer(l.p, moe::weight_format::mxfp8, id, l.ids, C::block_m, C::block_n,
                    [&] { REQUIRE(moe::launch<C>(l.p, t.args(), arch::target::gfx950, nullptr).ok()); });
      }
    });
}
