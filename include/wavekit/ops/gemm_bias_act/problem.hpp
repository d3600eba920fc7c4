// GEMM + bias + activation, host side: problem, arguments, validation (plain C++, no HIP).
//
//   C (M, N) = act(A (M, K) x B (N, K)^T + bias (N))     A, B, bias bf16 or fp16 (all one type)
//
// The GEMM is gemm_half's (its shapes, storage orders, configs and plans); the bias, the activation
// (core/activation.hpp) and C's conversion run in fp32 in its epilogue (block/epilogue_fused.hpp), once
// on the summed value with split-K. C is bf16, fp16, fp32 or the target's fp8 (saturate(y / out_scale),
// out_scale a finite positive fp32). Strides and batches are the GEMM problem's (gemm.strides,
// gemm.batch: core/gemm_view.hpp); one bias serves every GEMM of a batch.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <cmath>
#include <string>

#include "wavekit/core/activation.hpp"
#include "wavekit/core/half_convert.hpp"
#include "wavekit/core/numeric_types.hpp"
#include "wavekit/ops/gemm_half/problem.hpp"

namespace wavekit::ops::gemm_bias_act {

struct problem {
  gemm_half::problem gemm;
  activation act;
  std::string str() const { return gemm.str() + " " + std::string(to_string(act)); }
};

template <class T, class Out>
struct args {
  static_assert(std::is_same_v<T, bf16> || std::is_same_v<T, fp16>, "gemm_bias_act: A, B and bias are bf16 or fp16");
  static_assert(is_half_or_float_v<Out> || is_fp8_e4m3_v<Out>, "gemm_bias_act: C is bf16, fp16, fp32 or fp8");
  const T* a = nullptr;
  const T* b = nullptr;
  const T* bias = nullptr;  // [N]
  Out* c = nullptr;
  float out_scale = 1.0f;     // fp8 C only: the divisor
  void* workspace = nullptr;  // fp32 split-K partials: gemm_half::workspace_bytes
  std::size_t workspace_bytes = 0;
};

// The problem's own rules (gemm_half's shapes under this op's name, the activation).
inline status validate_problem(const problem& p) {
  if (status s = gemm_half::validate_shape(p.gemm, "gemm_bias_act"); !s.ok()) return s;
  if (p.act != activation::identity && p.act != activation::relu && p.act != activation::silu &&
      p.act != activation::gelu_erf && p.act != activation::gelu_tanh)
    return {status_code::bad_config, "gemm_bias_act " + p.str() + ": act must be one of wavekit::activation's values"};
  return status::success();
}

template <class T, class Out>
status validate(const problem& p, const args<T, Out>& a) {
  if (status s = validate_problem(p); !s.ok()) return s;
  const auto what = lazy([&] { return "gemm_bias_act " + p.str() + ": "; });
  if (is_fp8_e4m3_v<Out> && !(std::isfinite(a.out_scale) && a.out_scale > 0.0f))
    return {status_code::bad_shape, what + "argument out_scale must be finite and > 0 (C is fp8)"};
  if (p.gemm.m == 0) return status::success();  // empty: nothing is read or written
  return check_pointer_arguments(what, {{"a", a.a, 16, "16-byte vector loads"},
                                        {"b", a.b, 16, "16-byte vector loads"},
                                        {"bias", a.bias, sizeof(T), "element loads"},
                                        {"c", a.c, 4 * sizeof(Out), "4-element stores of the split-K reduction"}});
}

}  // namespace wavekit::ops::gemm_bias_act
