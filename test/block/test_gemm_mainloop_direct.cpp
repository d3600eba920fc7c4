// The mainloop's fill schedules (block/gemm_mainloop.hpp): the same GEMM through an op's parts
// (gemm_half's: no scales; gemm_fp8_blockscale's: the group-promotion policy with its LDS, two K
// steps a group on gfx942 and one on gfx950), staged through registers one step ahead, and either
// with the tiles loaded straight into LDS (the direct fill, tile/lds_direct_fill.hpp) or staged two
// steps ahead (two register copies). The arithmetic order is the same, so C must be bit for bit the
// same, at shapes derived from each tile (M = 1, tile - 1, tile + 1; K one step, two, many, a
// ragged first step; split-K), with the emulator's checks of loads in flight (emu/lds_dma.hpp)
// watching every step; and the traffic the same: each tile's bytes read once (written into LDS once
// by the direct loads), the same barriers.
#include <hip/hip_runtime.h>
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "support/blockscale_case.hpp"
#include "support/device_fp8.hpp"
#include "support/device_upload.hpp"
#include "support/fill_views.hpp"
#include "support/fused_gemm.hpp"
#include "wavekit/block/gemm_epilogue.hpp"
#include "wavekit/block/splitk_reduce.hpp"
#include "wavekit/ops/gemm_fp8_blockscale.hpp"
#include "wavekit/ops/gemm_half/configs.hpp"

using namespace wavekit;
namespace gh = wavekit::ops::gemm_half;
namespace gb = wavekit::ops::gemm_fp8_blockscale;
using namespace wavekit::fill_views;

namespace {

// C, and on the emulator the launch's counters.
struct result {
  std::vector<bf16> c;
#if defined(WAVEKIT_EMULATOR)
  emu::launch_counters counters;
#endif
};

void reset_counters() {
#if defined(WAVEKIT_EMULATOR)
  emu::reset_counters();
#endif
}

template <class Cfg>
result run(const bf16* a, const bf16* b, int m, int n, int k, int splits) {
  using E = block::epilogue_store<bf16>;
  bf16* c = nullptr;
  float* partials = nullptr;
  REQUIRE(hipMalloc(&c, std::size_t(m) * n * sizeof(bf16)) == hipSuccess);
  REQUIRE(hipMalloc(&partials, std::size_t(splits) * m * n * sizeof(float)) == hipSuccess);
  reset_counters();
  test::run_fused_gemm<Cfg, E, bf16>(a, b, E::args{c, splits > 1 ? partials : nullptr}, m, n, k, splits,
                                     [](const float* p, const E::args& o, int rows, int cols, int used) {
                                       return block::launch_splitk_reduce(
                                           p, o.c, block::reduce_view::packed(rows, cols), used, nullptr);
                                     });
  result r;
  r.c.resize(std::size_t(m) * n);
#if defined(WAVEKIT_EMULATOR)
  r.counters = emu::accumulated_counters();
#endif
  REQUIRE(hipMemcpy(r.c.data(), c, r.c.size() * sizeof(bf16), hipMemcpyDeviceToHost) == hipSuccess);
  hipFree(c), hipFree(partials);
  return r;
}

// Variant: direct_fill<Base> or two_ahead<Base>, against Base staged one step ahead.
template <class Base, class Variant>
void check_config() {
  constexpr bool fills_directly = block::fills_lds_directly<Variant>;
  std::mt19937 rng(7);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  const int bm = Base::block_m, bn = Base::block_n, bk = Base::block_k;
  for (int m : {1, bm - 1, bm + 1})
    for (int k : {bk, 2 * bk, 5 * bk, 4 * bk - 8})  // one step, two, many, a ragged first step
      for (int splits : {1, 2}) {
        if (splits > 1 && k < 2 * bk) continue;
        const int n = bn + 16;
        std::vector<bf16> ha(std::size_t(m) * k), hb(std::size_t(n) * k);
        for (auto& x : ha) x = saturate_cast<bf16>(normal(rng));
        for (auto& x : hb) x = saturate_cast<bf16>(normal(rng));
        bf16* a = test::upload(ha);
        bf16* b = test::upload(hb);
        INFO(Base::name() << " M " << m << " N " << n << " K " << k << " splits " << splits);
        const result staged = run<wavekit::fill_views::staged<Base>>(a, b, m, n, k, splits),
                     variant = run<Variant>(a, b, m, n, k, splits);
        hipFree(a), hipFree(b);
        CHECK(std::memcmp(staged.c.data(), variant.c.data(), staged.c.size() * sizeof(bf16)) == 0);
#if defined(WAVEKIT_EMULATOR)
        // The same global bytes (each tile's once); with the direct fill every LDS byte of the
        // tiles written by the direct loads (the stage, sink included, a step); the reads as
        // conflict-free as before.
        CHECK(variant.counters.global_bytes_read == staged.counters.global_bytes_read);
        CHECK(staged.counters.lds_dma_instructions == 0);
        if constexpr (fills_directly) {
          CHECK(variant.counters.lds_dma_instructions > 0);
          CHECK(variant.counters.lds_dma_bytes %
                    gh::parts<Variant, bf16, bf16, layout::k_contiguous>::mainloop::tile_bytes ==
                0);
        } else {
          CHECK(variant.counters.lds_dma_instructions == 0);
        }
        CHECK(variant.counters.lds_bank_conflict_cycles == staged.counters.lds_bank_conflict_cycles);
        CHECK(variant.counters.barriers == staged.counters.barriers);
#endif
      }
}

// Variant: direct_fill_blockscale<Base> or two_ahead_blockscale<Base>, against Base staged.
template <class Base, class Variant, class Fp8>
void check_blockscale() {
  constexpr bool fills_directly = block::fills_lds_directly<typename Variant::template on<arch::kernel_view_target>>;
  const int bm = Base::block_m, bn = Base::block_n;
  for (int m : {1, bm - 1, bm + 1})
    for (int k : {128, 256, 640})  // one scale group, two, five
      for (int splits : {1, 2}) {
        if (splits > 1 && k < 256) continue;
        const gb::problem p{m, bn + 16, k, layout::k_contiguous};
        INFO(Base::name() << " on " << p.str() << " splits " << splits);
        test::blockscale_case<Fp8> staged(p, 11, splits),
            direct(p, 11, splits);  // the same data (direct: the variant's run)
        reset_counters();
        REQUIRE(gb::launch<staged_blockscale<Base>>(p, staged.args(), splits, nullptr).ok());
        REQUIRE(hipDeviceSynchronize() == hipSuccess);
#if defined(WAVEKIT_EMULATOR)
        const emu::launch_counters staged_counters = emu::accumulated_counters();
#endif
        reset_counters();
        REQUIRE(gb::launch<Variant>(p, direct.args(), splits, nullptr).ok());
        REQUIRE(hipDeviceSynchronize() == hipSuccess);
        std::vector<bf16> c0(std::size_t(p.m) * p.n), c1(c0.size());
        REQUIRE(hipMemcpy(c0.data(), staged.c, c0.size() * sizeof(bf16), hipMemcpyDeviceToHost) == hipSuccess);
        REQUIRE(hipMemcpy(c1.data(), direct.c, c1.size() * sizeof(bf16), hipMemcpyDeviceToHost) == hipSuccess);
        CHECK(std::memcmp(c0.data(), c1.data(), c0.size() * sizeof(bf16)) == 0);
        CHECK(direct.check(direct.reference(), splits, "the variant") == 0);
#if defined(WAVEKIT_EMULATOR)
        const emu::launch_counters direct_counters = emu::accumulated_counters();
        CHECK(direct_counters.global_bytes_read == staged_counters.global_bytes_read);
        CHECK((direct_counters.lds_dma_instructions > 0) == fills_directly);
        CHECK(direct_counters.lds_bank_conflict_cycles == staged_counters.lds_bank_conflict_cycles);
        CHECK(direct_counters.barriers == staged_counters.barriers);
#endif
      }
}

}  // namespace

TEST_CASE("gemm_mainloop: the direct fill computes what the staged fill does", "[emu][gemm]") {
  check_config<gh::config_decode, direct_fill<gh::config_decode>>();
  check_config<gh::config_small, direct_fill<gh::config_small>>();
  check_config<gh::config_large, direct_fill<gh::config_large>>();
}

TEST_CASE("gemm_mainloop: the staged fill two steps ahead computes what it does one step ahead", "[emu][gemm]") {
  check_config<gh::config_decode, two_ahead<gh::config_decode>>();
  check_config<gh::config_small, two_ahead<gh::config_small>>();
  check_config<gh::config_large, two_ahead<gh::config_large>>();
}

TEST_CASE("gemm_mainloop: the direct fill under the group-promotion policy computes what the staged fill does",
          "[emu][gemm]") {
  test::with_device_fp8([](auto fp8_format) {
    using fp8 = decltype(fp8_format);
    check_blockscale<gb::config_decode, direct_fill_blockscale<gb::config_decode>, fp8>();
    check_blockscale<gb::config_narrow, direct_fill_blockscale<gb::config_narrow>, fp8>();
    check_blockscale<gb::config_large, direct_fill_blockscale<gb::config_large>, fp8>();
  });
}

TEST_CASE("gemm_mainloop: two steps ahead under the group-promotion policy computes what one step ahead does",
          "[emu][gemm]") {
  test::with_device_fp8([](auto fp8_format) {
    using fp8 = decltype(fp8_format);
    check_blockscale<gb::config_decode, two_ahead_blockscale<gb::config_decode>, fp8>();
    check_blockscale<gb::config_narrow, two_ahead_blockscale<gb::config_narrow>, fp8>();
    check_blockscale<gb::config_large, two_ahead_blockscale<gb::config_large>, fp8>();
  });
}
