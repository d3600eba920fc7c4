// The GEMV path of MXFP8 decode (block/gemv_mx_block.hpp) against the host reference on the
// emulated gfx950, and on the device in the GPU build: every row count on shapes derived from it
// (M = 1, rows - 1, rows; N one column tile, a partial one, several; K one 32-block, one step, a
// ragged first step, many steps), fp16 out, split-K, the performance model's bytes (emulator
// counters), the e8m0 NaN scale as the scaled MFMA has it, the dispatch between it and the MFMA
// path, its statuses; and both MXFP8 decode paths over a B past 2 GB (a sparse allocation: only
// the tiles that run are touched). Bounds: gemm_mx_case::check.
#include <hip/hip_runtime.h>
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <tuple>
#include <vector>

#include "support/gemm_mx_run.hpp"
#include "wavekit/arch/lds.hpp"
#include "wavekit/block/gemm_kernel.hpp"
#include "wavekit/block/gemv_mx_block.hpp"
#include "wavekit/ops/gemm_mx.hpp"
#include "wavekit/planning/model/plan_choice.hpp"

using namespace wavekit;
namespace gx = wavekit::ops::gemm_mx;

namespace {

using test::device_is_gfx950;
using fp8_case = test::gemm_mx_case<fp8_e4m3fn, bf16>;

template <int Rows, class Out = bf16>
int run_gemv(const gx::problem& p, int splits, std::uint32_t seed) {
  test::gemm_mx_case<fp8_e4m3fn, Out> t(p, seed, splits);
#if defined(WAVEKIT_EMULATOR)
  emu::reset_counters();
#endif
  const status s = gx::launch_gemv<Rows>(p, t.args(), splits, arch::target::gfx950, nullptr);
  INFO(gx::gemv_config<Rows>::name(splits) << " on " << p.str() << ": " << s.message());
  REQUIRE(s.ok());
  REQUIRE(hipDeviceSynchronize() == hipSuccess);
#if defined(WAVEKIT_EMULATOR)
  CHECK(emu::accumulated_counters().lds_bank_conflict_cycles == 0);
  test::check_model_traffic_summed(gx::gemv_launches(p, Rows, splits), emu::accumulated_counters());
#endif
  return t.check(splits, gx::gemv_config<Rows>::name(splits).c_str());
}

template <int Rows>
void run_gemv_shapes() {
  constexpr gx::mx_format f = gx::mx_format::mxfp8;
  for (int m : {1, Rows - 1, Rows}) {
    if (m < 1 || (m == 1 && Rows == 2)) continue;
    for (int k : {32, 128, 3 * 128 + 64})
      CHECK(run_gemv<Rows>(gx::problem{m, 272, k, f, gx::a_storage::mx, gx::b_layout::plain}, 1, m + k) == 0);
  }
  CHECK(run_gemv<Rows>(gx::problem{Rows, 16, 1024, f, gx::a_storage::mx, gx::b_layout::plain}, 4, 11) == 0);
  CHECK(run_gemv<Rows, fp16>(gx::problem{Rows, 512, 5 * 128 - 32, f, gx::a_storage::mx, gx::b_layout::plain}, 3, 12) ==
        0);
}

}  // namespace

TEST_CASE("gemm_mx GEMV: each row count on shapes derived from it", "[emu][gemm]") {
  if (!device_is_gfx950()) {
    SUCCEED("MX formats are gfx950's; test_gemm_mx covers the refusal");
    return;
  }
  run_gemv_shapes<1>();
  run_gemv_shapes<2>();
  run_gemv_shapes<4>();
  run_gemv_shapes<8>();
  run_gemv_shapes<16>();
}

TEST_CASE("gemm_mx GEMV: a scale byte 0xFF makes its row's or column's results NaN", "[emu][gemm]") {
  if (!device_is_gfx950()) {
    SUCCEED("MX formats are gfx950's");
    return;
  }
  const gx::problem p{2, 32, 256, gx::mx_format::mxfp8, gx::a_storage::mx, gx::b_layout::plain};
  fp8_case t(p, 5, 1);
  const e8m0 nan_scale = e8m0::from_bits(0xFF);
  REQUIRE(hipMemcpy(t.a_scale + 1 * (p.k / 32) + 3, &nan_scale, 1, hipMemcpyHostToDevice) == hipSuccess);  // A row 1
  REQUIRE(hipMemcpy(t.b_scale + 7 * (p.k / 32) + 5, &nan_scale, 1, hipMemcpyHostToDevice) == hipSuccess);  // B row 7
  REQUIRE(gx::launch_gemv<2>(p, t.args(), 1, arch::target::gfx950, nullptr).ok());
  REQUIRE(hipDeviceSynchronize() == hipSuccess);
  std::vector<bf16> c(std::size_t(p.m) * p.n);
  REQUIRE(hipMemcpy(c.data(), t.c, c.size() * sizeof(bf16), hipMemcpyDeviceToHost) == hipSuccess);
  for (int i = 0; i < p.m; ++i)
    for (int j = 0; j < p.n; ++j) {
      INFO("C[" << i << "][" << j << "]");
      CHECK(std::isnan(to_float(c[std::size_t(i) * p.n + j])) == (i == 1 || j == 7));
    }
}

TEST_CASE("gemm_mx: MXFP8 decode dispatch between the GEMV and the MFMAs", "[emu][gemm]") {
  constexpr arch::target mx = arch::target::gfx950;  // the model's target for MX
  // The plan: the GEMV (MXFP8, up to 16 rows, the fewest rows that hold M) and the MFMA configs
  // weighed by the performance model (planning/model/plan_choice.hpp); never the GEMV for MXFP4 or past 16
  // rows. A GEMV the model rates faster beyond its error than the plan taken would have won.
  for (int m = 1; m <= 64; ++m) {
    const gx::problem p{m, 6144, 6144, gx::mx_format::mxfp8, gx::a_storage::mx, gx::b_layout::plain};
    const gx::plan pl = gx::choose_plan(p, ~std::size_t{0});
    INFO("M " << m << ": " << gx::plan_name(pl));
    if (pl.gemv_rows) CHECK((m <= gx::gemv_rows_max && pl.gemv_rows >= m));
    if (m > gx::gemv_rows_max) continue;
    int rows = 1;
    while (rows < m) rows *= 2;
    for (int splits = 1; splits <= 16; splits *= 2) {
      const double gemv = gx::plan_queries::model_seconds(p, {gx::config_id::decode, splits, rows}, mx);
      if (gemv < gx::plan_queries::model_seconds(p, pl, mx))
        CHECK(planning::within_model_error(gx::plan_queries::model_seconds(p, pl, mx), gemv));
    }
  }
  CHECK(gx::choose_plan(gx::problem{1, 6144, 6144, gx::mx_format::mxfp4, gx::a_storage::mx, gx::b_layout::plain},
                        ~std::size_t{0})
            .gemv_rows == 0);
  // The plans docs/mx-gemm.md names for the reference decode shapes (the calibrated model's): a
  // change of the model that changes them changes that paragraph too.
  for (const auto& [m, n, k, name] : {std::tuple{1, 1536, 6144, "gemm_mx<16x128x128B, w1x4, mfma16, sk8>"},
                                      std::tuple{2, 1536, 6144, "gemm_mx<16x128x128B, w1x4, mfma16, sk8>"},
                                      std::tuple{1, 6144, 2304, "gemm_mx<32x64x128B, w1x2, mfma16, sk4>"},
                                      std::tuple{1, 7168, 2048, "gemm_mx<16x128x128B, w1x4, mfma16, sk4>"}}) {
    const gx::problem p{m, n, k, gx::mx_format::mxfp8, gx::a_storage::mx, gx::b_layout::plain};
    CHECK(gx::select_plan(p, ~std::size_t{0}, arch::target::gfx950, gx::tuning_dtypes<bf16>(p)).value().name == name);
  }
  if (!device_is_gfx950()) return;
  for (int m : {1, 2, 3, 16}) {
    const gx::problem p{m, 1024, 2048, gx::mx_format::mxfp8, gx::a_storage::mx, gx::b_layout::plain};
    fp8_case t(p, 40 + m, 16);
    gx::plan_info ran;
    REQUIRE(gemm_mx(p, t.args(), nullptr, &ran).ok());
    REQUIRE(hipDeviceSynchronize() == hipSuccess);
    CHECK(ran.name == gemm_mx_select_plan<decltype(t.args())>(p, t.workspace_bytes).value().name);
    CHECK(t.check(ran.plan.splits, ran.name.c_str()) == 0);
  }
}

TEST_CASE("gemm_mx GEMV: statuses", "[emu][gemm]") {
  const gx::problem p{5, 64, 256, gx::mx_format::mxfp8, gx::a_storage::mx, gx::b_layout::plain};
  fp8_case t(p, 1);
  CHECK(gx::launch_gemv<4>(p, t.args(), 1, arch::target::gfx950, nullptr).message() ==
        "gemm_mx 5x64x256 mxfp8: gemm_mx_gemv<4x256x128> holds at most 4 rows of A");
  CHECK(gx::launch_gemv<8>(p, t.args(), 1, arch::target::gfx942, nullptr).message() ==
        "gemm_mx 5x64x256 mxfp8: MX formats run on gfx950's scaled MFMAs; gfx942 has none");
  auto a = t.args();
  a.b_scale = nullptr;
  CHECK(gx::launch_gemv<8>(p, a, 1, arch::target::gfx950, nullptr).message() ==
        "gemm_mx 5x64x256 mxfp8: argument b_scale is null");
  CHECK(gx::launch_gemv<8>(p, t.args(), 99, arch::target::gfx950, nullptr).code() == status_code::bad_config);
}

// ---- Past 2 GB --------------------------------------------------------------------------------
//
// B of N = 2^21 + 512 rows of 1024 bytes (2 GB + 512 KB) in a sparse allocation; a case's 1024
// random rows are written at rows 2^21 - 512 .. 2^21 + 511, across the 2^31-byte mark, and the
// kernels' own blocks run over just those rows: the block bodies as the op composes them, with
// the tile index moved to the tail (a kernel of the full grid would read all 2 GB).

constexpr int big_k = 1024, big_n = (1 << 21) + 512, tail_rows = 1024, tail_first = (1 << 21) - 512;

// The GEMV's blocks from column tile `First` on.
template <int First>
__global__ __launch_bounds__(256) void gemv_tail_kernel(gx::params<fp8_e4m3fn, bf16> p) {
  using body = block::gemv_mx_block<4, bf16>;
  WAVEKIT_LDS_ARRAY(arch::u32x4, lds, body::lds_bytes / 16);
  block::gemm_tile t = body::scheduler::at((p.k + p.skip) / body::step_k, p.groups_per_split);
  t.n0 += First * body::block_n;
  body::run(p, t, reinterpret_cast<unsigned char*>(lds));
}

// The MFMA path's blocks (gemm_block over the decode config's parts) from column tile `First` on.
template <int BlockM, int BlockN, int First>
struct tail_scheduler {
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE static block::gemm_tile at(int groups, int per_split,
                                                                const block::tile_context& context = {}) {
    block::gemm_tile t = block::tile_scheduler_2d<BlockM, BlockN>::at(groups, per_split, context);
    t.n0 += First * BlockN;
    return t;
  }
};
template <int First>
struct tail_parts : gx::parts<gx::config_decode, fp8_e4m3fn, bf16> {
  using base = gx::parts<gx::config_decode, fp8_e4m3fn, bf16>;
  using body = block::gemm_block<base::shape, layout::k_contiguous,
                                 tail_scheduler<base::shape::block_m, base::shape::block_n, First>, base::mainloop,
                                 block::epilogue_store<bf16>>;
};
template <int First>
__global__ __launch_bounds__(gx::config_decode::threads) void mfma_tail_kernel(gx::params<fp8_e4m3fn, bf16> p) {
  // The kernel body every GEMM shares (its LDS: the direct fill's stages on gfx950); this test
  // runs nothing on gfx942.
  block::run_gemm_kernel<tail_parts<First>>(p);
}

TEST_CASE("gemm_mx: MXFP8 decode over a B past 2 GB (sparse), GEMV and MFMA blocks", "[emu][gemm]") {
  if (!device_is_gfx950()) {
    SUCCEED("MX formats are gfx950's");
    return;
  }
  const gx::problem big{4, big_n, big_k, gx::mx_format::mxfp8, gx::a_storage::mx, gx::b_layout::plain};
  REQUIRE(gx::validate_shape(big).ok());  // 2 GB of B is legal
  fp8_case t(gx::problem{4, tail_rows, big_k, gx::mx_format::mxfp8, gx::a_storage::mx, gx::b_layout::plain}, 77, 1);
  fp8_e4m3fn* b = nullptr;
  e8m0* b_scale = nullptr;
  bf16* c = nullptr;
  const std::size_t b_bytes = std::size_t(big_n) * big_k;
  REQUIRE(b_bytes > (std::size_t{1} << 31));
  REQUIRE(hipMalloc(&b, b_bytes) == hipSuccess);
  REQUIRE(hipMalloc(&b_scale, b_bytes / 32) == hipSuccess);
  REQUIRE(hipMalloc(&c, std::size_t(4) * big_n * sizeof(bf16)) == hipSuccess);
  REQUIRE(hipMemcpy(b + std::size_t(tail_first) * big_k, t.b, std::size_t(tail_rows) * big_k,
                    hipMemcpyDeviceToDevice) == hipSuccess);
  REQUIRE(hipMemcpy(b_scale + std::size_t(tail_first) * (big_k / 32), t.b_scale, std::size_t(tail_rows) * big_k / 32,
                    hipMemcpyDeviceToDevice) == hipSuccess);
  const gx::params<fp8_e4m3fn, bf16> kp{t.a, b, {t.a_scale, b_scale}, {c, nullptr}, 4, big_n, big_k, big_k / 128, 0};
  auto check_tail = [&](const char* label) {
    for (int i = 0; i < 4; ++i)
      REQUIRE(hipMemcpy(t.c + std::size_t(i) * tail_rows, c + std::size_t(i) * big_n + tail_first,
                        tail_rows * sizeof(bf16), hipMemcpyDeviceToDevice) == hipSuccess);
    CHECK(t.check(1, label) == 0);
  };
  constexpr int gemv_first = tail_first / 256;
  hipLaunchKernelGGL((gemv_tail_kernel<gemv_first>), dim3(tail_rows / 256, 1, 1), dim3(256), 0, nullptr, kp);
  REQUIRE(hipDeviceSynchronize() == hipSuccess);
  check_tail("GEMV blocks past 2 GB");
  for (int i = 0; i < 4; ++i)  // NaN again where the MFMA blocks must write
    REQUIRE(hipMemset(c + std::size_t(i) * big_n + tail_first, 0xff, tail_rows * sizeof(bf16)) == hipSuccess);
  constexpr int mfma_first = tail_first / gx::config_decode::block_n;
  hipLaunchKernelGGL((mfma_tail_kernel<mfma_first>), dim3(tail_rows / gx::config_decode::block_n, 1, 1),
                     dim3(gx::config_decode::threads), 0, nullptr, kp);
  REQUIRE(hipDeviceSynchronize() == hipSuccess);
  check_tail("MFMA blocks past 2 GB");
  hipFree(b), hipFree(b_scale), hipFree(c);
}
