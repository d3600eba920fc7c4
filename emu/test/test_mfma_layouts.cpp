// The emulator's MFMA register layouts against AMD's ground truth, entry by entry, for every
// instruction in data/cdna3_mfma_layouts.csv: first the layout functions themselves, then the
// emulated builtins end to end (operands placed and results read by the ground truth only).
#include <hip/hip_runtime.h>
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "mfma_ground_truth.hpp"
#include "wavekit/core/numeric_types.hpp"
#include "wavekit/emu/mfma_layout.hpp"

using namespace wavekit;
using emu::mfma::shape;

namespace {

const test::layout_table& ground_truth() {
  static const test::layout_table t = test::load_mfma_layouts(WAVEKIT_MFMA_LAYOUTS_CSV);
  return t;
}

shape shape_of(const std::string& inst) {
  int m, n, k;
  std::sscanf(inst.c_str(), "v_mfma_%*[a-z0-9]_%dx%dx%d", &m, &n, &k);
  const bool sixteen = inst.find("f16") != std::string::npos || inst.find("bf16") != std::string::npos;
  return {m, n, k, sixteen ? 16 : 8};
}

}  // namespace

TEST_CASE("MFMA layout functions match the ground truth for every CSV instruction", "[emu][mfma]") {
  // fp8 32x32x16 (fp8_fp8, bf8_fp8), 16x16x32 (fp8_fp8, fp8_bf8); f16, bf16 32x32x8 and 16x16x16;
  // i8 32x32x16 and 16x16x32: the ten instructions the end-to-end test below runs.
  REQUIRE(ground_truth().size() == 10);
  for (const auto& [inst, matrices] : ground_truth()) {
    const shape s = shape_of(inst);
    INFO(inst);
    REQUIRE(matrices.size() == 4);
    for (const auto& [matrix, entries] : matrices) {
      const bool is_acc = matrix == 'C' || matrix == 'D';
      const std::size_t expected_count = is_acc ? std::size_t(s.m) * s.n : std::size_t(matrix == 'A' ? s.m : s.n) * s.k;
      CHECK(entries.size() == expected_count);
      for (const auto& e : entries) {
        if (is_acc) {
          const emu::mfma::cell c = emu::mfma::accumulator_cell(s, e.lane, e.reg);
          CHECK((c.i == e.row && c.j == e.col && e.bit_lo == 0 && e.bit_hi == 31));
        } else {
          const int element = (e.reg * 32 + e.bit_lo) / s.element_bits;
          CHECK(e.bit_hi - e.bit_lo + 1 == s.element_bits);
          const emu::mfma::position p =
              matrix == 'A' ? emu::mfma::a_position(s, e.lane, element) : emu::mfma::b_position(s, e.lane, element);
          // A[row = i][col = k]; B[row = k][col = j]
          const int index = matrix == 'A' ? e.row : e.col, k = matrix == 'A' ? e.col : e.row;
          CHECK((p.index == index && p.k == k));
        }
      }
    }
  }
}

namespace {

template <class Operand, class Accumulator>
struct mfma_lane {
  Operand a, b;
  Accumulator c, d;
};

#define WAVEKIT_TEST_MFMA_KERNEL(op, Operand, Accumulator)           \
  __global__ void run_##op(mfma_lane<Operand, Accumulator>* lanes) { \
    auto& l = lanes[threadIdx.x];                                    \
    l.d = __builtin_amdgcn_##op(l.a, l.b, l.c, 0, 0, 0);             \
  }
using half4 = wavekit::f16x4;
using short4 = wavekit::i16x4;
using int32x16 = emu::mfma::int32x16;
WAVEKIT_TEST_MFMA_KERNEL(mfma_f32_32x32x16_fp8_fp8, long, floatx16)
WAVEKIT_TEST_MFMA_KERNEL(mfma_f32_32x32x16_bf8_fp8, long, floatx16)
WAVEKIT_TEST_MFMA_KERNEL(mfma_f32_16x16x32_fp8_fp8, long, floatx4)
WAVEKIT_TEST_MFMA_KERNEL(mfma_f32_16x16x32_fp8_bf8, long, floatx4)
WAVEKIT_TEST_MFMA_KERNEL(mfma_f32_32x32x8f16, half4, floatx16)
WAVEKIT_TEST_MFMA_KERNEL(mfma_f32_16x16x16f16, half4, floatx4)
WAVEKIT_TEST_MFMA_KERNEL(mfma_f32_32x32x8bf16_1k, short4, floatx16)
WAVEKIT_TEST_MFMA_KERNEL(mfma_f32_16x16x16bf16_1k, short4, floatx4)
WAVEKIT_TEST_MFMA_KERNEL(mfma_i32_32x32x16_i8, long, int32x16)
WAVEKIT_TEST_MFMA_KERNEL(mfma_i32_16x16x32_i8, long, int32x4)

// Encodes small integers exactly in each operand format.
std::uint32_t encode(const std::string& fmt, int v) {
  if (fmt == "fp8") return saturate_cast<fp8_e4m3fnuz>(float(v)).bits;
  if (fmt == "bf8") return saturate_cast<bf8_e5m2fnuz>(float(v)).bits;
  if (fmt == "f16") return saturate_cast<fp16>(float(v)).bits;
  if (fmt == "bf16") return saturate_cast<bf16>(float(v)).bits;
  return static_cast<std::uint8_t>(static_cast<std::int8_t>(v));  // i8
}

void put_bits(void* regs, int reg, int bit_lo, int bits, std::uint32_t value) {
  std::uint32_t word;
  std::memcpy(&word, static_cast<char*>(regs) + 4 * reg, 4);
  const std::uint32_t mask = (bits == 32 ? ~0u : ((1u << bits) - 1)) << bit_lo;
  word = (word & ~mask) | ((value << bit_lo) & mask);
  std::memcpy(static_cast<char*>(regs) + 4 * reg, &word, 4);
}

// Places random small integers by the ground truth, runs the builtin, reads D by the ground
// truth and compares with the exact product (all sums are exact in fp32).
template <class Operand, class Accumulator>
void check_end_to_end(const std::string& inst, void (*kernel)(mfma_lane<Operand, Accumulator>*), const std::string& fa,
                      const std::string& fb) {
  INFO(inst);
  const shape s = shape_of(inst);
  const auto& gt = ground_truth().at(inst);
  std::mt19937 rng(std::hash<std::string>{}(inst));
  std::uniform_int_distribution<int> small(-4, 4);
  std::vector<int> a(s.m * s.k), b(s.k * s.n), c(s.m * s.n);
  for (int& v : a) v = small(rng);
  for (int& v : b) v = small(rng);
  for (int& v : c) v = small(rng) * 8;
  mfma_lane<Operand, Accumulator>* lanes;
  REQUIRE(hipMalloc(&lanes, 64 * sizeof(*lanes)) == hipSuccess);
  std::memset(lanes, 0, 64 * sizeof(*lanes));
  using acc_element = std::remove_reference_t<decltype(Accumulator{}[0])>;
  for (const auto& e : gt.at('A'))
    put_bits(&lanes[e.lane].a, e.reg, e.bit_lo, e.bit_hi - e.bit_lo + 1, encode(fa, a[e.row * s.k + e.col]));
  for (const auto& e : gt.at('B'))
    put_bits(&lanes[e.lane].b, e.reg, e.bit_lo, e.bit_hi - e.bit_lo + 1, encode(fb, b[e.row * s.n + e.col]));
  for (const auto& e : gt.at('C')) {
    const acc_element v = static_cast<acc_element>(c[e.row * s.n + e.col]);
    std::uint32_t bits;
    std::memcpy(&bits, &v, 4);
    put_bits(&lanes[e.lane].c, e.reg, 0, 32, bits);
  }
  hipLaunchKernelGGL(kernel, dim3(1), dim3(64), 0, nullptr, lanes);
  REQUIRE(hipGetLastError() == hipSuccess);
  for (const auto& e : gt.at('D')) {
    long exact = c[e.row * s.n + e.col];
    for (int kk = 0; kk < s.k; ++kk) exact += long(a[e.row * s.k + kk]) * b[kk * s.n + e.col];
    acc_element got;
    std::memcpy(&got, reinterpret_cast<char*>(&lanes[e.lane].d) + 4 * e.reg, 4);
    INFO("D[" << e.row << "][" << e.col << "] lane " << e.lane << " reg " << e.reg);
    CHECK(double(got) == double(exact));
  }
  REQUIRE(hipFree(lanes) == hipSuccess);
}

}  // namespace

TEST_CASE("emulated MFMA builtins place operands and results as the ground truth says", "[emu][mfma]") {
  check_end_to_end("v_mfma_f32_32x32x16_fp8_fp8", run_mfma_f32_32x32x16_fp8_fp8, "fp8", "fp8");
  check_end_to_end("v_mfma_f32_32x32x16_bf8_fp8", run_mfma_f32_32x32x16_bf8_fp8, "bf8", "fp8");
  check_end_to_end("v_mfma_f32_16x16x32_fp8_fp8", run_mfma_f32_16x16x32_fp8_fp8, "fp8", "fp8");
  check_end_to_end("v_mfma_f32_16x16x32_fp8_bf8", run_mfma_f32_16x16x32_fp8_bf8, "fp8", "bf8");
  check_end_to_end("v_mfma_f32_32x32x8_f16", run_mfma_f32_32x32x8f16, "f16", "f16");
  check_end_to_end("v_mfma_f32_16x16x16_f16", run_mfma_f32_16x16x16f16, "f16", "f16");
  check_end_to_end("v_mfma_f32_32x32x8_bf16", run_mfma_f32_32x32x8bf16_1k, "bf16", "bf16");
  check_end_to_end("v_mfma_f32_16x16x16_bf16", run_mfma_f32_16x16x16bf16_1k, "bf16", "bf16");
  check_end_to_end("v_mfma_i32_32x32x16_i8", run_mfma_i32_32x32x16_i8, "i8", "i8");
  check_end_to_end("v_mfma_i32_16x16x32_i8", run_mfma_i32_16x16x32_i8, "i8", "i8");
}
