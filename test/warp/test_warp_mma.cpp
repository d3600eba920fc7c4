// warp/warp_mma.hpp on its own: one wave, a 64 x 64 C tile, A and B tiles written straight into
// their LDS layout, K steps of 64 or 128 bytes with fp8, bf16 and f16 atoms of the device's target;
// and A taken from registers (filled by the contract warp_mma::a_fragment states). Values are
// small multiples of 1/2, so every sum is exact in fp32 and results must equal the exact product.
#include <hip/hip_runtime.h>
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <random>
#include <tuple>
#include <vector>

#include "wavekit/arch/device.hpp"
#include "wavekit/arch/lds.hpp"
#include "wavekit/arch/mfma_atoms.hpp"
#include "wavekit/core/float_codec.hpp"
#include "wavekit/core/math.hpp"
#include "wavekit/tile/lds_swizzled_rows.hpp"
#include "wavekit/warp/warp_mma.hpp"

using namespace wavekit;

namespace {

constexpr int tile = 64, k_bytes_total = 256;

// a, b: [64][256 bytes] K-contiguous; out: 64 x 64 fp32.
template <class Atom, int KBytes, bool ARegisters>
__global__ void run_warp_mma(const std::uint8_t* a, const std::uint8_t* b, float* out) {
  using layout = tile::lds_swizzled_rows<KBytes>;
  using a_source = std::conditional_t<ARegisters, warp::from_registers, warp::from_lds<layout>>;
  using mma = warp::warp_mma<Atom, tile / Atom::m, tile / Atom::m, KBytes, a_source, warp::from_lds<layout>>;
  if constexpr (!arch::runs_on_current_target<Atom>) {
    __builtin_trap();  // a GPU build's pass for a target without this atom: never launched there
  } else {
    constexpr int steps = k_bytes_total / KBytes;
    WAVEKIT_LDS_ARRAY(arch::u32x4, lds, 2 * steps * tile * KBytes / 16);
    auto* bytes = reinterpret_cast<unsigned char*>(lds);
    const int lane = static_cast<int>(threadIdx.x);
    // Step s: A at s * 2 * 64 * KBytes, B right after it.
    for (int s = 0; s < steps; ++s)
      for (int i = lane; i < tile * KBytes; i += 64) {
        const int row = i / KBytes, kb = i % KBytes;
        bytes[s * 2 * tile * KBytes + layout::offset(row, kb)] = a[row * k_bytes_total + s * KBytes + kb];
        bytes[s * 2 * tile * KBytes + tile * KBytes + layout::offset(row, kb)] =
            b[row * k_bytes_total + s * KBytes + kb];
      }
    __syncthreads();
    mma w;
    w.clear();
    static_for<steps>([&](auto s_constant) {
      constexpr int s = decltype(s_constant)::value;
      const unsigned char* base = bytes + s * 2 * tile * KBytes;
      if constexpr (ARegisters) {
        // a_fragment's contract: operand q of row tile i holds row i * m + l % m, K bytes
        // (l / m) * slice + q * operand_bytes onward of the step.
        typename mma::a_fragment frag;
        for (int i = 0; i < mma::tiles_m; ++i)
          for (int q = 0; q < mma::mfmas; ++q)
            std::memcpy(&frag.v[i][q],
                        a + (i * mma::m + lane % mma::m) * k_bytes_total + s * KBytes + (lane / mma::m) * mma::slice +
                            q * mma::operand_bytes,
                        mma::operand_bytes);
        w.template step<s == 0>(frag, base + tile * KBytes, 0, lane);
      } else {
        w.template step<s == 0>(base, base + tile * KBytes, 0, 0, lane);
      }
    });
    for (int i = 0; i < mma::tiles_m; ++i)
      for (int j = 0; j < mma::tiles_n; ++j)
        for (int r = 0; r < mma::regs; ++r)
          out[(i * mma::m + mma::acc_row(lane, r)) * tile + j * mma::m + mma::acc_col(lane)] = w.acc[i][j][r];
  }
}

template <class Atom, int KBytes, bool ARegisters>
void check_warp_mma() {
  using T = typename Atom::a_type;
  constexpr int elem = Atom::element_bits / 8, k = k_bytes_total / elem;
  INFO(Atom::name() << " " << T::format::name << ", " << KBytes << "-byte K steps, A from "
                    << (ARegisters ? "registers" : "LDS"));
  std::uint8_t *a, *b;
  float* out;
  REQUIRE(hipMallocManaged(&a, tile * k_bytes_total) == hipSuccess);
  REQUIRE(hipMallocManaged(&b, tile * k_bytes_total) == hipSuccess);
  REQUIRE(hipMallocManaged(&out, tile * tile * 4) == hipSuccess);
  std::vector<float> av(tile * k), bv(tile * k);
  std::mt19937 rng(9);
  std::uniform_int_distribution<int> half_units(-6, 6);
  for (int i = 0; i < tile * k; ++i) {
    const T x = saturate_cast<T>(0.5f * static_cast<float>(half_units(rng)));
    const T y = saturate_cast<T>(0.5f * static_cast<float>(half_units(rng)));
    av[i] = to_float(x), bv[i] = to_float(y);
    std::memcpy(a + i * elem, &x.bits, elem), std::memcpy(b + i * elem, &y.bits, elem);
  }
  hipLaunchKernelGGL((run_warp_mma<Atom, KBytes, ARegisters>), dim3(1), dim3(64), 0, nullptr, a, b, out);
  REQUIRE(hipGetLastError() == hipSuccess);
  REQUIRE(hipDeviceSynchronize() == hipSuccess);
#if defined(WAVEKIT_EMULATOR)
  CHECK(emu::last_launch_counters().lds_bank_conflict_cycles == 0);
#endif
  int wrong = 0;
  for (int i = 0; i < tile; ++i)
    for (int j = 0; j < tile; ++j) {
      float want = 0.0f;
      for (int kk = 0; kk < k; ++kk) want += av[i * k + kk] * bv[j * k + kk];
      if (out[i * tile + j] != want && ++wrong <= 3)
        FAIL_CHECK("C[" << i << "][" << j << "] = " << out[i * tile + j] << ", want " << want);
    }
  CHECK(wrong == 0);
  hipFree(a), hipFree(b), hipFree(out);
}

template <class... Atoms>
void check_runnable(std::tuple<Atoms...>*) {
  const arch::target t = arch::current_device_arch().kind;
  int ran = 0;
  (
      [&] {
        if (!arch::atom_runs_on(Atoms::targets, t)) return;
        ++ran;
        check_warp_mma<Atoms, 128, false>();
        check_warp_mma<Atoms, 128, true>();
        if constexpr (64 * Atoms::m / 64 >= Atoms::operand_bytes && Atoms::m * 64 / 64 % 16 == 0) {
          check_warp_mma<Atoms, 64, false>();
          check_warp_mma<Atoms, 64, true>();
        }
      }(),
      ...);
  CHECK(ran > 0);
}

using atoms =
    std::tuple<arch::mfma_atom<fp8_e4m3fnuz, fp8_e4m3fnuz, 32, 32, 16>,
               arch::mfma_atom<fp8_e4m3fnuz, fp8_e4m3fnuz, 16, 16, 32>,
               arch::mfma_atom<fp8_e4m3fn, fp8_e4m3fn, 32, 32, 16>, arch::mfma_atom<fp8_e4m3fn, fp8_e4m3fn, 16, 16, 32>,
               arch::mfma_atom<bf16, bf16, 32, 32, 8>, arch::mfma_atom<bf16, bf16, 16, 16, 16>,
               arch::mfma_atom<fp16, fp16, 16, 16, 16>, arch::mfma_atom<bf16, bf16, 32, 32, 16>,
               arch::mfma_atom<bf16, bf16, 16, 16, 32>, arch::mfma_atom<fp16, fp16, 32, 32, 16>,
               arch::mfma_scaled_atom<fp8_e4m3fn, fp8_e4m3fn, 32, 32>>;

}  // namespace

TEST_CASE("warp_mma: fp8, bf16 and f16 atoms, A from LDS or registers, 64- and 128-byte K steps", "[emu][warp]") {
  check_runnable(static_cast<atoms*>(nullptr));
}
