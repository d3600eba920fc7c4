// gfx950 matrix-core instructions on the emulator. Operands are packed by the per-instruction
// K formulas of docs/hardware.md 1.2 (written out here, not taken from the emulator),
// scales placed per section 1.4; values are small integers and power-of-two scales so the exact
// result is an fp32 value and must come back exactly.
#include <hip/hip_runtime.h>
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "wavekit/core/numeric_types.hpp"

using namespace wavekit;

namespace {

// Logical K of element e in lane l (docs/hardware.md 1.2 table), dim = 32 or 16.
int spec_k(int dim, int bits, int lane, int e) {
  const int g = lane / dim;
  if (bits == 8) return dim == 32 ? 16 * g + 32 * (e / 16) + e % 16 : 16 * g + 64 * (e / 16) + e % 16;
  return 32 * g + e;  // fp6 and fp4: contiguous
}

std::uint32_t encode(int format, int v) {
  const float x = static_cast<float>(v);
  switch (format) {
    case 0: return saturate_cast<fp8_e4m3fn>(x).bits;
    case 1: return saturate_cast<bf8_e5m2>(x).bits;
    case 2: return saturate_cast<fp6_e2m3>(x).bits;
    case 3: return saturate_cast<bf6_e3m2>(x).bits;
    default: return saturate_cast<fp4_e2m1>(x).bits;
  }
}
int bits_of(int format) { return format <= 1 ? 8 : format <= 3 ? 6 : 4; }

void put(int32x8& reg, int bits, int e, std::uint32_t code) {
  unsigned char bytes[36] = {};
  std::memcpy(bytes, &reg, 32);
  std::uint32_t window;
  std::memcpy(&window, bytes + (e * bits) / 8, 4);
  window |= code << ((e * bits) % 8);
  std::memcpy(bytes + (e * bits) / 8, &window, 4);
  std::memcpy(&reg, bytes, 32);
}

template <class Accumulator>
struct scaled_lane {
  int32x8 a, b;
  Accumulator c, d;
  int scale_a, scale_b;
};

__global__ void run16(scaled_lane<floatx4>* l, int fa, int fb, int opsel_a, int opsel_b) {
  auto& x = l[threadIdx.x];
  // The format and opsel arguments are immediates on hardware; a switch keeps them constant.
  x.d = __builtin_amdgcn_mfma_scale_f32_16x16x128_f8f6f4(x.a, x.b, x.c, fa, fb, opsel_a, x.scale_a, opsel_b, x.scale_b);
}
__global__ void run32(scaled_lane<floatx16>* l, int fa, int fb, int opsel_a, int opsel_b) {
  auto& x = l[threadIdx.x];
  x.d = __builtin_amdgcn_mfma_scale_f32_32x32x64_f8f6f4(x.a, x.b, x.c, fa, fb, opsel_a, x.scale_a, opsel_b, x.scale_b);
}

template <class Accumulator>
void check_scaled(int dim, int fa, int fb, int opsel_a, int opsel_b, bool nan_scale, std::uint32_t seed) {
  INFO("dim " << dim << " formats " << fa << "/" << fb << " opsel " << opsel_a << "/" << opsel_b);
  const int k = dim == 16 ? 128 : 64, blocks = k / 32;
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> value(-3, 3), scale(120, 134);
  std::vector<int> a(dim * k), b(k * dim), c(dim * dim), sa(dim * blocks), sb(dim * blocks);
  for (int& v : a) v = value(rng);
  for (int& v : b) v = value(rng);
  for (int& v : c) v = value(rng);
  for (int& v : sa) v = scale(rng);
  for (int& v : sb) v = scale(rng);
  if (nan_scale) sa[3] = 0xFF;
  scaled_lane<Accumulator>* lanes;
  REQUIRE(hipMalloc(&lanes, 64 * sizeof(*lanes)) == hipSuccess);
  std::memset(lanes, 0, 64 * sizeof(*lanes));
  for (int l = 0; l < 64; ++l) {
    for (int e = 0; e < 32; ++e) {
      put(lanes[l].a, bits_of(fa), e, encode(fa, a[(l % dim) * k + spec_k(dim, bits_of(fa), l, e)]));
      put(lanes[l].b, bits_of(fb), e, encode(fb, b[spec_k(dim, bits_of(fb), l, e) * dim + l % dim]));
    }
    // Scale of row / column l % dim for block l / dim in byte opsel; other bytes hold noise.
    const int blk = l / dim;
    lanes[l].scale_a = 0x5A5A5A5A, lanes[l].scale_b = 0x3C3C3C3C;
    if (blk < blocks) {
      lanes[l].scale_a =
          (lanes[l].scale_a & ~(0xFF << (8 * opsel_a))) | (sa[(l % dim) * blocks + blk] << (8 * opsel_a));
      lanes[l].scale_b =
          (lanes[l].scale_b & ~(0xFF << (8 * opsel_b))) | (sb[(l % dim) * blocks + blk] << (8 * opsel_b));
    }
    for (int r = 0; r < dim * dim / 64; ++r) {
      const int i = dim == 32 ? 8 * (r / 4) + 4 * (l / 32) + r % 4 : 4 * (l / 16) + r, j = l % dim;
      lanes[l].c[r] = static_cast<float>(c[i * dim + j]);
    }
  }
  if (dim == 16)
    hipLaunchKernelGGL(run16, dim3(1), dim3(64), 0, nullptr, reinterpret_cast<scaled_lane<floatx4>*>(lanes), fa, fb,
                       opsel_a, opsel_b);
  else
    hipLaunchKernelGGL(run32, dim3(1), dim3(64), 0, nullptr, reinterpret_cast<scaled_lane<floatx16>*>(lanes), fa, fb,
                       opsel_a, opsel_b);
  REQUIRE(hipGetLastError() == hipSuccess);
  for (int l = 0; l < 64; ++l)
    for (int r = 0; r < dim * dim / 64; ++r) {
      const int i = dim == 32 ? 8 * (r / 4) + 4 * (l / 32) + r % 4 : 4 * (l / 16) + r, j = l % dim;
      double exact = c[i * dim + j];
      bool nan = false;
      for (int blk = 0; blk < blocks; ++blk) {
        double block_sum = 0;
        for (int kk = 32 * blk; kk < 32 * blk + 32; ++kk) block_sum += double(a[i * k + kk]) * b[kk * dim + j];
        const int ea = sa[i * blocks + blk], eb = sb[j * blocks + blk];
        nan |= ea == 0xFF;
        exact += std::ldexp(block_sum, ea + eb - 254);
      }
      INFO("D[" << i << "][" << j << "]");
      if (nan)
        CHECK(std::isnan(lanes[l].d[r]));
      else
        CHECK(double(lanes[l].d[r]) == double(static_cast<float>(exact)));
    }
  hipFree(lanes);
}

}  // namespace

TEST_CASE("scaled MFMA: every format pair, layouts and per-lane scales of the specification", "[emu][mfma][gfx950]") {
  for (int fa = 0; fa <= 4; ++fa)
    for (int fb = 0; fb <= 4; ++fb) {
      check_scaled<floatx4>(16, fa, fb, 0, 0, false, 100 + fa * 5 + fb);
      check_scaled<floatx16>(32, fa, fb, 0, 0, false, 200 + fa * 5 + fb);
    }
}

TEST_CASE("scaled MFMA: opsel picks the scale byte; a 0xFF scale gives NaN", "[emu][mfma][gfx950]") {
  for (int opsel = 0; opsel < 4; ++opsel) {
    check_scaled<floatx4>(16, 0, 4, opsel, 3 - opsel, false, 7 + opsel);
    check_scaled<floatx16>(32, 4, 2, 3 - opsel, opsel, false, 17 + opsel);
  }
  check_scaled<floatx4>(16, 0, 0, 1, 2, true, 33);
  check_scaled<floatx16>(32, 1, 4, 0, 0, true, 34);
}

TEST_CASE("scaled MFMA rejects format codes outside 0..4", "[emu][mfma][gfx950]") {
  scaled_lane<floatx4>* lanes;
  REQUIRE(hipMalloc(&lanes, 64 * sizeof(*lanes)) == hipSuccess);
  hipLaunchKernelGGL(run16, dim3(1), dim3(64), 0, nullptr, lanes, 5, 0, 0, 0);
  CHECK(hipGetLastError() == hipErrorLaunchFailure);
  CHECK_THAT(emu::last_error_message(), Catch::Contains("format codes must be 0..4"));
  hipFree(lanes);
}

namespace {
using half8 = wavekit::f16x8;
__global__ void run_f16_16x16x32(const half8* a, const half8* b, floatx4* d) {
  d[threadIdx.x] = __builtin_amdgcn_mfma_f32_16x16x32_f16(a[threadIdx.x], b[threadIdx.x], floatx4{}, 0, 0, 0);
}
}  // namespace

TEST_CASE("gfx950 f16 16x16x32: lane l holds K = 8 (l / 16) + e", "[emu][mfma][gfx950]") {
  half8 *a, *b;
  floatx4* d;
  hipMalloc(&a, 64 * sizeof(half8)), hipMalloc(&b, 64 * sizeof(half8)), hipMalloc(&d, 64 * sizeof(floatx4));
  std::vector<int> av(16 * 32), bv(32 * 16);
  for (int i = 0; i < 16 * 32; ++i) av[i] = (i * 7) % 5 - 2, bv[i] = (i * 3) % 7 - 3;
  for (int l = 0; l < 64; ++l)
    for (int e = 0; e < 8; ++e) {
      a[l][e] = static_cast<_Float16>(av[(l % 16) * 32 + 8 * (l / 16) + e]);
      b[l][e] = static_cast<_Float16>(bv[(8 * (l / 16) + e) * 16 + l % 16]);
    }
  hipLaunchKernelGGL(run_f16_16x16x32, dim3(1), dim3(64), 0, nullptr, a, b, d);
  REQUIRE(hipGetLastError() == hipSuccess);
  for (int l = 0; l < 64; ++l)
    for (int r = 0; r < 4; ++r) {
      const int i = 4 * (l / 16) + r, j = l % 16;
      int exact = 0;
      for (int kk = 0; kk < 32; ++kk) exact += av[i * 32 + kk] * bv[kk * 16 + j];
      CHECK(d[l][r] == float(exact));
    }
  hipFree(a), hipFree(b), hipFree(d);
}
