// gemm_fp8_direct's performance model (ops/gemm_fp8_direct/model.hpp) counted by hand (host only).
#include <catch2/catch.hpp>

#include "wavekit/ops/gemm_fp8_direct/model.hpp"

using namespace wavekit;
namespace gd = wavekit::ops::gemm_fp8_direct;

TEST_CASE("gemm_fp8_direct model: one wave a 32x32 tile, operands from global memory", "[perf]") {
  for (arch::target t : {arch::target::gfx942, arch::target::gfx950}) {
    const auto l = gd::model_launches({64, 96, 32}, t);
    REQUIRE(l.size() == 1);
    REQUIRE(l[0].profile != nullptr);
    CHECK(l[0].workgroups == 2 * 3);
    CHECK(l[0].waves_per_workgroup == 1);
    CHECK(l[0].loop_iterations_per_wave == 32 / 16);  // one 32x32x16 MFMA an iteration
    CHECK(l[0].lds_bytes_per_workgroup == 0);
    CHECK(l[0].loaded_bytes == 3 * 64 * 32 + 2 * 96 * 32);  // A per column of tiles, B per row
    CHECK(l[0].dram_read_bytes == 64 * 32 + 96 * 32);
    CHECK(l[0].written_bytes == 4 * 64 * 96);  // fp32 C
  }
}
