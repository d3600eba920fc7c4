// warp/warp_mma.hpp on its own: one wave, a 64 x 64 C tile, A and B tiles written straight into
// their LDS layout, K steps of 64 or 128 bytes with fp8, bf16 and f16 atoms of the device's target;
// and A or B taken from registers (filled by the contract warp_mma::fragment states). On gfx950 also
// the scaled atoms (MXFP8, MXFP4) reading K in the atom's order with instruction scales: every row
// and 32-K block its own e8m0 scale. Values are small multiples of 1/2 and scales small powers of
// two, so every sum is exact in fp32 and results must equal the exact product.
#include <hip/hip_runtime.h>
#include <catch2/catch.hpp>

#include <cmath>
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

// Which operand, if any, the warp MMA takes from registers.
enum class in_registers { none, a, b };

// a, b: [64][256 bytes] K-contiguous; out: 64 x 64 fp32.
template <class Atom, int KBytes, in_registers Regs>
__global__ void run_warp_mma(const std::uint8_t* a, const std::uint8_t* b, float* out) {
  using layout = tile::lds_swizzled_rows<KBytes>;
  using a_source = std::conditional_t<Regs == in_registers::a, warp::from_registers, warp::from_lds<layout>>;
  using b_source = std::conditional_t<Regs == in_registers::b, warp::from_registers, warp::from_lds<layout>>;
  using mma = warp::warp_mma<Atom, tile / Atom::m, tile / Atom::m, KBytes, a_source, b_source>;
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
      // A fragment's contract: operand q of tile t holds row t * m + l % m of its operand, K bytes
      // (l / m) * slice + q * operand_bytes onward of the step.
      auto fragment_of = [&](const std::uint8_t* rows, auto& frag, int tiles) {
        for (int t = 0; t < tiles; ++t)
          for (int q = 0; q < mma::mfmas; ++q)
            std::memcpy(&frag.v[t][q],
                        rows + (t * mma::m + lane % mma::m) * k_bytes_total + s * KBytes +
                            (lane / mma::m) * mma::slice + q * mma::operand_bytes,
                        mma::operand_bytes);
      };
      if constexpr (Regs == in_registers::a) {
        typename mma::a_fragment frag;
        fragment_of(a, frag, mma::tiles_m);
        w.template step<s == 0>(frag, base + tile * KBytes, 0, lane);
      } else if constexpr (Regs == in_registers::b) {
        typename mma::b_fragment frag;
        fragment_of(b, frag, mma::tiles_n);
        w.template step<s == 0>(base, frag, 0, lane);
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

template <class Atom, int KBytes, in_registers Regs>
void check_warp_mma() {
  using T = typename Atom::a_type;
  constexpr int elem = Atom::element_bits / 8, k = k_bytes_total / elem;
  INFO(Atom::name() << " " << T::format::name << ", " << KBytes << "-byte K steps, "
                    << (Regs == in_registers::a   ? "A from registers"
                        : Regs == in_registers::b ? "B from registers"
                                                  : "A and B from LDS"));
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
  hipLaunchKernelGGL((run_warp_mma<Atom, KBytes, Regs>), dim3(1), dim3(64), 0, nullptr, a, b, out);
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

// The scaled form: K in the atom's order, scales sa [64][blocks] and sb [64][blocks] (e8m0 bytes)
// handed to each step as instruction_scales; a and b hold packed elements (fp4: two a byte).
template <class Atom, int KBytes, bool ARegisters>
__global__ void run_scaled_warp_mma(const std::uint8_t* a, const std::uint8_t* b, const std::uint8_t* sa,
                                    const std::uint8_t* sb, float* out) {
  using layout = tile::lds_swizzled_rows<KBytes>;
  using a_source = std::conditional_t<ARegisters, warp::from_registers, warp::from_lds<layout>>;
  using mma = warp::warp_mma<Atom, tile / Atom::m, tile / Atom::m, KBytes, a_source, warp::from_lds<layout>,
                             warp::k_order::atom>;
  if constexpr (!arch::runs_on_current_target<Atom>) {
    __builtin_trap();
  } else {
    constexpr int steps = k_bytes_total / KBytes, blocks = k_bytes_total * 8 / Atom::element_bits / 32;
    constexpr int step_blocks = blocks / steps, mfma_blocks = Atom::k / 32;
    WAVEKIT_LDS_ARRAY(arch::u32x4, lds, 2 * steps * tile * KBytes / 16);
    auto* bytes = reinterpret_cast<unsigned char*>(lds);
    const int lane = static_cast<int>(threadIdx.x);
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
      // Lane l gives, for MFMA q of the step, its row's scale of block scale_block(l) of that MFMA.
      typename mma::instruction_scales scales;
      const int block = s * step_blocks + Atom::scale_block(lane);
      for (int q = 0; q < mma::mfmas; ++q) {
        for (int i = 0; i < mma::tiles_m; ++i)
          scales.a[i][q] = sa[(i * mma::m + lane % mma::m) * blocks + block + q * mfma_blocks];
        for (int j = 0; j < mma::tiles_n; ++j)
          scales.b[j][q] = sb[(j * mma::m + lane % mma::m) * blocks + block + q * mfma_blocks];
      }
      if constexpr (ARegisters) {
        typename mma::a_fragment frag;
        constexpr int per_mfma = mma::operand_bytes / 16;
        for (int i = 0; i < mma::tiles_m; ++i)
          for (int q = 0; q < mma::mfmas; ++q) {
            unsigned char operand[sizeof(typename mma::operand)] = {};
            for (int c = 0; c < per_mfma; ++c)
              std::memcpy(
                  operand + 16 * c,
                  a + (i * mma::m + lane % mma::m) * k_bytes_total + s * KBytes + mma::read_k(lane, q * per_mfma + c),
                  16);
            std::memcpy(&frag.v[i][q], operand, sizeof operand);
          }
        w.template step<s == 0>(frag, base + tile * KBytes, 0, lane, scales);
      } else {
        w.template step<s == 0>(base, base + tile * KBytes, 0, 0, lane, scales);
      }
    });
    for (int i = 0; i < mma::tiles_m; ++i)
      for (int j = 0; j < mma::tiles_n; ++j)
        for (int r = 0; r < mma::regs; ++r)
          out[(i * mma::m + mma::acc_row(lane, r)) * tile + j * mma::m + mma::acc_col(lane)] = w.acc[i][j][r];
  }
}

template <class Atom, int KBytes, bool ARegisters>
void check_scaled_warp_mma() {
  using T = typename Atom::a_type;
  constexpr int bits = Atom::element_bits, k = k_bytes_total * 8 / bits, blocks = k / 32;
  INFO(Atom::name() << " " << T::format::name << ", " << KBytes << "-byte K steps in the atom's order, A from "
                    << (ARegisters ? "registers" : "LDS"));
  std::uint8_t *a, *b, *sa, *sb;
  float* out;
  REQUIRE(hipMallocManaged(&a, tile * k_bytes_total) == hipSuccess);
  REQUIRE(hipMallocManaged(&b, tile * k_bytes_total) == hipSuccess);
  REQUIRE(hipMallocManaged(&sa, tile * blocks) == hipSuccess);
  REQUIRE(hipMallocManaged(&sb, tile * blocks) == hipSuccess);
  REQUIRE(hipMallocManaged(&out, tile * tile * 4) == hipSuccess);
  std::memset(a, 0, tile * k_bytes_total), std::memset(b, 0, tile * k_bytes_total);
  std::vector<float> av(tile * k), bv(tile * k);
  std::mt19937 rng(9);
  std::uniform_int_distribution<int> half_units(-6, 6), exponent(125, 129);
  auto put = [](std::uint8_t* dst, int i, std::uint32_t code) {
    if constexpr (bits == 8)
      dst[i] = static_cast<std::uint8_t>(code);
    else
      dst[i / 2] |= static_cast<std::uint8_t>((code & 0xF) << (4 * (i % 2)));
  };
  for (int i = 0; i < tile * k; ++i) {
    const T x = saturate_cast<T>(0.5f * static_cast<float>(half_units(rng)));
    const T y = saturate_cast<T>(0.5f * static_cast<float>(half_units(rng)));
    av[i] = to_float(x), bv[i] = to_float(y);
    put(a, i, x.bits), put(b, i, y.bits);
  }
  for (int i = 0; i < tile * blocks; ++i)
    sa[i] = static_cast<std::uint8_t>(exponent(rng)), sb[i] = static_cast<std::uint8_t>(exponent(rng));
  hipLaunchKernelGGL((run_scaled_warp_mma<Atom, KBytes, ARegisters>), dim3(1), dim3(64), 0, nullptr, a, b, sa, sb, out);
  REQUIRE(hipGetLastError() == hipSuccess);
  REQUIRE(hipDeviceSynchronize() == hipSuccess);
#if defined(WAVEKIT_EMULATOR)
  CHECK(emu::last_launch_counters().lds_bank_conflict_cycles == 0);
#endif
  int wrong = 0;
  for (int i = 0; i < tile; ++i)
    for (int j = 0; j < tile; ++j) {
      float want = 0.0f;
      for (int blk = 0; blk < blocks; ++blk) {
        float dot = 0.0f;
        for (int kk = 32 * blk; kk < 32 * blk + 32; ++kk) dot += av[i * k + kk] * bv[j * k + kk];
        want += std::ldexp(dot, sa[i * blocks + blk] + sb[j * blocks + blk] - 254);
      }
      if (out[i * tile + j] != want && ++wrong <= 3)
        FAIL_CHECK("C[" << i << "][" << j << "] = " << out[i * tile + j] << ", want " << want);
    }
  CHECK(wrong == 0);
  hipFree(a), hipFree(b), hipFree(sa), hipFree(sb), hipFree(out);
}

template <class... Atoms>
void check_runnable(std::tuple<Atoms...>*) {
  const arch::target t = arch::current_device_arch().kind;
  int ran = 0;
  (
      [&] {
        if (!arch::atom_runs_on(Atoms::targets, t)) return;
        ++ran;
        check_warp_mma<Atoms, 128, in_registers::none>();
        check_warp_mma<Atoms, 128, in_registers::a>();
        check_warp_mma<Atoms, 128, in_registers::b>();
        if constexpr (64 * Atoms::m / 64 >= Atoms::operand_bytes && Atoms::m * 64 / 64 % 16 == 0) {
          check_warp_mma<Atoms, 64, in_registers::none>();
          check_warp_mma<Atoms, 64, in_registers::a>();
          check_warp_mma<Atoms, 64, in_registers::b>();
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

TEST_CASE("warp_mma: scaled atoms in the atom's K order take each row's and block's scale", "[emu][warp]") {
  if (arch::current_device_arch().kind != arch::target::gfx950) {
    SUCCEED("the scaled atoms are gfx950's");
    return;
  }
  using mxfp8_16 = arch::mfma_scaled_atom<fp8_e4m3fn, fp8_e4m3fn, 16, 16>;
  using mxfp8_32 = arch::mfma_scaled_atom<fp8_e4m3fn, fp8_e4m3fn, 32, 32>;
  using mxfp4_16 = arch::mfma_scaled_atom<fp4_e2m1, fp4_e2m1, 16, 16>;
  using mxfp4_32 = arch::mfma_scaled_atom<fp4_e2m1, fp4_e2m1, 32, 32>;
  check_scaled_warp_mma<mxfp8_16, 128, false>();
  check_scaled_warp_mma<mxfp8_16, 128, true>();
  check_scaled_warp_mma<mxfp8_32, 64, false>();
  check_scaled_warp_mma<mxfp8_32, 128, true>();
  check_scaled_warp_mma<mxfp4_16, 64, false>();
  check_scaled_warp_mma<mxfp4_16, 128, true>();
  check_scaled_warp_mma<mxfp4_32, 128, false>();
}
