// The MX GEMM at decode sizes on the emulator's counters: aiter PR #3783's dense MXFP8 shapes
// (MiniMax-M3 per GPU) at M 1, 16 and 64, and amd-mxfp4-mm's decode shapes, through the one-call
// API. The weights are read once: the bytes read from B's allocation and from its scales' are
// exactly their sizes (the emulator counts reads per allocation). All bytes read match the plan's
// design to 1%: B once, A once per N tile (its scales once per wave column of an MFMA tile), the
// split-K partials. Printed beside it, the ratio to every operand read once: within 1.1 at M = 1
// (checked); above, A's re-reads per N tile (A is at most 64 rows: on a GPU they come from L2)
// and the split-K partials are what the ratio shows (docs/mx-gemm.md, "Traffic at decode sizes").
// gfx950 only, full tier.
#include <hip/hip_runtime.h>
#include <catch2/catch.hpp>

#include <cstdio>
#include <tuple>

#include "support/gemm_mx_case.hpp"
#include "wavekit/ops/gemm_mx.hpp"

using namespace wavekit;
namespace gx = wavekit::ops::gemm_mx;

namespace {

// a_bytes: A's data once; a_scale_bytes: its scales once (each wave column of a tile reads them).
template <class Case>
void check_traffic(const gx::problem& p, double a_bytes, double a_scale_bytes) {
  Case t(p, 3, 16);
  gx::plan_info ran;
#if defined(WAVEKIT_EMULATOR)
  emu::reset_counters();
#endif
  REQUIRE(gemm_mx(p, t.args(), nullptr, &ran).ok());
  REQUIRE(hipDeviceSynchronize() == hipSuccess);
#if defined(WAVEKIT_EMULATOR)
  const double b_bytes = double(p.n) * p.k * gx::element_bits(p.format) / 8 + double(p.n) * p.k / 32;
  const double ideal = a_bytes + a_scale_bytes + b_bytes;
  const double read = double(emu::accumulated_counters().global_bytes_read);
  // The GEMV path: A and its scales once per 256 columns; an MFMA config: per N tile, the scales
  // per wave column.
  const planning::gemm_tile_facts f = gx::facts(ran.plan.config);
  const int block_n = gx::plan_block_n(ran.plan);
  const int n_tiles = (p.n + block_n - 1) / block_n, wave_columns = ran.plan.gemv_rows ? 1 : f.block_n / f.wave_n;
  const double partials = ran.plan.splits > 1 ? double(ran.plan.splits) * p.m * p.n * 4 : 0.0;
  const double design = b_bytes + n_tiles * (a_bytes + wave_columns * a_scale_bytes) + partials;
  std::printf("gemm_mx %s (%s): %.3f MB read, operands once %.3f MB, ratio %.3f; B once, A per N tile %.3f MB\n",
              p.str().c_str(), ran.name.c_str(), read / 1e6, ideal / 1e6, read / ideal, design / 1e6);
  const double b_data = double(p.n) * p.k * gx::element_bits(p.format) / 8, b_scales = double(p.n) * p.k / 32;
  const auto& counters = emu::accumulated_counters();
  const double b_read = double(counters.bytes_read_from(t.b)),
               b_scale_read = double(counters.bytes_read_from(t.b_scale));
  std::printf("  B read %.4fx, its scales %.4fx, A %.2fx, partials %.3f MB\n", b_read / b_data, b_scale_read / b_scales,
              double(counters.bytes_read_from(t.a)) / a_bytes, partials / 1e6);
  CHECK(b_read == b_data);
  CHECK(b_scale_read == b_scales);
  CHECK(read <= 1.01 * design);
  if (p.m == 1) CHECK(read <= 1.1 * ideal);
#endif
  CHECK(t.check(ran.plan.splits, ran.name.c_str()) == 0);
}

}  // namespace

TEST_CASE("gemm_mx: decode sizes read the weights once", "[emu][gemm]") {
  if (arch::current_device_arch().kind != arch::target::gfx950) {
    SUCCEED("MX formats are gfx950's");
    return;
  }
  for (const auto& [k, n] : {std::pair{6144, 1536}, std::pair{1536, 6144}, std::pair{768, 6144}})
    for (int m : {1, 16, 64}) {
      const gx::problem p{m, n, k, gx::mx_format::mxfp8, gx::a_storage::mx, gx::b_layout::plain};
      check_traffic<test::gemm_mx_case<fp8_e4m3fn, bf16>>(p, double(m) * k, double(m) * k / 32);
    }
  for (const auto& [m, n, k] : {std::tuple{4, 2880, 512}, std::tuple{16, 2112, 7168}}) {
    const gx::problem p{m, n, k, gx::mx_format::mxfp4, gx::a_storage::bf16, gx::b_layout::preshuffled};
    check_traffic<test::gemm_mx_quantizing_a_case<bf16, bf16>>(p, double(m) * k * 2, 0.0);
  }
}
