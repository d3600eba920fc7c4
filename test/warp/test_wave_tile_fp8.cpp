// warp/wave_tile_fp8 on its own: one wave, LDS tiles filled directly through lds_tile_fp8, one
// 128-K scale block of MFMA steps and the scale application, against the exact dot products
// (emulator or device; managed memory).
#include <hip/hip_runtime.h>
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "support/device_fp8.hpp"
#include "wavekit/arch/lds.hpp"
#include "wavekit/config/gemm_fp8_blockscale_config.hpp"
#include "wavekit/core/math.hpp"
#include "wavekit/warp/wave_tile_fp8.hpp"

using namespace wavekit;

namespace {

// a (64 x 128), b (64 x 128) K-contiguous; scales per row of A, one for B; out (64 x 64).
template <class Cfg, class Fp8>
__global__ void one_scale_block(const std::uint8_t* a, const std::uint8_t* b, const float* a_scale, float b_scale,
                                float* out) {
  using layout = wavekit::tile::lds_tile_fp8<Cfg::block_k>;
  using tile = warp::wave_tile_fp8<Cfg, Fp8, layout, layout>;
  if constexpr (!warp::runs_on_current_target<typename tile::mfma>) {
    __builtin_trap();  // a GPU build's pass for the other target: never launched there
  } else {
    constexpr int bk = Cfg::block_k;
    WAVEKIT_LDS_ARRAY(arch::u32x4, lds, 2 * 64 * bk / 16 * (128 / bk) + 64 * 4 / 16);
    auto* bytes = reinterpret_cast<unsigned char*>(lds);
    const int lane = static_cast<int>(threadIdx.x);
    // Step s of the block uses A at s * 2 * 64 * bk, B right after it; scales at the end.
    for (int s = 0; s < 128 / bk; ++s)
      for (int i = lane; i < 64 * bk; i += 64) {
        bytes[s * 2 * 64 * bk + layout::offset(i / bk, i % bk)] = a[(i / bk) * 128 + s * bk + i % bk];
        bytes[s * 2 * 64 * bk + 64 * bk + layout::offset(i / bk, i % bk)] = b[(i / bk) * 128 + s * bk + i % bk];
      }
    float* scales = reinterpret_cast<float*>(bytes + 2 * 64 * 128);
    scales[lane] = a_scale[lane];
    __syncthreads();
    tile w;
    w.clear();
    static_for<128 / bk>([&](auto s_constant) {
      constexpr int s = decltype(s_constant)::value;
      const unsigned char* base = bytes + s * 2 * 64 * bk;
      w.template step<s == 0>(base, base + 64 * bk, 0, 0, lane);
    });
    w.apply_scales(tile::read_scales(scales, 0, lane), b_scale);
    for (int i = 0; i < Cfg::tiles_m; ++i)
      for (int j = 0; j < Cfg::tiles_n; ++j)
        for (int r = 0; r < tile::regs; ++r)
          out[(i * Cfg::mfma_m + tile::acc_row(lane, r)) * 64 + j * Cfg::mfma_m + tile::acc_col(lane)] =
              w.total[i][j][r];
  }
}

template <class Cfg, class fp8>
void check_wave_tile() {
  INFO(Cfg::name());
  std::uint8_t *a, *b;
  float *sa, *out;
  hipMallocManaged(&a, 64 * 128), hipMallocManaged(&b, 64 * 128), hipMallocManaged(&sa, 64 * 4),
      hipMallocManaged(&out, 64 * 64 * 4);
  std::mt19937 rng(5);
  std::normal_distribution<float> dist(0.0f, 2.0f);
  for (int i = 0; i < 64 * 128; ++i)
    a[i] = saturate_cast<fp8>(dist(rng)).bits, b[i] = saturate_cast<fp8>(dist(rng)).bits;
  for (int i = 0; i < 64; ++i) sa[i] = dist(rng);
  const float sb = -0.75f;
  hipLaunchKernelGGL((one_scale_block<Cfg, fp8>), dim3(1), dim3(64), 0, nullptr, a, b, sa, sb, out);
  REQUIRE(hipGetLastError() == hipSuccess);
  REQUIRE(hipDeviceSynchronize() == hipSuccess);
#if defined(WAVEKIT_EMULATOR)
  CHECK(emu::last_launch_counters().lds_bank_conflict_cycles == 0);
#endif
  for (int i = 0; i < 64; ++i)
    for (int j = 0; j < 64; ++j) {
      double dot = 0, abs = 0;
      for (int k = 0; k < 128; ++k) {
        const double t = double(to_float(fp8::from_bits(a[i * 128 + k]))) * to_float(fp8::from_bits(b[j * 128 + k]));
        dot += t, abs += std::fabs(t);
      }
      const double exact = dot * sa[i] * sb, scale = std::fabs(double(sa[i]) * sb);
      // MFMA accumulation (16 + 3 per 16-product group units of 2^-23) and two roundings of the scaling.
      const double bound = (16 + 3 * 8 + 3) * std::ldexp(abs * scale, -23);
      INFO("C[" << i << "][" << j << "]");
      REQUIRE(std::fabs(out[i * 64 + j] - exact) <= bound);
    }
  hipFree(a), hipFree(b), hipFree(sa), hipFree(out);
}

}  // namespace

TEST_CASE("wave_tile_fp8: one scale block of MFMAs and its scaling", "[emu][warp]") {
  using namespace config;
  test::with_device_fp8([](auto fp8_format) {
    using fp8 = decltype(fp8_format);
    check_wave_tile<gemm_fp8_blockscale_config<64, 64, 128, 1, 1, mfma_shape::m16n16k32>, fp8>();
    check_wave_tile<gemm_fp8_blockscale_config<64, 64, 64, 1, 1, mfma_shape::m16n16k32>, fp8>();
    check_wave_tile<gemm_fp8_blockscale_config<64, 64, 128, 1, 1, mfma_shape::m32n32k16>, fp8>();
    check_wave_tile<gemm_fp8_blockscale_config<64, 64, 64, 1, 1, mfma_shape::m32n32k16>, fp8>();
  });
}
