// Six of the 18 amd-fp8-mm benchmark shapes (M = 1024) through the public API (emulator or device).
#include <hip/hip_runtime.h>
#include <catch2/catch.hpp>

#include "support/blockscale_case.hpp"
#include "support/device_fp8.hpp"
#include "wavekit/ops/gemm_fp8_blockscale.hpp"

using namespace wavekit;
namespace gb = wavekit::ops::gemm_fp8_blockscale;

TEST_CASE("blockscale GEMM: benchmark shapes of the reference problem", "[emu][gemm]") {
  test::with_device_fp8([&](auto fp8_format) {
    using fp8 = decltype(fp8_format);
    const int shapes[][3] = {{1024, 7168, 256}, {1024, 4096, 512},  {1024, 512, 7168},
                             {1024, 576, 7168}, {1024, 3072, 1536}, {1024, 1536, 7168}};
    std::uint32_t seed = 6251;
    for (const auto& s : shapes) {
      const gb::problem p{s[0], s[1], s[2], layout::mn_contiguous};
      test::blockscale_case<fp8> t(p, seed++);
      gb::plan_info ran;
      const status st = gemm_fp8_blockscale(p, t.args(), nullptr, &ran);
      INFO(p.str() << ": " << st.message());
      REQUIRE(st.ok());
      CHECK(t.check(t.reference(), ran.plan.splits, ran.name.c_str()) == 0);
    }
  });
}
