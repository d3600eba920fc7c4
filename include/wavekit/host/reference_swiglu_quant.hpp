// Host reference of SwiGLU + fp8 quantization (ops/swiglu_quant/problem.hpp), bit for bit the
// kernel's arithmetic:
//
//   y[t][c] = silu_times(gate[t][c], up[t][c])     core/silu.hpp: g / (1 + e^-g) * u, fp32
//   q       = host/quantize_fp8_rows.hpp's rule on y (y quantized from fp32, never rounded to T)
//
// The gating is the one definition the kernel and MoE's epilogue use, so the reference and the
// kernel agree exactly wherever their e^x does. The reference's is `exp`: plain expf (the host C
// library's) unless the caller passes another; the kernel's is the device library's expf (on the
// emulator its model, emu/device_math.hpp), within an ulp of the host's (docs/glue.md). A test of
// the emulator passes the emulator's model and compares bit for bit.
//
// NaN and Inf, by IEEE arithmetic through the formula (no special cases): gate +Inf gives +-Inf
// (times up's sign), gate -Inf gives NaN (-Inf / Inf; not SiLU's limit 0), NaN in gate or up gives
// NaN, up +-Inf gives +-Inf unless gate is 0 (NaN). The fp8 step: NaN stays NaN, +-Inf saturates
// per tensor; in a 1x128 group an Inf makes the scale Inf (the group's finite values 0, its Infs
// NaN) and NaN is never the amax.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <cstddef>
#include <span>
#include <stdexcept>
#include <vector>

#include "wavekit/core/half_convert.hpp"
#include "wavekit/core/numeric_types.hpp"
#include "wavekit/core/scale_granularity.hpp"
#include "wavekit/core/silu.hpp"
#include "wavekit/host/quantize_fp8_rows.hpp"

namespace wavekit::host {

template <class Fp8>
struct swiglu_quant_result {
  std::vector<float> y;  // [tokens][d]: the values quantized
  fp8_rows<Fp8> out;     // q and its scales, k_contiguous order
};

// x [tokens][2 * d] as T: gate, then up. exp: e^x of the SiLU (a callable float -> float).
template <class T, class Fp8, class Exp = plain_expf>
swiglu_quant_result<Fp8> reference_swiglu_quant(std::span<const T> x, int tokens, int d, scale_granularity scaling,
                                                float scale, Exp exp = {}) {
  if (x.size() != std::size_t(tokens) * 2 * d) throw std::invalid_argument("reference_swiglu_quant: x is tokens x 2d");
  swiglu_quant_result<Fp8> r;
  r.y.resize(std::size_t(tokens) * d);
  for (int t = 0; t < tokens; ++t)
    for (int c = 0; c < d; ++c) {
      const std::size_t row = std::size_t(t) * 2 * d;
      r.y[std::size_t(t) * d + c] = silu_times(widen_to_float(x[row + c]), widen_to_float(x[row + d + c]), exp);
    }
  r.out = quantize_fp8_rows<Fp8>(r.y, tokens, d, scaling, scale);
  return r;
}

}  // namespace wavekit::host
