// arch/mfma_row_pairs.hpp: the sparse MFMA as a dense 8 x 16 x 64 atom. Lanes load A and B by the
// atom's own rules (a_row / operand_row / operand_k), run it, fold, and C (acc_row / acc_col) must
// be the exact dense product: multiples of 1/2, so every product and sum is exact in fp32. Only
// gfx942 runs it; elsewhere the test says so.
#include <hip/hip_runtime.h>
#include <catch2/catch.hpp>

#include <cstring>
#include <random>
#include <vector>

#include "wavekit/arch/device.hpp"
#include "wavekit/arch/mfma_row_pairs.hpp"
#include "wavekit/core/float_codec.hpp"

using namespace wavekit;
using atom = arch::smfmac_row_pairs_atom<fp8_e4m3fnuz>;

namespace {

// a: [8][64] dense rows, b: [16][64] (C's columns, K-contiguous), both fp8 bytes; c: [8][16].
// A template, so that the pass of a target without the atom discards its body.
template <class Atom = atom>
__global__ void run_row_pairs(const unsigned char* a, const unsigned char* b, float* c) {
  if constexpr (!arch::runs_on_current_target<Atom>) {
    __builtin_trap();
  } else {
    const int lane = static_cast<int>(threadIdx.x);
    atom::operand av, bv;
    std::memcpy(&av, a + atom::a_row(lane) * atom::k + atom::operand_k(lane, 0), 16);
    std::memcpy(&bv, b + atom::operand_row(lane) * atom::k + atom::operand_k(lane, 0), 16);
    const atom::accumulator acc = atom::fold(atom::run(av, bv, atom::accumulator{}, lane));
    for (int r = 0; r < atom::folded_regs; ++r) c[atom::acc_row(lane, r) * atom::n + atom::acc_col(lane)] = acc[r];
  }
}

}  // namespace

TEST_CASE("smfmac_row_pairs_atom: 8 dense rows x 16 columns x 64 K, exactly", "[arch][mfma][smfmac]") {
  if (arch::current_device_arch().kind != arch::target::gfx942) {
    SUCCEED("the row-pair atom is gfx942's (its fp8 is e4m3fnuz); this device is not");
    return;
  }
  // Every real row and every K of it is read by exactly two lanes (a pair), each C cell written once.
  std::vector<int> reads(atom::a_rows * atom::k, 0), cells(atom::a_rows * atom::n, 0);
  for (int lane = 0; lane < 64; ++lane) {
    for (int e = 0; e < atom::k_per_lane; ++e) ++reads[atom::a_row(lane) * atom::k + atom::operand_k(lane, e)];
    for (int r = 0; r < atom::folded_regs; ++r) ++cells[atom::acc_row(lane, r) * atom::n + atom::acc_col(lane)];
  }
  for (int x : reads) REQUIRE(x == 2);
  for (int x : cells) REQUIRE(x == 1);

  std::mt19937 rng(8);
  std::uniform_int_distribution<int> half_units(-6, 6);
  for (int trial = 0; trial < 3; ++trial) {
    std::vector<float> a(atom::a_rows * atom::k), b(atom::n * atom::k);
    for (float& x : a) x = 0.5f * static_cast<float>(half_units(rng));
    for (float& x : b) x = 0.5f * static_cast<float>(half_units(rng));
    if (trial == 2) a.assign(a.size(), 0.f), a[5 * atom::k + 63] = 1.5f;  // one product: row 5, the last K
    unsigned char *da, *db;
    float* dc;
    REQUIRE(hipMallocManaged(&da, a.size()) == hipSuccess);
    REQUIRE(hipMallocManaged(&db, b.size()) == hipSuccess);
    REQUIRE(hipMallocManaged(&dc, sizeof(float) * atom::a_rows * atom::n) == hipSuccess);
    for (std::size_t i = 0; i < a.size(); ++i) da[i] = saturate_cast<fp8_e4m3fnuz>(a[i]).bits;
    for (std::size_t i = 0; i < b.size(); ++i) db[i] = saturate_cast<fp8_e4m3fnuz>(b[i]).bits;
    hipLaunchKernelGGL(run_row_pairs<>, dim3(1), dim3(64), 0, nullptr, da, db, dc);
    REQUIRE(hipDeviceSynchronize() == hipSuccess);
    int wrong = 0;
    for (int i = 0; i < atom::a_rows; ++i)
      for (int j = 0; j < atom::n; ++j) {
        float want = 0.f;
        for (int kk = 0; kk < atom::k; ++kk) want += a[i * atom::k + kk] * b[j * atom::k + kk];
        if (dc[i * atom::n + j] != want && ++wrong <= 3)
          FAIL_CHECK("C[" << i << "][" << j << "] = " << dc[i * atom::n + j] << ", want " << want);
      }
    CHECK(wrong == 0);
    hipFree(da), hipFree(db), hipFree(dc);
  }
}
