// Whether the MoE layer (wavekit::moe) runs a problem on a target, without HIP: success, or the
// status the launch returns for it with valid pointers and workspace, same code, same text.
//
//   namespace moe = wavekit::ops::moe;
//   wavekit::status s = moe::supports<moe::blockscale_args<wavekit::bf16, wavekit::fp8_e4m3fn>>(p, t);
//   s = moe::supports<moe::mxfp4_args<wavekit::bf16>>(p, wavekit::arch::target::gfx950, moe::b_layout::preshuffled);
//   s = moe::supports(p, mx_call_args, wavekit::arch::target::gfx950);  // and its storage: pads, sizes
//   s = moe::supports<moe::batched_args<wavekit::bf16>>(batched, t);          // wavekit::moe_batched
//   s = moe::supports(routing, moe::grouped_sigmoid_topk{8, 4}, t);         // wavekit::moe_route
//
// The weights' form is the call's argument type, as in the one-call overloads: args<T> (bf16 /
// fp16), blockscale_args<T, Fp8> (fp8 with 128x128 scales), mx_args<T, Elem> (MXFP4 / MXFP8; with
// a layout, mx_args::weight_layout). The rules are the launch's own functions: the form's shape
// rules, the sort's at the M tile the plan picks, and the target's (the fp8 format it reads; MX
// weights on gfx950 only). The batched layout's rules are its shape rules (with whole 128x128
// scale blocks for fp8 weights) and the target's; routing's are its rule's and the target's.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <type_traits>

#include "wavekit/arch/target_checks.hpp"
#include "wavekit/ops/moe/batched_problem.hpp"
#include "wavekit/ops/moe/mx_storage.hpp"
#include "wavekit/ops/moe/plan.hpp"
#include "wavekit/ops/moe/problem.hpp"
#include "wavekit/ops/moe/routing.hpp"
#include "wavekit/ops/moe/sort.hpp"

namespace wavekit::ops::moe {

namespace detail {

// The weights' form of an argument type, and whether it is the batched layout's.
template <class Args>
struct form_of {
  static_assert(!std::is_same_v<Args, Args>,
                "moe::supports: Args is args<T>, blockscale_args<T, Fp8> or mx_args<T, Elem>; for a "
                "batched_problem, batched_args<T> or batched_blockscale_args<T, Fp8>");
};
template <class T>
struct form_of<args<T>> {
  static constexpr weight_format weights = weight_format::half;
  static constexpr bool batched = false;
  using activation = T;
};
template <class T, class Fp8>
struct form_of<blockscale_args<T, Fp8>> {
  static constexpr weight_format weights = weight_format::fp8_blockscale;
  static constexpr bool batched = false;
  using activation = T;
  using fp8 = Fp8;
};
template <class T, class Elem>
struct form_of<mx_args<T, Elem>> {
  static constexpr weight_format weights = mx_weight_format<Elem>;
  static constexpr bool batched = false;
  using activation = T;
  using element = Elem;
};
template <class T>
struct form_of<batched_args<T>> {
  static constexpr weight_format weights = weight_format::half;
  static constexpr bool batched = true;
  using activation = T;
};
template <class T, class Fp8>
struct form_of<batched_blockscale_args<T, Fp8>> {
  static constexpr weight_format weights = weight_format::fp8_blockscale;
  static constexpr bool batched = true;
  using activation = T;
  using fp8 = Fp8;
};

// The sort's rules and the down projection's rows at the M tile of the config the launch picks
// (every form's configs share the bf16 / fp16 configs' M tiles: ops/moe/plan.hpp and kernel_mx.hpp
// assert it).
inline status check_sort(const problem& p, weight_format weights, arch::target t) {
  return validate_layer_rows(p, block_m_of(choose_config(p, weights, t)));
}

}  // namespace detail

// Args: the call's argument type (the weights' form). layout: MX weights' (mx_args::weight_layout);
// the other forms have one layout, b_layout::plain.
template <class Args>
status supports(const problem& p, arch::target t, b_layout layout = b_layout::plain) {
  using form = detail::form_of<Args>;
  static_assert(!form::batched, "moe::supports: batched_args go with a batched_problem");
  const auto what = lazy([&] { return "moe " + p.str() + ": "; });
  if constexpr (form::weights == weight_format::half) {
    if (status s = validate_shape(p); !s.ok()) return s;
    if (status s = detail::check_sort(p, form::weights, t); !s.ok()) return s;
    if (status s = arch::check_kernel_target(lazy([&] { return "moe " + p.str(); }), t); !s.ok()) return s;
  } else if constexpr (form::weights == weight_format::fp8_blockscale) {
    if (status s = validate_blockscale_shape(p); !s.ok()) return s;
    if (status s = arch::check_fp8_format<typename form::fp8>(t, "moe"); !s.ok()) return s;
    if (status s = detail::check_sort(p, form::weights, t); !s.ok()) return s;
  } else {
    if (status s = validate_mx_shape(p); !s.ok()) return s;
    if (status s = detail::check_sort(p, form::weights, t); !s.ok()) return s;
    if (status s = check_mx_layout<typename form::element>(what, layout); !s.ok()) return s;
    return check_mx_target(p, t);
  }
  if (layout != b_layout::plain)
    return {status_code::bad_format, what + "only MX weights have a pre-shuffled layout (mx_args::weight_layout)"};
  return status::success();
}

// MX weights with the call's arguments (mx_args: layout, rounding, pads, declared sizes; its pointers
// are not read): the rules above, and the storage rules (ops/moe/mx_storage.hpp) before the
// target's, in the launch's order.
template <class T, class Elem>
status supports(const problem& p, const mx_args<T, Elem>& a, arch::target t) {
  const auto what = lazy([&] { return "moe " + p.str() + ": "; });
  if (status s = validate_mx_shape(p); !s.ok()) return s;
  if (status s = detail::check_sort(p, mx_weight_format<Elem>, t); !s.ok()) return s;
  if (status s = check_mx_layout<Elem>(what, a.weight_layout); !s.ok()) return s;
  if (status s = check_mx_rounding(what, a.rounding); !s.ok()) return s;
  if (status s = check_mx_storage(what, p, a); !s.ok()) return s;
  return check_mx_target(p, t);
}

// The batched expert-parallel layout (wavekit::moe_batched). Args: batched_args<T> or
// batched_blockscale_args<T, Fp8>. (The config it picks always has an M tile dividing max_tokens.)
template <class Args>
status supports(const batched_problem& p, arch::target t) {
  using form = detail::form_of<Args>;
  static_assert(form::batched, "moe::supports: a batched_problem goes with batched_args or batched_blockscale_args");
  if constexpr (form::weights == weight_format::half) {
    if (status s = validate_batched_shape(p); !s.ok()) return s;
    return arch::check_kernel_target(lazy([&] { return "moe (batched) " + p.str(); }), t);
  } else {
    if (status s = validate_batched_blockscale_shape(p); !s.ok()) return s;
    return arch::check_fp8_format<typename form::fp8>(t, "moe (batched)");
  }
}

// Routing (wavekit::moe_route) with a rule, softmax_topk or grouped_sigmoid_topk; any logit type
// routing_args takes. The correction bias is data, like the other pointers.
template <class Rule>
status supports(const routing_problem& p, const Rule& rule, arch::target t) {
  if (status s = validate_rule(p, rule); !s.ok()) return s;
  return arch::check_kernel_target(lazy([&] { return "moe routing " + p.str(); }), t);
}

}  // namespace wavekit::ops::moe
