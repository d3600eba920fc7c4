// The shape rules the GEMM problems share, with the statuses they return: M >= 0 with N and K
// positive, N and K multiples of what the op's tile loads need, a known storage order, and in the
// mn_contiguous order M a multiple of the vector loads along it; then the views (gemm_view.hpp).
// check_gemm_shape runs them all in that order. An op with checks of its own between the steps (a
// format, scale granularities) calls the steps one by one around them: the order of the checks
// decides which status a problem breaking two rules gets, and an op keeps its order.
//
//   gemm_half:  {.n_multiple = 16, .k_multiple = 8, .k_why = "16-byte rows of K",
//                .mn_m_multiple = 16, .mn_m_why = "vector loads along M"}
//   "gemm_half 64x64x252 k_contiguous: K must be a multiple of 8 (16-byte rows of K)"
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <string>

#include "wavekit/core/gemm_view.hpp"
#include "wavekit/core/layout.hpp"
#include "wavekit/core/lazy_text.hpp"
#include "wavekit/core/status.hpp"

namespace wavekit {

// An op's multiples: of N, of K (k_why: what needs it), and of M in the mn_contiguous order
// (mn_m_why), where A's rows run along M; an op reading only k_contiguous leaves the last two.
struct gemm_shape_rules {
  int n_multiple;
  int k_multiple;
  const char* k_why;
  int mn_m_multiple = 1;
  const char* mn_m_why = "";
};

// `what` names the op and the problem, ending in ": " ("gemm_half 64x40x256 k_contiguous: ").
inline status check_gemm_sizes(text_ref what, int m, int n, int k) {
  if (m < 0 || n <= 0 || k <= 0)
    return {status_code::bad_shape, what + "M must be >= 0 (0: nothing to do), N and K positive"};
  return status::success();
}

inline status check_gemm_multiples(text_ref what, int n, int k, const gemm_shape_rules& rules) {
  if (n % rules.n_multiple)
    return {status_code::bad_shape, what + "N must be a multiple of " + std::to_string(rules.n_multiple)};
  if (k % rules.k_multiple)
    return {status_code::bad_shape,
            what + "K must be a multiple of " + std::to_string(rules.k_multiple) + " (" + rules.k_why + ")"};
  return status::success();
}

// The order's value: a layout read from a cast integer is neither.
inline status check_gemm_order(text_ref what, layout order) {
  if (order != layout::k_contiguous && order != layout::mn_contiguous)
    return {status_code::bad_shape, what + "order must be layout::k_contiguous or layout::mn_contiguous"};
  return status::success();
}

inline status check_gemm_mn_order_m(text_ref what, int m, layout order, const gemm_shape_rules& rules) {
  if (order == layout::mn_contiguous && m % rules.mn_m_multiple)
    return {status_code::bad_alignment, what + "in the mn_contiguous order M must be a multiple of " +
                                            std::to_string(rules.mn_m_multiple) + " (" + rules.mn_m_why +
                                            "); use k_contiguous"};
  return status::success();
}

// Every step above in order: the first rule broken, or success. An op with rules of its own
// (its scales) checks them between these and the views.
inline status check_gemm_shape_steps(text_ref what, int m, int n, int k, layout order, const gemm_shape_rules& rules) {
  if (status s = check_gemm_sizes(what, m, n, k); !s.ok()) return s;
  if (status s = check_gemm_multiples(what, n, k, rules); !s.ok()) return s;
  if (status s = check_gemm_order(what, order); !s.ok()) return s;
  return check_gemm_mn_order_m(what, m, order, rules);
}

// The steps, then the views' rules (gemm_view.hpp).
inline status check_gemm_shape(text_ref what, int m, int n, int k, layout order, const gemm_strides& strides,
                               const gemm_batch& batch, const gemm_shape_rules& rules,
                               const gemm_view_rules& view_rules) {
  if (status s = check_gemm_shape_steps(what, m, n, k, order, rules); !s.ok()) return s;
  return check_gemm_views(what, m, n, k, order, strides, batch, view_rules);
}

}  // namespace wavekit
