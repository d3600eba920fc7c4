// The block-scaled fp8 GEMM on the CPU emulator against the host reference.
#include <hip/hip_runtime.h>
#include <catch2/catch.hpp>

#include "support/blockscale_case.hpp"
#include "wavekit/arch/target.hpp"
#include "wavekit/config/gemm_fp8_blockscale_config.hpp"
#include "wavekit/ops/gemm/gemm_fp8_blockscale_kernel.hpp"

using namespace wavekit;
using fp8 = std::conditional_t<arch::current_target == arch::target::gfx950, fp8_e4m3fn, fp8_e4m3fnuz>;
using small_cfg = config::gemm_fp8_blockscale_config<64, 64, 128, 2, 2, config::mfma_shape::m16n16k32>;

TEST_CASE("blockscale GEMM, one config, both layouts", "[emu][gemm]") {
  for (layout order : {layout::k_contiguous, layout::mn_contiguous}) {
    test::blockscale_case<fp8> t({96, 80, 256, order}, 1);
    const status s = ops::launch_gemm_fp8_blockscale<small_cfg>(t.p, t.args(), 1, nullptr);
    INFO(s.message());
    REQUIRE(s.ok());
    CHECK(t.check(t.reference(), 1, "sk1") == 0);
  }
}

template <class Cfg>
void check_conflict_free(layout order) {
  test::blockscale_case<fp8> t({Cfg::block_m, Cfg::block_n, 256, order}, 2);
  const status s = ops::launch_gemm_fp8_blockscale<Cfg>(t.p, t.args(), 1, nullptr);
  INFO(s.message());
  REQUIRE(s.ok());
  const auto& counters = emu::last_launch_counters();
  INFO(Cfg::name() << " " << to_string(order) << "\n" << counters.summary());
  CHECK(counters.lds_instructions > 0);
  CHECK(counters.lds_bank_conflict_cycles == 0);
  CHECK(t.check(t.reference(), 1, "conflicts") == 0);
}

TEST_CASE("blockscale GEMM: LDS fills and operand reads are bank-conflict free", "[emu][gemm]") {
  using namespace config;
  for (layout order : {layout::k_contiguous, layout::mn_contiguous}) {
    check_conflict_free<gemm_fp8_blockscale_config<64, 64, 128, 2, 2, mfma_shape::m16n16k32>>(order);
    check_conflict_free<gemm_fp8_blockscale_config<64, 64, 64, 2, 2, mfma_shape::m16n16k32>>(order);
    check_conflict_free<gemm_fp8_blockscale_config<64, 64, 128, 1, 1, mfma_shape::m32n32k16>>(order);
    check_conflict_free<gemm_fp8_blockscale_config<64, 64, 64, 1, 1, mfma_shape::m32n32k16>>(order);
  }
}
