// SwiGLU + fp8 quantization, host side: problem, arguments, validation.
//
// Per row t of x [tokens][2 * d] (bf16 or fp16), laid out [gate | up]:
//
//   y[t][c] = SiLU(gate[t][c]) * up[t][c]      fp32, core/silu.hpp (g / (1 + e^-g) * u)
//   q       = fp8 of y, per tensor (q = saturate(y / scale), the caller's fp32 scale) or per
//             1x128 group (scale = amax / max_finite; the block-scaled GEMM's A and a_scale),
//             stored in either storage order of that GEMM's A (core/scale_granularity.hpp,
//             block/quantize_fp8_row.hpp)
//
// y is quantized from fp32 as computed (never rounded to x's type first). Legal problems:
// tokens >= 1; d a positive multiple of 8 (of 128 for 1x128 scales); a per-tensor scale finite and
// > 0; every tensor's extent within 2^31 - 1 bytes (32-bit buffer offsets). NaN and Inf propagate
// by IEEE arithmetic through the formula (core/silu.hpp lists the cases; docs/glue.md).
//
// Row strides (core/row_view.hpp; 0: packed): x's token rows of [gate | up] may be x_stride
// elements apart (a multiple of 8: 16-byte loads), a fused projection's output with padding after
// its 2 * d columns; q's rows as stored are q_stride apart: its token rows in the k_contiguous order
// (a multiple of 8: 8-byte stores), its d rows of tokens codes in the mn_contiguous order (any
// stride: byte stores). The 1x128 scales stay packed. Elements between the rows are never read or
// written.
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

namespace wavekit::ops::swiglu_quant {

using wavekit::scale_granularity;  // the scale kinds every op shares

inline constexpr int row_threads = 256;  // a row's workgroup

struct problem {
  // No defaults: the scale kind and the storage order are the caller's statement.
  problem(int tokens_, int d_, scale_granularity out_scales_, layout order_)
      : tokens(tokens_), d(d_), out_scales(out_scales_), order(order_) {}

  int tokens, d;                 // x is [tokens][2 * d], q [tokens][d] (or [d][tokens])
  scale_granularity out_scales;  // of q: tensor (the caller's scale) or group_1x128
  layout order;                  // of q and its 1x128 scales
  std::int64_t x_stride = 0;     // elements between x's token rows; 0: packed (2 * d)
  std::int64_t q_stride = 0;     // elements between q's rows as stored (tokens or d rows); 0: packed

  std::string str() const {
    return std::to_string(tokens) + "x" + std::to_string(d) + " " + "scales " + std::string(to_string(out_scales)) +
           " " + to_string(order) + to_string(x_view()) + to_string(q_view());
  }

  // The tensors as views, with the kernel's rules for their strides (its vector loads and stores).
  row_view x_view() const {
    return {"x", x_stride, tokens, std::int64_t(2) * d, "tokens", "2 * d", 2, 8, "16-byte vector loads"};
  }
  row_view q_view() const {
    return order == layout::k_contiguous
               ? row_view{"q", q_stride, tokens, d, "tokens", "d", 1, 8, "8-byte vector stores"}
               : row_view{"q", q_stride, d, tokens, "d", "tokens", 1, 1, "byte stores"};
  }
};

template <class T, class Fp8>
struct args {
  const T* x = nullptr;      // [tokens][x_stride]: gate (d), then up (d)
  Fp8* q = nullptr;          // [tokens][q_stride] (k_contiguous) or [d][q_stride] (mn_contiguous)
  float* q_scale = nullptr;  // group_1x128: [tokens][d / 128] or [d / 128][tokens]; per_tensor: unused
  float scale = 1.0f;        // per_tensor: q = saturate(y / scale)
};

// The problem's own rules, with the per-tensor scale.
inline status validate_shape(const problem& p, float scale) {
  const auto what = lazy([&] { return "swiglu_quant " + p.str() + ": "; });
  if (p.tokens < 0) return {status_code::bad_shape, what + "tokens must be >= 0 (0: nothing to do)"};
  if (p.d <= 0 || p.d % 8)
    return {status_code::bad_shape, what + "d must be a positive multiple of 8 (16-byte gate and up rows)"};
  if (p.out_scales != scale_granularity::tensor && p.out_scales != scale_granularity::group_1x128)
    return {status_code::bad_format, what + "out_scales must be scale_granularity::tensor or group_1x128"};
  if (p.out_scales == scale_granularity::group_1x128 && p.d % 128)
    return {status_code::bad_shape, what + "d must be a multiple of 128 for 1x128 scales"};
  if (p.order != layout::k_contiguous && p.order != layout::mn_contiguous)
    return {status_code::bad_shape, what + "order must be layout::k_contiguous or layout::mn_contiguous"};
  if (p.out_scales == scale_granularity::tensor && (!std::isfinite(scale) || !(scale > 0.0f)))
    return {status_code::bad_shape, what + "the per-tensor scale must be finite and positive"};
  // The 1x128 scales, packed, are smaller than x.
  if (status s = check_row_view(what, p.x_view()); !s.ok()) return s;
  return check_row_view(what, p.q_view());
}

// Every check, before any launch; each status names the op, the problem, the argument and the rule.
template <class T, class Fp8>
status validate(const problem& p, const args<T, Fp8>& a) {
  if (status s = validate_shape(p, a.scale); !s.ok()) return s;
  if (p.tokens == 0) return status::success();  // empty: nothing is read or written, no pointer is checked
  const auto what = lazy([&] { return "swiglu_quant " + p.str() + ": "; });
  if (status s = check_pointer_arguments(
          what, {{"x", a.x, 16, "16-byte vector loads"},
                 {"q", a.q, p.order == layout::k_contiguous ? 8u : 1u, "8-byte vector stores"}});
      !s.ok())
    return s;
  if (p.out_scales == scale_granularity::group_1x128)
    if (status s = check_pointer_arguments(what, {{"q_scale", a.q_scale, 4, "fp32"}}); !s.ok()) return s;
  return status::success();
}

}  // namespace wavekit::ops::swiglu_quant
