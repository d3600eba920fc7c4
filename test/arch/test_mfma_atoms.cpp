// arch/mfma_atoms.hpp: every atom the device's target runs, fed through the register layouts the
// atom declares (operand_row / operand_k to pack A and B, acc_row / acc_col to read C), against
// the exact product. Values are small multiples of 1/2, so every product and sum is exact in fp32
// and the comparison is equality. The layouts are the atom's; the emulator checks them against its
// own tables (emu/mfma_layout.hpp), the GPU against the hardware.
#include <hip/hip_runtime.h>
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <tuple>
#include <vector>

#include "wavekit/arch/device.hpp"
#include "wavekit/arch/mfma_atoms.hpp"
#include "wavekit/core/float_codec.hpp"

using namespace wavekit;

namespace {

template <class Atom>
__global__ void run_atom(const typename Atom::operand* a, const typename Atom::operand* b, float* c, int scale_a) {
  if constexpr (!arch::runs_on_current_target<Atom>) {
    __builtin_trap();  // a GPU build's pass for a target without this instruction: never launched there
  } else {
    const int lane = static_cast<int>(threadIdx.x);
    typename Atom::accumulator acc{};
    if constexpr (requires { Atom::scale_k; })
      acc = Atom::run(a[lane], b[lane], acc, scale_a, Atom::neutral_scale);
    else
      acc = Atom::run(a[lane], b[lane], acc);
    for (int r = 0; r < Atom::acc_regs; ++r) c[Atom::acc_row(lane, r) * Atom::n + Atom::acc_col(lane)] = acc[r];
  }
}

// The bits of value x in the atom's element format (A and B share it).
template <class T>
std::uint32_t bits_of(float x) {
  return static_cast<std::uint32_t>(saturate_cast<T>(x).bits);
}

// Lane l's operand: element e (bits [e * bits, (e + 1) * bits)) is M[operand_row(l)][operand_k(l, e)].
template <class Atom, class T>
std::vector<typename Atom::operand> pack(const std::vector<float>& rows_by_k) {
  std::vector<typename Atom::operand> out(64);
  for (int lane = 0; lane < 64; ++lane) {
    unsigned char bytes[sizeof(typename Atom::operand)] = {};
    for (int e = 0; e < Atom::k_per_lane; ++e) {
      const std::uint32_t v = bits_of<T>(rows_by_k[Atom::operand_row(lane) * Atom::k + Atom::operand_k(lane, e)]);
      for (int bit = 0; bit < Atom::element_bits; ++bit)
        if (v >> bit & 1u) {
          const int at = e * Atom::element_bits + bit;
          bytes[at / 8] |= static_cast<unsigned char>(1u << (at % 8));
        }
    }
    std::memcpy(&out[lane], bytes, sizeof bytes);
  }
  return out;
}

template <class Atom>
void check_atom(int scale_a = 127) {
  using T = typename Atom::a_type;
  constexpr int m = Atom::m, n = Atom::n, k = Atom::k;
  INFO(Atom::name() << " " << T::format::name << " x " << Atom::b_type::format::name << " (scale_a " << scale_a << ")");
  // Each operand K index appears exactly once per row across the lanes of a row.
  for (int row = 0; row < m; ++row) {
    std::vector<int> seen(k, 0);
    for (int lane = 0; lane < 64; ++lane)
      if (Atom::operand_row(lane) == row)
        for (int e = 0; e < Atom::k_per_lane; ++e) ++seen[Atom::operand_k(lane, e)];
    for (int x : seen) REQUIRE(x == 1);
  }
  std::mt19937 rng(11);
  // Multiples of 1/2 in [-3, 3]: exact in every format (fp4 e2m1 included).
  std::uniform_int_distribution<int> half_units(-6, 6);
  std::vector<float> a(m * k), b(n * k);
  // Values as stored (fp4 has no 2.5): the reference multiplies what the instruction reads.
  for (float& x : a) x = to_float(saturate_cast<T>(0.5f * static_cast<float>(half_units(rng))));
  for (float& x : b) x = to_float(saturate_cast<typename Atom::b_type>(0.5f * static_cast<float>(half_units(rng))));
  const auto pa = pack<Atom, T>(a), pb = pack<Atom, typename Atom::b_type>(b);
  typename Atom::operand *da, *db;
  float* dc;
  REQUIRE(hipMallocManaged(&da, sizeof(typename Atom::operand) * 64) == hipSuccess);
  REQUIRE(hipMallocManaged(&db, sizeof(typename Atom::operand) * 64) == hipSuccess);
  REQUIRE(hipMallocManaged(&dc, sizeof(float) * m * n) == hipSuccess);
  std::memcpy(da, pa.data(), sizeof(typename Atom::operand) * 64);
  std::memcpy(db, pb.data(), sizeof(typename Atom::operand) * 64);
  hipLaunchKernelGGL(run_atom<Atom>, dim3(1), dim3(64), 0, nullptr, da, db, dc, scale_a);
  REQUIRE(hipGetLastError() == hipSuccess);
  REQUIRE(hipDeviceSynchronize() == hipSuccess);
  const float scale = std::ldexp(1.0f, scale_a - 127);
  int wrong = 0;
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      float want = 0.0f;
      for (int kk = 0; kk < k; ++kk) want += a[i * k + kk] * b[j * k + kk];
      want *= scale;
      if (dc[i * n + j] != want && ++wrong <= 3)
        FAIL_CHECK("C[" << i << "][" << j << "] = " << dc[i * n + j] << ", want " << want);
    }
  CHECK(wrong == 0);
  hipFree(da), hipFree(db), hipFree(dc);
}

template <class Atom, int OpselA, int OpselB>
__global__ void run_scaled_atom(const typename Atom::operand* a, const typename Atom::operand* b, const int* scale_a,
                                const int* scale_b, float* c) {
  if constexpr (!arch::runs_on_current_target<Atom>) {
    __builtin_trap();
  } else {
    const int lane = static_cast<int>(threadIdx.x);
    const typename Atom::accumulator acc = Atom::template run<OpselA, OpselB>(
        a[lane], b[lane], typename Atom::accumulator{}, scale_a[lane], scale_b[lane]);
    for (int r = 0; r < Atom::acc_regs; ++r) c[Atom::acc_row(lane, r) * Atom::n + Atom::acc_col(lane)] = acc[r];
  }
}

// A scaled atom with its own scale for every row (column) and 32-K block: lane l's scale register
// holds the scale of row operand_row(l) for block scale_block(l) in byte OpselA (OpselB) and 0xFF
// (NaN, were it read) in the other bytes. The result must be the blockwise-scaled product exactly.
template <class Atom, int OpselA, int OpselB>
void check_scale_placement() {
  using T = typename Atom::a_type;
  constexpr int m = Atom::m, n = Atom::n, k = Atom::k, blocks = k / Atom::scale_k;
  INFO(Atom::name() << " " << T::format::name << ", opsel " << OpselA << "/" << OpselB);
  std::mt19937 rng(5);
  std::uniform_int_distribution<int> half_units(-6, 6), exponent(124, 130);
  std::vector<float> a(m * k), b(n * k);
  for (float& x : a) x = to_float(saturate_cast<T>(0.5f * static_cast<float>(half_units(rng))));
  for (float& x : b) x = to_float(saturate_cast<typename Atom::b_type>(0.5f * static_cast<float>(half_units(rng))));
  std::vector<int> sa(m * blocks), sb(n * blocks);  // [row][block] e8m0
  for (int& x : sa) x = exponent(rng);
  for (int& x : sb) x = exponent(rng);
  auto scale_register = [](int e8m0, int opsel) {
    return static_cast<int>((0xFFFFFFFFu & ~(0xFFu << (8 * opsel))) | static_cast<std::uint32_t>(e8m0) << (8 * opsel));
  };
  const auto pa = pack<Atom, T>(a), pb = pack<Atom, typename Atom::b_type>(b);
  typename Atom::operand *da, *db;
  int *dsa, *dsb;
  float* dc;
  REQUIRE(hipMallocManaged(&da, sizeof(typename Atom::operand) * 64) == hipSuccess);
  REQUIRE(hipMallocManaged(&db, sizeof(typename Atom::operand) * 64) == hipSuccess);
  REQUIRE(hipMallocManaged(&dsa, sizeof(int) * 64) == hipSuccess);
  REQUIRE(hipMallocManaged(&dsb, sizeof(int) * 64) == hipSuccess);
  REQUIRE(hipMallocManaged(&dc, sizeof(float) * m * n) == hipSuccess);
  std::memcpy(da, pa.data(), sizeof(typename Atom::operand) * 64);
  std::memcpy(db, pb.data(), sizeof(typename Atom::operand) * 64);
  for (int lane = 0; lane < 64; ++lane) {
    const int row = Atom::operand_row(lane), block = Atom::scale_block(lane);
    dsa[lane] = scale_register(sa[row * blocks + block], OpselA);
    dsb[lane] = scale_register(sb[row * blocks + block], OpselB);
  }
  hipLaunchKernelGGL((run_scaled_atom<Atom, OpselA, OpselB>), dim3(1), dim3(64), 0, nullptr, da, db, dsa, dsb, dc);
  REQUIRE(hipGetLastError() == hipSuccess);
  REQUIRE(hipDeviceSynchronize() == hipSuccess);
  int wrong = 0;
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      float want = 0.0f;
      for (int blk = 0; blk < blocks; ++blk) {
        float dot = 0.0f;
        for (int kk = 32 * blk; kk < 32 * blk + 32; ++kk) dot += a[i * k + kk] * b[j * k + kk];
        want += std::ldexp(dot, sa[i * blocks + blk] + sb[j * blocks + blk] - 254);
      }
      if (dc[i * n + j] != want && ++wrong <= 3)
        FAIL_CHECK("C[" << i << "][" << j << "] = " << dc[i * n + j] << ", want " << want);
    }
  CHECK(wrong == 0);
  hipFree(da), hipFree(db), hipFree(dsa), hipFree(dsb), hipFree(dc);
}

template <class... Atoms>
void check_runnable(std::tuple<Atoms...>*) {
  const arch::target t = arch::current_device_arch().kind;
  int ran = 0;
  (
      [&] {
        if (arch::atom_runs_on(Atoms::targets, t)) check_atom<Atoms>(), ++ran;
      }(),
      ...);
  CHECK(ran > 0);
}

using unscaled_atoms = std::tuple<
    arch::mfma_atom<fp8_e4m3fnuz, fp8_e4m3fnuz, 32, 32, 16>, arch::mfma_atom<fp8_e4m3fnuz, fp8_e4m3fnuz, 16, 16, 32>,
    arch::mfma_atom<bf8_e5m2fnuz, bf8_e5m2fnuz, 32, 32, 16>, arch::mfma_atom<bf8_e5m2fnuz, bf8_e5m2fnuz, 16, 16, 32>,
    arch::mfma_atom<fp8_e4m3fn, fp8_e4m3fn, 32, 32, 16>, arch::mfma_atom<fp8_e4m3fn, fp8_e4m3fn, 16, 16, 32>,
    arch::mfma_atom<bf8_e5m2, bf8_e5m2, 32, 32, 16>, arch::mfma_atom<bf8_e5m2, bf8_e5m2, 16, 16, 32>,
    arch::mfma_atom<fp16, fp16, 32, 32, 8>, arch::mfma_atom<fp16, fp16, 16, 16, 16>,
    arch::mfma_atom<bf16, bf16, 32, 32, 8>, arch::mfma_atom<bf16, bf16, 16, 16, 16>,
    arch::mfma_atom<fp16, fp16, 32, 32, 16>, arch::mfma_atom<fp16, fp16, 16, 16, 32>,
    arch::mfma_atom<bf16, bf16, 32, 32, 16>, arch::mfma_atom<bf16, bf16, 16, 16, 32>>;

using scaled_atoms =
    std::tuple<arch::mfma_scaled_atom<fp8_e4m3fn, fp8_e4m3fn, 16, 16>,
               arch::mfma_scaled_atom<fp8_e4m3fn, fp8_e4m3fn, 32, 32>,
               arch::mfma_scaled_atom<bf8_e5m2, fp8_e4m3fn, 16, 16>, arch::mfma_scaled_atom<fp6_e2m3, bf6_e3m2, 32, 32>,
               arch::mfma_scaled_atom<fp4_e2m1, fp4_e2m1, 16, 16>, arch::mfma_scaled_atom<fp4_e2m1, fp4_e2m1, 32, 32>>;

}  // namespace

TEST_CASE("MFMA atoms: every unscaled atom of the device's target, through its declared layouts", "[mfma]") {
  check_runnable(static_cast<unscaled_atoms*>(nullptr));
}

TEST_CASE("MFMA atoms: the gfx950 scaled f8f6f4 family, neutral and power-of-two scales", "[mfma]") {
  if (arch::current_device_arch().kind != arch::target::gfx950) {
    SUCCEED("the scaled family is gfx950's");
    return;
  }
  check_runnable(static_cast<scaled_atoms*>(nullptr));
  // A uniform A scale of 2^3 and of 2^-2 scales every result exactly.
  check_atom<arch::mfma_scaled_atom<fp8_e4m3fn, fp8_e4m3fn, 16, 16>>(130);
  check_atom<arch::mfma_scaled_atom<fp4_e2m1, fp4_e2m1, 32, 32>>(125);
}

TEST_CASE("MFMA atoms: the gfx950 scaled family takes each block's scale from the lane scale_block names", "[mfma]") {
  if (arch::current_device_arch().kind != arch::target::gfx950) {
    SUCCEED("the scaled family is gfx950's");
    return;
  }
  check_scale_placement<arch::mfma_scaled_atom<fp8_e4m3fn, fp8_e4m3fn, 16, 16>, 0, 0>();
  check_scale_placement<arch::mfma_scaled_atom<fp8_e4m3fn, fp8_e4m3fn, 32, 32>, 2, 1>();
  check_scale_placement<arch::mfma_scaled_atom<fp4_e2m1, fp4_e2m1, 16, 16>, 3, 0>();
  check_scale_placement<arch::mfma_scaled_atom<fp4_e2m1, fp4_e2m1, 32, 32>, 1, 3>();
}

TEST_CASE("MFMA atoms: the layouts name the instruction's registers", "[mfma]") {
  using f8 = arch::mfma_atom<fp8_e4m3fnuz, fp8_e4m3fnuz, 16, 16, 32>;
  STATIC_REQUIRE(f8::k_per_lane == 8 && f8::operand_bytes == 8 && f8::acc_regs == 4 && f8::element_bits == 8);
  using h = arch::mfma_atom<bf16, bf16, 32, 32, 16>;
  STATIC_REQUIRE(h::k_per_lane == 8 && h::operand_bytes == 16 && h::element_bits == 16);
  using s = arch::mfma_scaled_atom<fp8_e4m3fn, fp8_e4m3fn, 16, 16>;
  STATIC_REQUIRE(s::k == 128 && s::k_per_lane == 32 && s::chunked_k && s::operand_k(17, 16) == 16 * (4 + 1));
  using s4 = arch::mfma_scaled_atom<fp4_e2m1, fp4_e2m1, 16, 16>;
  STATIC_REQUIRE(!s4::chunked_k && s4::operand_bytes == 16 && s4::operand_k(17, 16) == 48);
  STATIC_REQUIRE(arch::atom_runs_on(h::targets, arch::target::gfx950) &&
                 !arch::atom_runs_on(h::targets, arch::target::gfx942));
  STATIC_REQUIRE(arch::atom_runs_on(arch::mfma_atom<bf16, bf16, 16, 16, 16>::targets, arch::target::gfx942) &&
                 arch::atom_runs_on(arch::mfma_atom<bf16, bf16, 16, 16, 16>::targets, arch::target::gfx950));
}
