// The scaled fp8 GEMM, host side: problem, arguments, validation (plain C++, no HIP).
//
//   C (M, N) = (A (M, K) x B (N, K)^T) * a_scale * b_scale,  fp32 accumulation,
//   A and B fp8 (e4m3fnuz on gfx942, OCP e4m3fn on gfx950), C bf16 or fp16,
//   a_scale: one fp32 for the tensor, or one per row of A ([M]);
//   b_scale: one fp32 for the tensor, or one per column of C, i.e. per row of B ([N]).
//
// Two storage orders, both read directly:
//   layout::k_contiguous   A [M][K], B [N][K]
//   layout::mn_contiguous  A [K][M], B [K][N]
// Legal shapes: M >= 1, N and K multiples of 16; in the mn_contiguous order M must also be a
// multiple of 16 (vector loads along M). The storage order and the scale granularities have no
// defaults.
//
// Views and batches (core/gemm_view.hpp): lda and ldb multiples of 16 (16-byte loads of fp8), ldc
// a multiple of 4, batch strides multiples of the same. In a batch each operand's scales follow it:
// GEMM i's are a_scale + i x (1 or M) and b_scale + i x (1 or N), the same for every GEMM where the
// operand's batch stride is 0.
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
#include "wavekit/core/scale_granularity.hpp"
#include "wavekit/core/status.hpp"

namespace wavekit::ops::gemm_fp8_scaled {

using wavekit::scale_granularity;

struct problem {
  problem(int m_, int n_, int k_, layout order_, scale_granularity a_scales_, scale_granularity b_scales_)
      : m(m_), n(n_), k(k_), order(order_), a_scales(a_scales_), b_scales(b_scales_) {}
  int m, n, k;
  layout order;
  scale_granularity a_scales, b_scales;  // per tensor, or per row of A / per column of C
  gemm_strides strides = {};             // 0: packed
  gemm_batch batch = {};                 // one GEMM
  std::string str() const {
    return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) + " " + to_string(order) +
           to_string(strides, batch) + ", scales " + to_string(a_scales) + "/" + to_string(b_scales);
  }
  gemm_views views() const { return gemm_views::of(m, n, k, order, strides); }
};

// Fp8: the device's fp8 format; Out: bf16 or fp16.
template <class Fp8, class Out>
struct args {
  static_assert(std::is_same_v<Out, bf16> || std::is_same_v<Out, fp16>, "gemm_fp8_scaled: C is bf16 or fp16");
  static_assert(std::is_same_v<Fp8, fp8_e4m3fnuz> || std::is_same_v<Fp8, fp8_e4m3fn>,
                "gemm_fp8_scaled: A and B are fp8 e4m3fnuz (gfx942) or e4m3fn (gfx950); bf8 (e5m2) is not an "
                "operand format of this op");
  const Fp8* a = nullptr;
  const Fp8* b = nullptr;
  const float* a_scale = nullptr;
  const float* b_scale = nullptr;
  Out* c = nullptr;
  void* workspace = nullptr;  // fp32 split-K partials; see workspace_bytes
  std::size_t workspace_bytes = 0;
};

inline std::size_t workspace_bytes(const problem& p, int splits) {
  return block::splitk_view_workspace_bytes(p, splits);
}

inline status validate_shape(const problem& p) {
  const auto what = lazy([&] { return "gemm_fp8_scaled " + p.str() + ": "; });
  constexpr gemm_shape_rules rules{.n_multiple = 16,
                                   .k_multiple = 16,
                                   .k_why = "16-byte rows of K",
                                   .mn_m_multiple = 16,
                                   .mn_m_why = "vector loads along M"};
  // The shape steps of core/gemm_shape.hpp, then the scales' granularities before the views.
  if (status s = check_gemm_shape_steps(what, p.m, p.n, p.k, p.order, rules); !s.ok()) return s;
  for (scale_granularity g : {p.a_scales, p.b_scales})
    if (g != scale_granularity::tensor && g != scale_granularity::row)
      return {status_code::bad_format, what + "a_scales and b_scales must be scale_granularity::tensor or row"};
  // 16-byte loads of fp8 A and B; C's split-K partials (fp32, C's layout) and 8-byte stores.
  return check_gemm_views(what, p.m, p.n, p.k, p.order, p.strides, p.batch, {8, 8, 32, 16, 16, 4});
}

template <class Fp8, class Out>
status validate(const problem& p, const args<Fp8, Out>& a) {
  if (status s = validate_shape(p); !s.ok()) return s;
  if (p.m == 0) return status::success();  // empty: nothing is read or written, no pointer is checked
  const auto what = lazy([&] { return "gemm_fp8_scaled " + p.str() + ": "; });
  return check_pointer_arguments(what, {{"a", a.a, 16, "16-byte vector loads"},
                                        {"b", a.b, 16, "16-byte vector loads"},
                                        {"a_scale", a.a_scale, 4, "fp32"},
                                        {"b_scale", a.b_scale, 4, "fp32"},
                                        {"c", a.c, 8, "vector stores of the split-K reduction"}});
}

}  // namespace wavekit::ops::gemm_fp8_scaled
