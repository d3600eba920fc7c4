// Residual add + RMSNorm + fp8 quantization, host side: problem, arguments, validation.
//
// Per row t of [tokens][hidden] (bf16 or fp16 T), in one pass (Hugging Face hf-rocm-kernels'
// reference semantics):
//
//   x        = T(x[t] + residual[t])         residual_mode::add: written back into residual[t]
//                                            (residual_mode::none: x = x[t], no residual)
//   rstd     = 1 / sqrt(sum(x^2) / hidden + eps)      fp32 (the sum's order: block/row_octets.hpp)
//   y        = T(T(x * rstd) * weight)        the normalized row cast to the weight's type T, then
//                                            times the weight, rounded to T
//   q        = fp8 of y, per tensor (q = saturate(y / scale), the caller's fp32 scale) or per
//              1x128 group (scale = amax / max_finite; the block-scaled GEMM's A and a_scale),
//              stored in either storage order of that GEMM's A (core/scale_granularity.hpp,
//              block/quantize_fp8_row.hpp)
//
// Legal problems: tokens >= 1; hidden a multiple of 8 up to 16384 (a multiple of 128 for 1x128
// scales); eps finite and >= 0; a per-tensor scale finite and > 0; every tensor's extent within
// 2^31 - 1 bytes (32-bit buffer offsets). NaN and Inf propagate by IEEE arithmetic through these
// formulas (docs/glue.md): a NaN anywhere in a row makes the whole row NaN; an Inf gives rstd = 0,
// so the row's finite values become 0 and its Infs NaN.
//
// Row strides (core/row_view.hpp; 0: packed): x and the residual may be views of wider rows,
// x_stride and residual_stride elements apart (multiples of 8: 16-byte loads and stores); q's rows
// as stored are q_stride apart: its token rows in the k_contiguous order (a multiple of 8: 8-byte
// stores), its hidden rows of tokens codes in the mn_contiguous order (any stride: byte stores).
// The 1x128 scales stay packed. Elements between the rows are never read or written:
//   rq::problem p{tokens, 7168, scale_granularity::group_1x128, layout::k_contiguous, residual_mode::add};
//   p.x_stride = 7168 + 128;  // x: the first 7168 columns of a [tokens][7296] buffer
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <cmath>
#include <cstdint>
#include <string>

#include "wavekit/core/layout.hpp"
#include "wavekit/core/numeric_types.hpp"
#include "wavekit/core/row_view.hpp"
#include "wavekit/core/scale_granularity.hpp"
#include "wavekit/core/status.hpp"

namespace wavekit::ops::rmsnorm_quant {

using wavekit::scale_granularity;  // the scale kinds every op shares

inline constexpr int max_hidden = 16384;
inline constexpr int row_threads = 512;  // a row's workgroup (4 octets a lane); the row sum's order depends on it

enum class residual_mode { none, add };

constexpr const char* to_string(residual_mode r) { return r == residual_mode::add ? "add" : "none"; }

struct problem {
  // No defaults: the scale kind, the storage order and the residual are the caller's statement.
  problem(int tokens_, int hidden_, scale_granularity out_scales_, layout order_, residual_mode residual_)
      : tokens(tokens_), hidden(hidden_), out_scales(out_scales_), order(order_), residual(residual_) {}

  int tokens, hidden;
  scale_granularity out_scales;  // of q: tensor (the caller's scale) or group_1x128
  layout order;                  // of q and its 1x128 scales
  residual_mode residual;
  std::int64_t x_stride = 0;         // elements between x's token rows; 0: packed (hidden)
  std::int64_t residual_stride = 0;  // elements between the residual's token rows; 0: packed (hidden)
  std::int64_t q_stride = 0;         // elements between q's rows as stored (tokens or hidden rows); 0: packed

  std::string str() const {
    return std::to_string(tokens) + "x" + std::to_string(hidden) + " " + "scales " +
           std::string(to_string(out_scales)) + " " + to_string(order) + " residual " + to_string(residual) +
           to_string(x_view()) + to_string(residual_view()) + to_string(q_view());
  }

  // The tensors as views, with the kernel's rules for their strides (its vector loads and stores).
  row_view x_view() const { return {"x", x_stride, tokens, hidden, "tokens", "hidden", 2, 8, "16-byte vector loads"}; }
  row_view residual_view() const {
    return {"residual", residual_stride, tokens, hidden, "tokens", "hidden", 2, 8, "16-byte vector loads and stores"};
  }
  row_view q_view() const {
    return order == layout::k_contiguous
               ? row_view{"q", q_stride, tokens, hidden, "tokens", "hidden", 1, 8, "8-byte vector stores"}
               : row_view{"q", q_stride, hidden, tokens, "hidden", "tokens", 1, 1, "byte stores"};
  }
};

template <class T, class Fp8>
struct args {
  const T* x = nullptr;       // [tokens][x_stride]
  T* residual = nullptr;      // [tokens][residual_stride]: read, then overwritten with x + residual (add only)
  const T* weight = nullptr;  // [hidden]
  Fp8* q = nullptr;           // [tokens][q_stride] (k_contiguous) or [hidden][q_stride] (mn_contiguous)
  float* q_scale = nullptr;   // group_1x128: [tokens][hidden / 128] or [hidden / 128][tokens]; per_tensor: unused
  float scale = 1.0f;         // per_tensor: q = saturate(y / scale)
  float eps = 1e-6f;
};

// The problem's own rules, with the scalars that are part of it (eps, the per-tensor scale).
inline status validate_shape(const problem& p, float eps, float scale) {
  const auto what = lazy([&] { return "rmsnorm_quant " + p.str() + ": "; });
  if (p.tokens < 0) return {status_code::bad_shape, what + "tokens must be >= 0 (0: nothing to do)"};
  if (p.hidden <= 0 || p.hidden % 8)
    return {status_code::bad_shape, what + "hidden must be a positive multiple of 8 (16-byte rows)"};
  if (p.hidden > max_hidden)
    return {status_code::bad_shape, what + "hidden must be at most 16384 (a row stays in one workgroup's registers)"};
  if (p.out_scales != scale_granularity::tensor && p.out_scales != scale_granularity::group_1x128)
    return {status_code::bad_format, what + "out_scales must be scale_granularity::tensor or group_1x128"};
  if (p.out_scales == scale_granularity::group_1x128 && p.hidden % 128)
    return {status_code::bad_shape, what + "hidden must be a multiple of 128 for 1x128 scales"};
  if (p.order != layout::k_contiguous && p.order != layout::mn_contiguous)
    return {status_code::bad_shape, what + "order must be layout::k_contiguous or layout::mn_contiguous"};
  if (p.residual != residual_mode::none && p.residual != residual_mode::add)
    return {status_code::bad_shape, what + "residual must be residual_mode::none or residual_mode::add"};
  if (!std::isfinite(eps) || eps < 0.0f) return {status_code::bad_shape, what + "eps must be finite and >= 0"};
  if (p.out_scales == scale_granularity::tensor && (!std::isfinite(scale) || !(scale > 0.0f)))
    return {status_code::bad_shape, what + "the per-tensor scale must be finite and positive"};
  // The residual's view only where there is one (like its pointer); the 1x128 scales, packed, are
  // smaller than x.
  if (status s = check_row_view(what, p.x_view()); !s.ok()) return s;
  if (p.residual == residual_mode::add)
    if (status s = check_row_view(what, p.residual_view()); !s.ok()) return s;
  return check_row_view(what, p.q_view());
}

// Every check, before any launch; each status names the op, the problem, the argument and the rule.
template <class T, class Fp8>
status validate(const problem& p, const args<T, Fp8>& a) {
  if (status s = validate_shape(p, a.eps, a.scale); !s.ok()) return s;
  if (p.tokens == 0) return status::success();  // empty: nothing is read or written, no pointer is checked
  const auto what = lazy([&] { return "rmsnorm_quant " + p.str() + ": "; });
  if (status s = check_pointer_arguments(
          what, {{"x", a.x, 16, "16-byte vector loads"},
                 {"weight", a.weight, 16, "16-byte vector loads"},
                 {"q", a.q, p.order == layout::k_contiguous ? 8u : 1u, "8-byte vector stores"}});
      !s.ok())
    return s;
  if (p.residual == residual_mode::add)
    if (status s = check_pointer_arguments(what, {{"residual", a.residual, 16, "16-byte vector loads and stores"}});
        !s.ok())
      return s;
  if (p.out_scales == scale_granularity::group_1x128)
    if (status s = check_pointer_arguments(what, {{"q_scale", a.q_scale, 4, "fp32"}}); !s.ok()) return s;
  return status::success();
}

}  // namespace wavekit::ops::rmsnorm_quant
