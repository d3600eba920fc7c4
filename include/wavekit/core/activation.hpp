// The elementwise functions a GEMM epilogue applies to its fp32 results (block/epilogue_fused.hpp),
// one definition for the kernels and the host references, in fp32 and in the order written:
//
//   identity    x
//   relu        x < 0 ? 0 : x                          (NaN stays NaN)
//   silu        x / (1 + e^-x)                         (core/silu.hpp's SiLU(x) * 1)
//   gelu_erf    (0.5 x) (1 + erf(x / sqrt 2))          x / sqrt 2 as x * 0.70710678f
//   gelu_tanh   (0.5 x) (1 + tanh(b (x + 0.044715 x^3)))   b = sqrt(2 / pi), x^3 as (x x) x
//
// The two GELUs are PyTorch's torch.nn.functional.gelu (approximate 'none' and 'tanh'), whose
// kernels compute them in fp32 for bf16 and fp16 tensors in these orders. e^x, erf and tanh are the
// calling code's: the host C library's in host code, the device library's in device code (the
// emulator runs the host's), which differ by an ulp or two for some arguments; tests allow that.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <cmath>
#include <string_view>
#include <type_traits>

#include "wavekit/core/platform.hpp"
#include "wavekit/core/silu.hpp"

namespace wavekit {

enum class activation { identity, relu, silu, gelu_erf, gelu_tanh };

constexpr std::string_view to_string(activation a) {
  switch (a) {
    case activation::identity: return "identity";
    case activation::relu: return "relu";
    case activation::silu: return "silu";
    case activation::gelu_erf: return "gelu_erf";
    case activation::gelu_tanh: return "gelu_tanh";
  }
  return "?";
}

template <activation Act, class Exp = plain_expf>
WAVEKIT_HOST_DEVICE WAVEKIT_FORCEINLINE float activate(float x, Exp exp = {}) {
  if constexpr (Act == activation::identity) {
    return x;
  } else if constexpr (Act == activation::relu) {
    return x < 0.0f ? 0.0f : x;
  } else if constexpr (Act == activation::silu) {
    return silu_times(x, 1.0f, exp);
  } else if constexpr (Act == activation::gelu_erf) {
    return (0.5f * x) * (1.0f + erff(x * 0.70710678118654752f));
  } else {
    static_assert(Act == activation::gelu_tanh, "activate: an activation this header does not define");
    const float inner = 0.79788456080286536f * (x + 0.044715f * ((x * x) * x));
    return (0.5f * x) * (1.0f + tanhf(inner));
  }
}

// The gated forms y = f(gate, up) of a pair block's epilogue (block/gate_up_pair.hpp), in fp32 and
// in the order written:
//
//   gate_silu            SiLU(g) * u                         core/silu.hpp: g / (1 + e^-g) * u
//   gate_swiglu_clamped  g' = min(g, limit), u' = clamp(u, -limit, limit),
//                        (g' * s) * (u' + 1), s = 1 / (1 + e^(-alpha g'))
//
// gate_swiglu_clamped is gpt-oss's SwiGLU (its published model definition: alpha 1.702, limit 7,
// sigmoid then two products); the clamps keep NaN (as torch.clamp does).
struct gate_silu {
  template <class Exp = plain_expf>
  WAVEKIT_HOST_DEVICE WAVEKIT_FORCEINLINE float operator()(float g, float u, Exp exp = {}) const {
    return silu_times(g, u, exp);
  }
};
struct gate_swiglu_clamped {
  float alpha, limit;
  template <class Exp = plain_expf>
  WAVEKIT_HOST_DEVICE WAVEKIT_FORCEINLINE float operator()(float g, float u, Exp exp = {}) const {
    const float gc = g > limit ? limit : g;
    const float uc = u > limit ? limit : (u < -limit ? -limit : u);
    const float s = 1.0f / (1.0f + exp(-alpha * gc));
    return (gc * s) * (uc + 1.0f);
  }
};

// f(std::integral_constant<activation, a>) for a run-time a.
template <class F>
decltype(auto) with_activation(activation a, F&& f) {
  switch (a) {
    case activation::relu: return f(std::integral_constant<activation, activation::relu>{});
    case activation::silu: return f(std::integral_constant<activation, activation::silu>{});
    case activation::gelu_erf: return f(std::integral_constant<activation, activation::gelu_erf>{});
    case activation::gelu_tanh: return f(std::integral_constant<activation, activation::gelu_tanh>{});
    default: return f(std::integral_constant<activation, activation::identity>{});
  }
}

}  // namespace wavekit
