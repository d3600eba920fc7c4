// MX expert weights as models store them (mx_args' storage fields), host side: the extents the
// tensors are stored at, the bytes each tensor takes (to allocate, and to declare), and the rules a
// call's storage must meet, checked before any launch.
//
// aiter pads a layer's weights (amd-moe-mxfp4: both dimensions to 256): gate and up are stored
// [expert_dim_pad][hidden_pad], down [hidden_pad][expert_dim_pad], their scales [rows][K_pad / 32],
// and the pads hold whatever the quantizer made of them (the reference ignores them). The layer
// reads the logical [expert_dim][hidden] and [hidden][expert_dim] parts in place, rows K_pad
// elements apart: the caller neither zeroes nor strips a pad.
//
// The host cannot see the device's buffers, so the call declares the bytes behind each table pointer
// (mx_args::gate_bytes ... down_scale_bytes, every expert's alike) and the layer refuses one below
// what it reads there: the stored rows of the tensor at its stored row stride. In e8m0_shuffle's
// layout a scale row is padded to whole 8-column groups, and the tensor to whole 256-row groups,
// which the layer never reads (so a fused [gate; up] tensor's up entry, expert_dim_pad rows into it,
// needs only its own rows behind it).
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "wavekit/core/mx_shuffle.hpp"
#include "wavekit/core/status.hpp"
#include "wavekit/ops/moe/problem.hpp"

namespace wavekit::ops::moe {

// Bytes of one expert's MX weight tensor of `rows` rows of `k` elements (as stored: padded extents),
// in either layout (shuffle_weight moves bytes and adds none). gate and up: (expert_dim_pad,
// hidden_pad), a fused [gate; up] tensor (2 expert_dim_pad, hidden_pad); down: (hidden_pad,
// expert_dim_pad).
template <class Elem>
constexpr std::size_t mx_weight_bytes(int rows, int k) {
  return std::size_t(rows) * std::size_t(k) / (std::is_same_v<Elem, fp4_e2m1> ? 2 : 1);
}

// Bytes of the e8m0 scales of such a tensor: [rows][k / 32], or (b_layout::preshuffled) as e8m0_shuffle leaves
// them, padded with zeros to (ceil(rows / 256) 256, ceil(k / 32 / 8) 8): what to allocate for one
// expert's tensor.
constexpr std::size_t mx_scale_bytes(int rows, int k, b_layout layout) {
  if (layout != b_layout::preshuffled) return std::size_t(rows) * std::size_t(k / 32);
  return std::size_t(shuffled_scale_rows(rows)) * std::size_t(shuffled_scale_cols(k / 32));
}

// The extents the weights are stored at: mx_args' pads, or the problem's where a pad is 0.
struct mx_extents {
  int hidden, expert_dim;
};
template <class T, class Elem>
mx_extents stored_extents(const problem& p, const mx_args<T, Elem>& a) {
  return {a.hidden_pad ? a.hidden_pad : p.hidden, a.expert_dim_pad ? a.expert_dim_pad : p.expert_dim};
}

// The storage rules (what: the op and problem, as statuses begin), after the shape's and the
// layout's: each pad 0 or a multiple of 64 (whole 32-byte rows of shuffle_weight's tiles, whole
// 32-row groups of e8m0_shuffle's) not below its dimension, a stored tensor within 32-bit buffer
// offsets, and each declared size at least the bytes the layer reads behind its pointers.
template <class T, class Elem>
status check_mx_storage(text_ref what, const problem& p, const mx_args<T, Elem>& a) {
  auto pad_rule = [&](const char* name, int pad, const char* dim, int extent) -> status {
    if (pad == 0 || (pad >= extent && pad % 64 == 0)) return status::success();
    return {status_code::bad_shape, what + "argument " + name + " (" + std::to_string(pad) +
                                        ") must be 0 (unpadded) or a multiple of 64 not below " + dim + " (" +
                                        std::to_string(extent) + ")"};
  };
  if (status s = pad_rule("hidden_pad", a.hidden_pad, "hidden", p.hidden); !s.ok()) return s;
  if (status s = pad_rule("expert_dim_pad", a.expert_dim_pad, "expert_dim", p.expert_dim); !s.ok()) return s;
  const mx_extents at = stored_extents(p, a);
  if (std::size_t(at.hidden) * std::size_t(at.expert_dim) > std::size_t(std::numeric_limits<std::int32_t>::max()))
    return {status_code::too_large,
            what +
                "a stored weight tensor [expert_dim_pad][hidden_pad] exceeds 2^31 - 1 elements (32-bit buffer "
                "offsets)"};
  const char* format = std::is_same_v<Elem, fp4_e2m1> ? " MXFP4" : " MXFP8";
  const char* const layout =
      a.weight_layout == b_layout::preshuffled ? " in e8m0_shuffle's layout (columns padded to 8)" : "";
  auto extent = [](const char* name, int v) { return std::string(name) + " " + std::to_string(v); };
  // The bytes behind each table pointer the layer reads: rows x K as stored.
  // `holds` is formatted only when the size falls short (core/lazy_text.hpp).
  auto declared = [&](const char* name, std::size_t have, std::size_t need, text_ref holds) -> status {
    if (have >= need) return status::success();
    return {status_code::bad_config, what + "argument " + name + " must be at least " + std::to_string(need) +
                                         " (the bytes behind each pointer: " + holds + "; have " +
                                         std::to_string(have) + ")"};
  };
  auto weights = [&](const char* name, std::size_t have, const char* rows, int r, const char* cols, int k) {
    return declared(name, have, mx_weight_bytes<Elem>(r, k),
                    lazy([&] { return "[" + extent(rows, r) + "][" + extent(cols, k) + "]" + format; }));
  };
  auto scales = [&](const char* name, std::size_t have, const char* rows, int r, const char* cols, int k) {
    const std::size_t row =
        a.weight_layout == b_layout::preshuffled ? std::size_t(shuffled_scale_cols(k / 32)) : std::size_t(k / 32);
    return declared(name, have, std::size_t(r) * row,
                    lazy([&] { return "[" + extent(rows, r) + "][" + extent(cols, k) + " / 32] e8m0" + layout; }));
  };
  const int h = at.hidden, e = at.expert_dim;
  const char* hn = a.hidden_pad ? "hidden_pad" : "hidden";  // the stored extents' names
  const char* en = a.expert_dim_pad ? "expert_dim_pad" : "expert_dim";
  if (status s = weights("gate_bytes", a.gate_bytes, en, e, hn, h); !s.ok()) return s;
  if (status s = weights("up_bytes", a.up_bytes, en, e, hn, h); !s.ok()) return s;
  if (status s = weights("down_bytes", a.down_bytes, hn, h, en, e); !s.ok()) return s;
  if (status s = scales("gate_scale_bytes", a.gate_scale_bytes, en, e, hn, h); !s.ok()) return s;
  if (status s = scales("up_scale_bytes", a.up_scale_bytes, en, e, hn, h); !s.ok()) return s;
  return scales("down_scale_bytes", a.down_scale_bytes, hn, h, en, e);
}

}  // namespace wavekit::ops::moe
