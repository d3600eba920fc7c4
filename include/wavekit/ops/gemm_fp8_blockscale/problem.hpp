// The block-scaled fp8 GEMM (DeepSeek-V3 style), host side: problem, arguments, validation.
//
//   C (M, N) bf16 = sum over K blocks of 128:  a_scale(m, kb) * b_scale(n / 128, kb) *
//                                              sum_k A(m, k) * B(n, k)
// A and B are fp8 (e4m3fnuz on gfx942, e4m3fn on gfx950) with fp32 scales: one per row of A per
// 128 K (1x128), one per 128x128 block of B. Two storage orders, both read directly:
//
//   layout::k_contiguous   A [M][K], B [N][K], a_scale [M][K/128], b_scale [ceil(N/128)][K/128]
//   layout::mn_contiguous  A [K][M], B [K][N], a_scale [K/128][M], b_scale [K/128][ceil(N/128)]
//                          (the amd-fp8-mm reference problem's order)
//
// C is [M][N] row-major. Legal shapes: M >= 1, N a multiple of 16, K a multiple of 128; in the
// mn_contiguous order M must also be a multiple of 16 (its rows of A are 16-byte vector loads).
//
// The storage order has no default: a problem is always constructed with one, {m, n, k, order}.
//
// Views and batches (core/gemm_view.hpp): lda and ldb multiples of 16 (16-byte loads of fp8), ldc
// a multiple of 4, batch strides multiples of the same. The scales stay packed as above; in a
// batch each operand's scales follow it (GEMM i's a_scale + i x M x K/128, b_scale + i x
// ceil(N/128) x K/128), the same for every GEMM where the operand's batch stride is 0.
//
// Scales apply per 128-K block: C = sum_kb (a_scale * b_scale) * (the block's fp8 dot product,
// accumulated in fp32). For finite scales this equals the amd-fp8-mm reference (scales applied to
// each element before the sum) within the error bound. Non-finite scales follow IEEE arithmetic
// on those block products: an Inf scale makes a block contribute +-Inf when its dot product is
// non-zero and NaN when it is zero, a NaN scale gives NaN; the per-element reference gives NaN in
// more cases (any zero element times Inf).
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

namespace wavekit::ops::gemm_fp8_blockscale {

inline constexpr int scale_group_k = 128;  // the scale group along K (and along N for B)

struct problem {
  // No default order: the reference problem's is mn_contiguous, most libraries' k_contiguous, and
  // a wrong guess reads garbage without any error.
  problem(int m_, int n_, int k_, layout order_) : m(m_), n(n_), k(k_), order(order_) {}

  int m, n, k;
  layout order;
  gemm_strides strides = {};  // 0: packed
  gemm_batch batch = {};      // one GEMM

  int k_groups() const { return k / scale_group_k; }
  int n_groups() const { return (n + scale_group_k - 1) / scale_group_k; }
  std::string str() const {
    return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) + " " + to_string(order) +
           to_string(strides, batch);
  }
  gemm_views views() const { return gemm_views::of(m, n, k, order, strides); }
};

template <class Fp8>
struct args {
  static_assert(std::is_same_v<Fp8, fp8_e4m3fnuz> || std::is_same_v<Fp8, fp8_e4m3fn>,
                "gemm_fp8_blockscale: A and B are fp8 e4m3fnuz (gfx942) or e4m3fn (gfx950); bf8 (e5m2) is not an "
                "operand format of this op");
  const Fp8* a = nullptr;
  const Fp8* b = nullptr;
  const float* a_scale = nullptr;
  const float* b_scale = nullptr;
  bf16* c = nullptr;
  void* workspace = nullptr;  // fp32 split-K partials; see gemm_fp8_blockscale_workspace_bytes
  std::size_t workspace_bytes = 0;
};

// Bytes of fp32 partials a launch with `splits` needs (0 without split-K).
inline std::size_t workspace_bytes(const problem& p, int splits) {
  return block::splitk_view_workspace_bytes(p, splits);
}

// The problem's own rules (sizes, multiples, 32-bit buffer offsets); queries such as the plan and
// the workspace size answer only problems that pass them.
inline status validate_shape(const problem& p) {
  const auto what = lazy([&] { return "gemm_fp8_blockscale " + p.str() + ": "; });
  constexpr gemm_shape_rules rules{.n_multiple = 16,
                                   .k_multiple = scale_group_k,
                                   .k_why = "the scale group",
                                   .mn_m_multiple = 16,
                                   .mn_m_why = "16-byte rows of A"};
  // The shape steps of core/gemm_shape.hpp, then A's scales' bytes before the views.
  if (status s = check_gemm_shape_steps(what, p.m, p.n, p.k, p.order, rules); !s.ok()) return s;
  // Buffer loads address each tensor with 32-bit byte offsets: A's scales too.
  constexpr std::size_t limit = std::numeric_limits<std::int32_t>::max();
  if (std::size_t(p.m) * p.k_groups() * 4 > limit)
    return {status_code::too_large, what + "a tensor exceeds 2^31 - 1 bytes (32-bit buffer offsets)"};
  // 16-byte loads of fp8 A and B; C's split-K partials (fp32, C's layout) and bf16 pairs.
  return check_gemm_views(what, p.m, p.n, p.k, p.order, p.strides, p.batch, {8, 8, 32, 16, 16, 4});
}

// Shape and argument checks shared by every config; run before any launch. Each pointer status
// names the argument.
template <class Fp8>
status validate(const problem& p, const args<Fp8>& a) {
  if (status s = validate_shape(p); !s.ok()) return s;
  if (p.m == 0) return status::success();  // empty: nothing is read or written, no pointer is checked
  const auto what = lazy([&] { return "gemm_fp8_blockscale " + p.str() + ": "; });
  return check_pointer_arguments(what, {{"a", a.a, 16, "16-byte vector loads"},
                                        {"b", a.b, 16, "16-byte vector loads"},
                                        {"a_scale", a.a_scale, 4, "fp32"},
                                        {"b_scale", a.b_scale, 4, "fp32"},
                                        {"c", a.c, 4, "bf16 pairs"}});
}

}  // namespace wavekit::ops::gemm_fp8_blockscale
