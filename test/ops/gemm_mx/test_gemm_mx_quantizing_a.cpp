// MXFP4 GEMM with a bf16 / fp16 A quantized in the kernel (amd-mxfp4-mm's form): C against the
// exact product of the host quantizer's MXFP4 of A (the kernel's must be the same bits) and B, at
// gemm_mx_case's bound, on the emulated gfx950 (gfx942: the refusal). Every config that can
// quantize its A tile, on shapes from its tile (M 1, tile - 1, tile + 1; K one block, one step, a
// ragged first step), split-K, fp16 A and out, B plain and in aiter's pre-shuffled layouts (as the
// problem hands it over), the one-call API and its plan, amd-mxfp4-mm's 4 test and 6 benchmark
// shapes at full size, LDS without bank conflicts, and the statuses of the quantizing and
// pre-shuffled forms.
#include <hip/hip_runtime.h>
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <tuple>

#include "support/gemm_mx_run.hpp"
#include "wavekit/ops/gemm_mx.hpp"

using namespace wavekit;
namespace gx = wavekit::ops::gemm_mx;

namespace {

using test::device_is_gfx950;

template <class Cfg, class T, class Out>
int run_config(const gx::problem& p, int splits, std::uint32_t seed) {
  return test::run_mx_config<Cfg, test::gemm_mx_quantizing_a_case<T, Out>>(p, splits, seed);
}

template <class Cfg>
void run_shapes() {
  constexpr gx::mx_format f = gx::mx_format::mxfp4;
  constexpr gx::a_storage bf = gx::a_storage::bf16;
  constexpr gx::b_layout shuffled = gx::b_layout::preshuffled;
  const int bm = Cfg::block_m, bn = Cfg::block_n, bk = gx::block_k_of<Cfg>(f);
  for (int m : {1, bm - 1, bm + 1})
    for (int k : {32, bk, 2 * bk + 64})
      CHECK(run_config<Cfg, bf16, bf16>(gx::problem{m, bn + 16, k, f, bf, gx::b_layout::plain}, 1, m + k) == 0);
  CHECK(run_config<Cfg, fp16, fp16>(gx::problem{bm, 16, 5 * bk, f, gx::a_storage::fp16, gx::b_layout::plain}, 3, 7) ==
        0);
  CHECK(run_config<Cfg, bf16, bf16>(gx::problem{bm + 16, bn, 4 * bk - 32, f, bf, gx::b_layout::plain}, 2, 9) == 0);
  // B pre-shuffled (aiter's layouts, scales padded to 256 rows): K one and many steps, ragged
  // (a multiple of 64), N past a 256-row scale tile, split-K.
  for (int k : {64, bk, 3 * bk + 64})
    CHECK(run_config<Cfg, bf16, bf16>(gx::problem{bm + 1, 272, k, f, bf, shuffled}, 1, 11 + k) == 0);
  CHECK(run_config<Cfg, bf16, bf16>(gx::problem{bm, bn, 4 * bk - 64, f, bf, shuffled}, 2, 13) == 0);
}

}  // namespace

TEST_CASE("gemm_mx, A quantized in the kernel: every config that can, on shapes from its tile", "[emu][gemm]") {
  if (!device_is_gfx950()) {
    SUCCEED("MX formats are gfx950's; the refusal test covers this target");
    return;
  }
  int ran = 0;
  for (gx::config_id id : gx::all_configs)
    gx::with_config(id, [&](auto cfg) {
      using C = decltype(cfg);
      if constexpr (gx::quantizes_a_config<C>) {
        INFO(C::name());
        run_shapes<C>();
        ++ran;
      }
      return 0;
    });
  CHECK(ran >= 3);
}

TEST_CASE("gemm_mx, A quantized in the kernel: the one-call API runs the plan it reports", "[emu][gemm]") {
  if (!device_is_gfx950()) {
    SUCCEED("MX formats are gfx950's; the refusal test covers this target");
    return;
  }
  // amd-mxfp4-mm's shapes at reduced N (the K and M of its cases).
  for (const auto& [m, n, k] : {std::tuple{8, 256, 7168}, std::tuple{16, 192, 1536}, std::tuple{64, 128, 1536},
                                std::tuple{256, 64, 512}, std::tuple{4, 128, 512}}) {
    const gx::problem p{m, n, k, gx::mx_format::mxfp4, gx::a_storage::bf16, gx::b_layout::preshuffled};
    test::gemm_mx_quantizing_a_case<bf16, bf16> t(p, 40 + m, 16);
    gx::plan_info ran;
    REQUIRE(gemm_mx(p, t.args(), nullptr, &ran).ok());
    REQUIRE(hipDeviceSynchronize() == hipSuccess);
    CHECK(ran.name == gemm_mx_select_plan<decltype(t.args())>(p, t.workspace_bytes).value().name);
    CHECK(gx::quantizes_a(ran.plan.config));
    CHECK(t.check(ran.plan.splits, ran.name.c_str()) == 0);
  }
}

TEST_CASE("gemm_mx, A quantized in the kernel: amd-mxfp4-mm's test and benchmark shapes at full size", "[emu][gemm]") {
  if (!device_is_gfx950()) {
    SUCCEED("MX formats are gfx950's; the refusal test covers this target");
    return;
  }
  for (const auto& [m, n, k] :
       {std::tuple{8, 2112, 7168}, std::tuple{16, 3072, 1536}, std::tuple{64, 3072, 1536}, std::tuple{256, 2880, 512},
        std::tuple{4, 2880, 512}, std::tuple{16, 2112, 7168}, std::tuple{32, 4096, 512}, std::tuple{32, 2880, 512},
        std::tuple{64, 7168, 2048}, std::tuple{256, 3072, 1536}}) {
    const gx::problem p{m, n, k, gx::mx_format::mxfp4, gx::a_storage::bf16, gx::b_layout::preshuffled};
    test::gemm_mx_quantizing_a_case<bf16, bf16> t(p, 70 + m, 16);
    gx::plan_info ran;
    REQUIRE(gemm_mx(p, t.args(), nullptr, &ran).ok());
    REQUIRE(hipDeviceSynchronize() == hipSuccess);
    CHECK(t.check(ran.plan.splits, ran.name.c_str()) == 0);
  }
}

TEST_CASE("gemm_mx, A quantized in the kernel: statuses", "[emu][gemm]") {
  const gx::problem p{16, 128, 256, gx::mx_format::mxfp4, gx::a_storage::bf16, gx::b_layout::plain};
  test::gemm_mx_quantizing_a_case<bf16, bf16> t(p, 5);
  const std::string what = "gemm_mx " + p.str() + ": ";
  if (!device_is_gfx950()) {
    CHECK(gemm_mx(p, t.args(), nullptr).code() == status_code::unsupported_target);  // no scaled MFMAs
    return;
  }
  CHECK(
      gx::validate(gx::problem{16, 128, 256, gx::mx_format::mxfp8, gx::a_storage::bf16, gx::b_layout::plain}, t.args())
          .message() ==
      "gemm_mx 16x128x256 mxfp8, A bf16 quantized in the kernel: a 16-bit A is quantized to MXFP4 only (the "
      "format must be mxfp4)");
  CHECK(gx::validate(gx::problem{16, 128, 256, gx::mx_format::mxfp4, gx::a_storage::mx, gx::b_layout::plain}, t.args())
            .code() == status_code::bad_format);
  CHECK(
      gx::validate(gx::problem{16, 128, 256, gx::mx_format::mxfp4, gx::a_storage::fp16, gx::b_layout::plain}, t.args())
          .code() == status_code::bad_format);
  CHECK(
      gx::validate(gx::problem{16, 128, 250, gx::mx_format::mxfp4, gx::a_storage::bf16, gx::b_layout::plain}, t.args())
          .code() == status_code::bad_shape);
  auto a = t.args();
  a.a = nullptr;
  CHECK(gemm_mx(p, a, nullptr).message() == what + "argument a is null");
  a = t.args();
  a.b_scale = nullptr;
  CHECK(gemm_mx(p, a, nullptr).message() == what + "argument b_scale is null");
  a = t.args();
  a.a = reinterpret_cast<const bf16*>(reinterpret_cast<std::uintptr_t>(a.a) + 2);
  CHECK(gemm_mx(p, a, nullptr).code() == status_code::bad_alignment);
  // A config whose A tile is too large to quantize as it loads.
  CHECK(gx::launch<gx::config_large>(p, t.args(), 1, nullptr).code() == status_code::bad_config);
  // A pre-shuffled B: MXFP4, K a multiple of 64.
  CHECK(
      gx::validate_shape(gx::problem{16, 128, 96, gx::mx_format::mxfp4, gx::a_storage::bf16, gx::b_layout::preshuffled})
          .message() ==
      "gemm_mx 16x128x96 mxfp4, A bf16 quantized in the kernel, B pre-shuffled: a pre-shuffled B needs K a multiple "
      "of 64 (its 32-byte tiles)");
  CHECK(
      gx::validate_shape(gx::problem{16, 128, 256, gx::mx_format::mxfp8, gx::a_storage::mx, gx::b_layout::preshuffled})
          .code() == status_code::bad_format);
  // Past a tile's 32-bit offsets: A's 16-bit bytes count.
  CHECK(gx::validate_shape(gx::problem{16, 16, 1 << 22, gx::mx_format::mxfp4, gx::a_storage::bf16, gx::b_layout::plain})
            .code() == status_code::too_large);
  CHECK(gx::validate_shape(gx::problem{16, 16, 1 << 22, gx::mx_format::mxfp4, gx::a_storage::mx, gx::b_layout::plain})
            .ok());
}
