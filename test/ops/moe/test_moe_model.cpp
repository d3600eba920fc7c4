// The MoE layer's performance model (ops/moe/model.hpp) on a problem small enough to count by hand:
// each launch's workgroups and bytes, the rows each expert gets, and every kernel's profile found
// for every config and weight format the dispatch can pick (host only).
#include <catch2/catch.hpp>

#include <vector>

#include "wavekit/ops/moe/model.hpp"
#include "wavekit/ops/moe/plan.hpp"

using namespace wavekit;
namespace moe = wavekit::ops::moe;

TEST_CASE("moe model: rows per local expert, from the ids and under even routing", "[moe][perf]") {
  const moe::problem p{3, 256, 128, 6, 2, 2, 3, layout::mn_contiguous};  // local experts 2, 3, 4
  const std::vector<int> ids = {2, 5, 3, 2, 4, 0};
  CHECK(moe::expert_rows(p, ids) == std::vector<int>{2, 1, 1});
  CHECK(moe::even_expert_rows(p) == std::vector<int>{1, 1, 1});  // 6 slots over 6 experts
}

TEST_CASE("moe model: bf16 launches, counted by hand", "[moe][perf]") {
  // 2 tokens, top 2 of 4 experts: rows {2, 1, 1, 0}; the 16 x 128 decode tile (4 waves), 64-K steps.
  const moe::problem p{2, 256, 128, 4, 2, 0, 4, layout::mn_contiguous};
  const std::vector<int> rows = {2, 1, 1, 0};
  const auto l = moe::model_launches(p, moe::weight_format::half, moe::config_id::decode, rows, arch::target::gfx942);
  REQUIRE(l.size() == 4);  // sort, gate and up, down, combine
  CHECK(l[0].what == "sort");
  CHECK(l[0].loaded_bytes == 4 * 4);
  // gate and up: the pair GEMM, N = 2 x 128 (two N tiles of 64 gate and 64 up columns), K = 256: 3
  // experts with rows, one M tile each. A: its rows once per N tile; B: the expert's gate and up
  // weights, 2 x 128 x 256 bf16, once per M tile. DRAM: those weights once and x once.
  CHECK(l[1].workgroups == 3 * 2);
  CHECK(l[1].loaded_bytes == 2 * 4 * 256 * 2 + 3 * 2 * 128 * 256 * 2);
  CHECK(l[1].dram_read_bytes == 3 * 2 * 128 * 256 * 2 + 2 * 256 * 2);
  // Every row of the 3 tiles stored, padding rows too: 48 rows of the 128-column gated product.
  CHECK(l[1].written_bytes == 48 * 128 * 2);
  CHECK(l[1].loop_iterations_per_wave > 0);
  // down: N = 256 (two N tiles), K = 128, A the 4 gated rows; each of a block's 4 waves loads its
  // 16 rows' slots and the 4 slots' routing weights; fp32 rows out.
  CHECK(l[2].workgroups == 6);
  CHECK(l[2].loaded_bytes == 2 * 4 * 128 * 2 + 3 * 256 * 128 * 2 + 2 * 4 * 4 * (48 + 4));
  CHECK(l[2].dram_read_bytes == 3 * 256 * 128 * 2 + 4 * 128 * 2 + 4 * (48 + 4));
  CHECK(l[2].written_bytes == 48 * 256 * 4);
  // combine: each token's fp32 slots, its output row once.
  CHECK(l[3].loaded_bytes == 4 * 256 * 4 + 4 * 4);
  CHECK(l[3].written_bytes == 2 * 256 * 2);
}

TEST_CASE("moe model: quantized weights add the quantizations and count weights at their width", "[moe][perf]") {
  const moe::problem p{2, 256, 128, 4, 2, 0, 4, layout::k_contiguous};
  const std::vector<int> rows = {2, 1, 1, 0};
  const auto fp8 =
      moe::model_launches(p, moe::weight_format::fp8_blockscale, moe::config_id::decode, rows, arch::target::gfx942);
  REQUIRE(fp8.size() == 6);  // sort, quantize x, gate and up, quantize h, down, combine
  CHECK(fp8[1].what == "quantize x");
  CHECK(fp8[1].loaded_bytes == 2 * 256 * 2);
  // gate's and up's weights: fp8 bytes and one fp32 scale per 128 x 128 block, once per expert with
  // rows.
  CHECK(fp8[2].dram_read_bytes == 3 * 2 * (128 * 256 + 4 * 2) + 2 * 256 * (1 + 4.0 / 128));
  const auto fp4 =
      moe::model_launches(p, moe::weight_format::mxfp4, moe::config_id::decode, rows, arch::target::gfx950);
  REQUIRE(fp4.size() == 6);
  CHECK(fp4[2].dram_read_bytes == 3 * 2 * 128 * 256 * (0.5 + 1.0 / 32) + 2 * 256 * (0.5 + 1.0 / 32));
}

TEST_CASE("moe model: every kernel of every config and format has a codegen profile", "[moe][perf]") {
  const moe::problem p{64, 512, 256, 8, 2, 0, 8, layout::k_contiguous};
  const std::vector<int> rows = moe::even_expert_rows(p);
  struct form {
    moe::weight_format weights;
    arch::target t;
  };
  for (form f :
       {form{moe::weight_format::half, arch::target::gfx942}, form{moe::weight_format::half, arch::target::gfx950},
        form{moe::weight_format::fp8_blockscale, arch::target::gfx942},
        form{moe::weight_format::fp8_blockscale, arch::target::gfx950},
        form{moe::weight_format::mxfp4, arch::target::gfx950}, form{moe::weight_format::mxfp8, arch::target::gfx950}})
    for (moe::config_id id : moe::all_configs) {
      // MXFP8's shipped instances are the decode tile's (the others are compiled by the tests).
      if (f.weights == moe::weight_format::mxfp8 && id != moe::config_id::decode) continue;
      for (const auto& w : moe::model_launches(p, f.weights, id, rows, f.t)) {
        INFO(moe::config_name(id) << " format " << int(f.weights) << " " << arch::to_string(f.t) << ": " << w.what);
        CHECK(w.profile != nullptr);
      }
    }
}

TEST_CASE("moe model: picks only configs whose rows fit 32-bit offsets", "[moe][perf]") {
  // 18500 tokens x top 4 over 8 experts, hidden 7168 (9250 rows an expert: a prefill tile's
  // problem): the 128-row tile's padded fp32 rows (75136 of 28672 bytes) pass 2^31 - 1 bytes, the
  // 64-row tile's (74560) do not. The layer runs, on a tile that fits.
  const moe::problem p{18500, 7168, 2048, 8, 4, 0, 8, layout::k_contiguous};
  REQUIRE(moe::validate_shape(p).ok());
  CHECK(moe::check_config(p, moe::config_id::prefill).code() == status_code::too_large);
  CHECK(moe::check_config(p, moe::config_id::medium).ok());
  for (arch::target t : {arch::target::gfx942, arch::target::gfx950}) {
    CHECK(moe::check_config(p, moe::model_config(p, moe::weight_format::half, t)).ok());
    CHECK(moe::check_config(p, moe::choose_config(p, moe::weight_format::half, t)).ok());
  }
  CHECK(moe::workspace_bytes(p).ok());
}
