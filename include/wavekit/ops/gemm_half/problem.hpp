// The half-precision GEMM, host side: problem, arguments, validation (plain C++, no HIP).
//
//   C (M, N) = A (M, K) x B (N, K)^T,  A and B bf16 or fp16 (both the same), fp32 accumulation,
//   C bf16, fp16 or fp32 ([M][N] row-major; bf16/fp16 rounded to nearest even, fp16 beyond its
//   range is +-Inf).
//
// Two storage orders, both read directly:
//   layout::k_contiguous   A [M][K], B [N][K]
//   layout::mn_contiguous  A [K][M], B [K][N]
// Legal shapes: M >= 1, N a multiple of 16, K a multiple of 8; in the mn_contiguous order M must
// also be a multiple of 16 (its rows of A are vector loads along M). The storage order has no
// default: a problem is always constructed with one.
//
// Views and batches (core/gemm_view.hpp): row strides lda, ldb (multiples of 8: 16-byte loads) and
// ldc (a multiple of 4: the split-K reduction's vector stores), and a batch of GEMMs of this shape,
// their tensors' strides multiples of the same. One head's slice of a projection, batched over the
// heads, is one call:
//   problem p{tokens, 512, 128, layout::k_contiguous};
//   p.strides = {.lda = heads * 192, .ldc = heads * 576};       // q [tokens][heads][192], out [tokens][heads][576]
//   p.batch = {.count = heads, .a = 192, .b = 512 * 128, .c = 576};
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "wavekit/block/splitk_rule.hpp"
#include "wavekit/core/gemm_shape.hpp"
#include "wavekit/core/gemm_view.hpp"
#include "wavekit/core/layout.hpp"
#include "wavekit/core/numeric_types.hpp"
#include "wavekit/core/status.hpp"

namespace wavekit::ops::gemm_half {

struct problem {
  problem(int m_, int n_, int k_, layout order_) : m(m_), n(n_), k(k_), order(order_) {}
  int m, n, k;
  layout order;
  gemm_strides strides = {};  // 0: packed
  gemm_batch batch = {};      // one GEMM
  std::string str() const {
    return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) + " " + to_string(order) +
           to_string(strides, batch);
  }
  gemm_views views() const { return gemm_views::of(m, n, k, order, strides); }
};

// T: bf16 or fp16 (A and B); Out: bf16, fp16 or float (C).
template <class T, class Out>
struct args {
  static_assert(std::is_same_v<T, bf16> || std::is_same_v<T, fp16>, "gemm_half: A and B are bf16 or fp16");
  static_assert(std::is_same_v<Out, bf16> || std::is_same_v<Out, fp16> || std::is_same_v<Out, float>,
                "gemm_half: C is bf16, fp16 or float");
  const T* a = nullptr;
  const T* b = nullptr;
  Out* c = nullptr;
  void* workspace = nullptr;  // fp32 split-K partials; see workspace_bytes
  std::size_t workspace_bytes = 0;
};

// Bytes of fp32 partials a launch with `splits` needs (0 without split-K): C's extent over the batch
// once a split (block/gemm_epilogue.hpp).
inline std::size_t workspace_bytes(const problem& p, int splits) {
  return block::splitk_view_workspace_bytes(p, splits);
}

// The problem's own rules; queries (plan, workspace) answer only problems that pass them. `op`
// names the op in the statuses (an op built on this GEMM: ops/gemm_bias_act/).
inline status validate_shape(const problem& p, const char* op = "gemm_half") {
  const auto what = lazy([&] { return std::string(op) + " " + p.str() + ": "; });
  // 16-byte loads of 2-byte A and B; C's split-K partials (fp32, C's layout) take 16-byte loads and
  // its bf16 / fp16 values 8-byte stores in the reduction.
  return check_gemm_shape(what, p.m, p.n, p.k, p.order, p.strides, p.batch,
                          {.n_multiple = 16,
                           .k_multiple = 8,
                           .k_why = "16-byte rows of K",
                           .mn_m_multiple = 16,
                           .mn_m_why = "vector loads along M"},
                          {16, 16, 32, 8, 8, 4});
}

// Shape and argument checks, before any launch. Each pointer status names the argument.
template <class T, class Out>
status validate(const problem& p, const args<T, Out>& a) {
  if (status s = validate_shape(p); !s.ok()) return s;
  if (p.m == 0) return status::success();  // empty: nothing is read or written, no pointer is checked
  const auto what = lazy([&] { return "gemm_half " + p.str() + ": "; });
  return check_pointer_arguments(what,
                                 {{"a", a.a, 16, "16-byte vector loads"},
                                  {"b", a.b, 16, "16-byte vector loads"},
                                  {"c", a.c, sizeof(Out) == 4 ? 16u : 8u, "vector stores of the split-K reduction"}});
}

}  // namespace wavekit::ops::gemm_half
