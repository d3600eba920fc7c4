// Host-side validation of gemm_fp8_direct: every bad input gets its status and message.
#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "wavekit/ops/gemm_fp8_direct/problem.hpp"

using namespace wavekit;
using problem = ops::gemm_fp8_direct::op<fp8_e4m3fnuz>;

TEST_CASE("gemm_fp8_direct validation", "[ops][gemm]") {
  alignas(8) static fp8_e4m3fnuz a[64], b[64];
  static float c[64];
  const problem::args good{a, b, c, 32, 32, 16};
  CHECK(problem::validate(good).ok());

  auto expect = [](problem::args p, status_code code, const char* text) {
    const status s = problem::validate(p);
    CHECK(s.code() == code);
    CHECK_THAT(s.message(), Catch::Contains(text));
  };
  expect({nullptr, b, c, 32, 32, 16}, status_code::null_pointer, "argument a is null");
  expect({a, nullptr, c, 32, 32, 16}, status_code::null_pointer, "argument b is null");
  expect({a, b, nullptr, 32, 32, 16}, status_code::null_pointer, "argument c is null");
  expect({a, b, c, -32, 32, 16}, status_code::bad_shape, "m must be >= 0");
  // m = 0 is empty: no pointer is checked.
  CHECK(problem::validate({nullptr, nullptr, nullptr, 0, 32, 16}).ok());
  expect({a, b, c, 33, 32, 16}, status_code::bad_shape, "m % 32 == 0");
  expect({a, b, c, 32, 48, 16}, status_code::bad_shape, "(got 32x48x16)");
  expect({a, b, c, 32, 32, 24}, status_code::bad_shape, "k % 16 == 0");
  expect({a + 1, b, c, 32, 32, 16}, status_code::bad_alignment, "argument a must be 8-byte aligned");
  expect({a, b + 1, c, 32, 32, 16}, status_code::bad_alignment, "argument b must be 8-byte aligned");
  expect({a, b, c, 65536, 32, 65536}, status_code::too_large, "2^31 - 1");
  // Views and batches (core/gemm_view.hpp): the rules name the field.
  CHECK(problem::validate({a, b, c, 32, 32, 16, {24, 16, 33}, {2, 32 * 24, 0, 32 * 33}}).ok());
  expect({a, b, c, 32, 32, 16, {8, 0, 0}}, status_code::bad_shape, "lda (8) must be 0 (packed) or at least K (16)");
  expect({a, b, c, 32, 32, 16, {20, 0, 0}}, status_code::bad_alignment, "lda (20) must be a multiple of 8");
  expect({a, b, c, 32, 32, 16, {0, 28, 0}}, status_code::bad_alignment, "ldb (28) must be a multiple of 8");
  expect({a, b, c, 32, 32, 16, {0, 0, 16}}, status_code::bad_shape, "ldc (16) must be 0 (packed) or at least N");
  expect({a, b, c, 32, 32, 16, {std::int64_t(1) << 31, 0, 0}}, status_code::too_large,
         "lda (2147483648) must be below 2^31");
  expect({a, b, c, 32, 32, 16, {}, {0}}, status_code::bad_shape, "batch.count must be 1 to 65535");
  expect({a, b, c, 32, 32, 16, {}, {2, 12, 0, 1024}}, status_code::bad_alignment, "batch.a must be a multiple of 8");
  expect({a, b, c, 32, 32, 16, {}, {2, -16, 0, 1024}}, status_code::bad_shape, "batch.a must be 0 to 2^31 - 1");
  expect({a, b, c, 32, 32, 16, {}, {2, 0, 0, 32}}, status_code::bad_shape, "the batch's C tensors would overlap");
  expect({a, b, c, 32, 32, 16, {1 << 30, 0, 0}}, status_code::too_large, "spans more than 2^31 - 1 bytes");
}
