// The emulated v_smfmac_f32_16x16x64_fp8_fp8 (emu/mfma_sparse.hpp) against the instruction's
// documented semantics (docs/hardware.md 1.5), written out here independently: a hand-computed
// single product, random 2:4-sparse problems in small integers (every sum exact, so the compare is
// equality) with every legal index pair and both index halves, and, for the undocumented
// accumulation order, the model the emulator states: bit for bit the dense 16x16x32 instruction
// fed the compressed A and the B values the indices select.
#include <hip/hip_runtime.h>
#include <catch2/catch.hpp>

#include <array>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "wavekit/core/float_codec.hpp"
#include "wavekit/core/numeric_types.hpp"
#include "wavekit/core/vector.hpp"

using namespace wavekit;

namespace {

struct sparse_lane {
  int32x2 a;
  int32x4 b;
  floatx4 c, d;
  int index;
};

template <int Cbsz, int Abid>
__global__ void run_smfmac(sparse_lane* lanes) {
  sparse_lane& l = lanes[threadIdx.x];
  l.d = __builtin_amdgcn_smfmac_f32_16x16x64_fp8_fp8(l.a, l.b, l.c, l.index, Cbsz, Abid);
}

struct dense_lane {
  long a, b;
  floatx4 c, d;
};
__global__ void run_dense(dense_lane* lanes) {
  dense_lane& l = lanes[threadIdx.x];
  l.d = __builtin_amdgcn_mfma_f32_16x16x32_fp8_fp8(l.a, l.b, l.c, 0, 0, 0);
}

std::uint8_t fp8_bits(float x) { return saturate_cast<fp8_e4m3fnuz>(x).bits; }

// The six legal (index0 < index1) position pairs of a group of four.
constexpr std::array<std::array<int, 2>, 6> pairs{{{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}}};

// A 16 x 64 problem in the instruction's terms: per A lane (row l % 16, K slice l / 16) and group q
// the pair of positions, dense A (zeros elsewhere), B (64 x 16), C.
struct problem {
  int pair[64][4];
  float a[16][64] = {}, b[64][16] = {}, c[16][16] = {};
};

// Operands by the ISA's rule: lane l, compressed byte j at K = 16 (l / 16) + 4 (j / 2) + idx_j;
// index bits [2j, 2j + 2) of the half `high` picks.
std::vector<sparse_lane> lanes_of(const problem& p, bool high) {
  std::vector<sparse_lane> lanes(64);
  for (int l = 0; l < 64; ++l) {
    unsigned char a[8], b[16];
    std::uint32_t index = 0;
    for (int j = 0; j < 8; ++j) {
      const int pos = pairs[p.pair[l][j / 2]][j % 2];
      a[j] = fp8_bits(p.a[l % 16][16 * (l / 16) + 4 * (j / 2) + pos]);
      index |= static_cast<std::uint32_t>(pos) << (2 * j);
    }
    for (int e = 0; e < 16; ++e) b[e] = fp8_bits(p.b[16 * (l / 16) + e][l % 16]);
    std::memcpy(&lanes[l].a, a, 8), std::memcpy(&lanes[l].b, b, 16);
    // The other half holds an illegal pattern (0x0000: both positions 0), which must go unread.
    lanes[l].index = static_cast<int>(high ? index << 16 : index);
    for (int r = 0; r < 4; ++r) lanes[l].c[r] = p.c[4 * (l / 16) + r][l % 16];
  }
  return lanes;
}

template <int Cbsz, int Abid>
std::vector<sparse_lane> run(std::vector<sparse_lane> in) {
  sparse_lane* dev = nullptr;
  REQUIRE(hipMalloc(&dev, 64 * sizeof(sparse_lane)) == hipSuccess);
  REQUIRE(hipMemcpy(dev, in.data(), 64 * sizeof(sparse_lane), hipMemcpyHostToDevice) == hipSuccess);
  hipLaunchKernelGGL((run_smfmac<Cbsz, Abid>), dim3(1), dim3(64), 0, nullptr, dev);
  REQUIRE(hipDeviceSynchronize() == hipSuccess);
  REQUIRE(hipMemcpy(in.data(), dev, 64 * sizeof(sparse_lane), hipMemcpyDeviceToHost) == hipSuccess);
  REQUIRE(hipFree(dev) == hipSuccess);
  return in;
}

// D[4 (l / 16) + r][l % 16] of lane l, register r, against C + A x B in doubles.
void check_exact(const problem& p, const std::vector<sparse_lane>& out) {
  for (int l = 0; l < 64; ++l)
    for (int r = 0; r < 4; ++r) {
      const int i = 4 * (l / 16) + r, j = l % 16;
      double want = p.c[i][j];
      for (int k = 0; k < 64; ++k) want += double(p.a[i][k]) * p.b[k][j];
      INFO("D[" << i << "][" << j << "]");
      CHECK(double(out[l].d[r]) == want);
    }
}

problem random_problem(std::mt19937& rng, bool integers) {
  std::uniform_int_distribution<int> small(-4, 4), pick(0, 5);
  std::uniform_real_distribution<float> real(-3.f, 3.f);
  auto value = [&] { return integers ? float(small(rng)) : to_float(saturate_cast<fp8_e4m3fnuz>(real(rng))); };
  problem p;
  for (int l = 0; l < 64; ++l)
    for (int q = 0; q < 4; ++q) {
      p.pair[l][q] = pick(rng);
      for (int pos : pairs[p.pair[l][q]]) p.a[l % 16][16 * (l / 16) + 4 * q + pos] = value();
    }
  for (auto& row : p.b)
    for (float& v : row) v = value();
  for (auto& row : p.c)
    for (float& v : row) v = integers ? float(8 * small(rng)) : real(rng);
  return p;
}

}  // namespace

TEST_CASE("smfmac 16x16x64 fp8: a hand-computed product lands where the ISA says", "[emu][mfma][smfmac]") {
  // A[3][K 39] = 2: lane 32 + 3 (K slice 2), group 1, positions (1, 3): compressed byte 3.
  // B[K 39][5] = 3: lane 32 + 5, byte 7. D[3][5] = 6; every other D is its C (here 0 but D[3][5]).
  problem p;
  for (int l = 0; l < 64; ++l)
    for (int q = 0; q < 4; ++q) p.pair[l][q] = 0;
  p.pair[35][1] = 4;  // positions (1, 3)
  p.a[3][39] = 2.f;
  p.b[39][5] = 3.f;
  const std::vector<sparse_lane> out = run<0, 0>(lanes_of(p, false));
  {
    unsigned char a[8];
    std::memcpy(a, &out[35].a, 8);
    CHECK(a[3] == fp8_bits(2.f));
    CHECK((out[35].index & 0xF0) == (1 | 3 << 2) << 4);
  }
  check_exact(p, out);
  // Register 3 of lane 5 (row 4 (5 / 16) + 3 = 3, column 5).
  CHECK(out[5].d[3] == 6.f);
}

TEST_CASE("smfmac 16x16x64 fp8: random 2:4 problems, every index pair, both index halves", "[emu][mfma][smfmac]") {
  std::mt19937 rng(64);
  for (int trial = 0; trial < 4; ++trial) {
    const problem p = random_problem(rng, true);
    check_exact(p, run<0, 0>(lanes_of(p, false)));  // low half
    check_exact(p, run<0, 1>(lanes_of(p, true)));   // ABID 1 with CBSZ 0: high half
    check_exact(p, run<1, 1>(lanes_of(p, false)));  // CBSZ != 0: the low half whatever ABID says
  }
}

TEST_CASE("smfmac 16x16x64 fp8 accumulates as the dense 16x16x32 datapath with B selected (the emulator's model)",
          "[emu][mfma][smfmac]") {
  // With one index per K slice for all rows, the selected B is the same for every row: the dense
  // instruction gets A' (row i, K' = 8 g + j: compressed byte j of slice g) and B' (K' -> B at
  // 16 g + 4 (j / 2) + idx_j). Values with rounding in every sum: equal bit for bit.
  std::mt19937 rng(7);
  for (int trial = 0; trial < 4; ++trial) {
    problem p = random_problem(rng, false);
    for (int g = 0; g < 4; ++g)
      for (int q = 0; q < 4; ++q) {
        const int shared = p.pair[16 * g][q];
        for (int i = 0; i < 16; ++i) {
          for (int pos = 0; pos < 4; ++pos) p.a[i][16 * g + 4 * q + pos] = 0.f;
          p.pair[16 * g + i][q] = shared;
          for (int pos : pairs[shared])
            p.a[i][16 * g + 4 * q + pos] = to_float(saturate_cast<fp8_e4m3fnuz>(float(i - 7) * 0.37f + float(pos)));
        }
      }
    const std::vector<sparse_lane> sparse = run<0, 0>(lanes_of(p, false));
    std::vector<dense_lane> dense(64);
    for (int l = 0; l < 64; ++l) {
      unsigned char b[8];
      for (int j = 0; j < 8; ++j) {
        // Dense lane l holds column l % 16, K' = 8 (l / 16) + j: slice g = l / 16, byte j.
        const int g = l / 16, pos = pairs[p.pair[16 * g][j / 2]][j % 2];
        b[j] = fp8_bits(p.b[16 * g + 4 * (j / 2) + pos][l % 16]);
      }
      std::memcpy(&dense[l].a, &sparse[l].a, 8);  // row l % 16, K' = 8 (l / 16) + j
      std::memcpy(&dense[l].b, b, 8);
      dense[l].c = sparse[l].c;
    }
    dense_lane* dev = nullptr;
    REQUIRE(hipMalloc(&dev, 64 * sizeof(dense_lane)) == hipSuccess);
    REQUIRE(hipMemcpy(dev, dense.data(), 64 * sizeof(dense_lane), hipMemcpyHostToDevice) == hipSuccess);
    hipLaunchKernelGGL(run_dense, dim3(1), dim3(64), 0, nullptr, dev);
    REQUIRE(hipMemcpy(dense.data(), dev, 64 * sizeof(dense_lane), hipMemcpyDeviceToHost) == hipSuccess);
    REQUIRE(hipFree(dev) == hipSuccess);
    for (int l = 0; l < 64; ++l)
      for (int r = 0; r < 4; ++r)
        CHECK(std::bit_cast<std::uint32_t>(sparse[l].d[r]) == std::bit_cast<std::uint32_t>(dense[l].d[r]));
  }
}
