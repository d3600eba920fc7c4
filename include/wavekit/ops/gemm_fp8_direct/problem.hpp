// C (M, N) fp32 = A (M, K) * B (N, K)^T, fp8 A and B stored K-contiguous, no scales.
//
// One wave computes one 32x32 tile of C with v_mfma_f32_32x32x16. The instruction's operand
// layout (docs/hardware.md 1.2) gives lane l row l % 32 and the 8 K values 8 * (l / 32) + [0, 8),
// so each lane's operand is one 8-byte load straight from global memory: no LDS, no shuffles. It
// is the smallest complete MFMA kernel, the first customer of the emulator and of the codegen
// report, and a readable statement of the MFMA layout; the block-scaled GEMM is the fast path.
//
// Views and batches (core/gemm_view.hpp): row strides lda and ldb multiples of 8 (each lane's
// 8-byte loads), any ldc; a batch is the launch grid's z, GEMM g reading A + g * batch.a and
// B + g * batch.b (0: shared) and writing C + g * batch.c.
//
// This header is the host side (shape, arguments, validation) and builds without HIP;
// ops/gemm_fp8_direct/supports.hpp answers which problems and targets run;
// ops/gemm_fp8_direct/kernel.hpp holds the kernel and its launcher (ops/gemm_fp8_direct.hpp).
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

#include "wavekit/core/gemm_view.hpp"
#include "wavekit/core/numeric_types.hpp"
#include "wavekit/core/status.hpp"

namespace wavekit::ops::gemm_fp8_direct {

// The sizes of C (M, N) and the K they reduce over; the views of A, B and C and the batch.
struct problem {
  int m, n, k;
  gemm_strides strides = {};
  gemm_batch batch = {};
  gemm_views views() const { return gemm_views::of(m, n, k, layout::k_contiguous, strides); }
};

// The op for one fp8 format: its shape constants, arguments and checks.
template <class Fp8>
struct op {
  static constexpr int tile_m = 32, tile_n = 32, tile_k = 16;
  static constexpr int threads = 64;  // one wave

  struct args {
    const Fp8* a;  // (m, k), rows strides.lda apart (0: k)
    const Fp8* b;  // (n, k), rows strides.ldb apart (0: k)
    float* c;      // (m, n), rows strides.ldc apart (0: n)
    int m, n, k;
    gemm_strides strides = {};
    gemm_batch batch = {};
  };

  static std::string name() { return "gemm_fp8_direct<32x32, w1, mfma_f32_32x32x16_fp8_fp8>"; }
  static std::string shape_text(const problem& p) {
    return std::to_string(p.m) + "x" + std::to_string(p.n) + "x" + std::to_string(p.k) + to_string(p.strides, p.batch);
  }

  // The shape's rules: every load and store stays inside the three tensors.
  static status validate_shape(const problem& p) {
    if (p.m < 0 || p.n <= 0 || p.k <= 0)
      return {status_code::bad_shape, name() + ": m must be >= 0 (0: nothing to do), n and k positive"};
    if (p.m % tile_m || p.n % tile_n || p.k % tile_k)
      return {status_code::bad_shape,
              name() + ": needs m % 32 == 0, n % 32 == 0, k % 16 == 0 (got " + shape_text(p) + ")"};
    // Each lane's 8-byte loads keep A's and B's rows and GEMMs 8-byte aligned; C is stored a float
    // at a time.
    return check_gemm_views(lazy([&] { return name() + " " + shape_text(p) + ": "; }), p.m, p.n, p.k,
                            layout::k_contiguous, p.strides, p.batch, {8, 8, 32, 8, 8, 1});
  }

  // Checked before any launch: the shape, then the pointers.
  static status validate(const args& p) {
    if (status s = validate_shape({p.m, p.n, p.k, p.strides, p.batch}); !s.ok()) return s;
    if (p.m == 0) return status::success();  // empty: nothing is read or written, no pointer is checked
    for (const auto& [arg, ptr] : {std::pair<const char*, const void*>{"a", p.a}, {"b", p.b}, {"c", p.c}})
      if (!ptr) return {status_code::null_pointer, name() + ": argument " + arg + " is null"};
    for (const auto& [arg, ptr] : {std::pair<const char*, const void*>{"a", p.a}, {"b", p.b}})
      if (reinterpret_cast<std::uintptr_t>(ptr) % 8)
        return {status_code::bad_alignment,
                name() + ": argument " + arg + " must be 8-byte aligned (one 8-byte load per lane)"};
    return status::success();
  }
};

}  // namespace wavekit::ops::gemm_fp8_direct
