// The MX GEMM, host side: problem, arguments, validation (plain C++, no HIP).
//
//   C (M, N) = A (M, K) x B (N, K)^T,  fp32 accumulation,  C bf16 or fp16,
//   A and B OCP MX tensors of one format (docs/hardware.md 2.4): MXFP8 (e4m3fn elements) or MXFP4
//   (e2m1 elements packed two a byte, the first in the low nibble), each 32 consecutive K of a row
//   sharing an e8m0 scale: a_scale [M][K/32], b_scale [N][K/32].
//
// Both operands K-contiguous (A [M][K], B [N][K]), read in place. gfx950 only: its scaled MFMAs
// apply the scales inside the instruction (block/scale_in_instruction.hpp). Legal shapes: M >= 1,
// N a multiple of 16, K a multiple of 32 (the MX block).
//
// B in aiter's pre-shuffled layouts (b_layout::preshuffled, MXFP4): the fp4 bytes by
// shuffle_weight(layout=(16, 16)) and b_scale by e8m0_shuffle, padded (host/shuffle_mx.hpp builds
// them; core/mx_shuffle.hpp says where each byte is), read in place. K a multiple of 64 there.
//
// Views and batches (core/gemm_view.hpp): row strides lda, ldb, ldc in elements (A's and B's a
// multiple of 16 bytes: the loaders' 16-byte loads; ldc of 4), a pre-shuffled B packed (ldb 0);
// GEMM g of a batch reads A + g * batch.a, B + g * batch.b (0: shared) and writes C + g * batch.c.
// The scales stay packed a GEMM ([M][K/32], [N][K/32] or the shuffled layout's size) and follow
// their operand: GEMM g's are g GEMMs' scales on, or shared with a shared operand.
//
// MXFP4 with A as 16-bit values (amd-mxfp4-mm): a_storage::bf16 or fp16 in the problem and
// args_quantizing_a; the kernel quantizes A to MXFP4 as it loads each tile, by the host
// quantizer's rule bit for bit (tile/tile_loader_quantize_fp4.hpp), and the quantized A never
// reaches memory.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <cstddef>
#include <string>
#include <type_traits>

#include "wavekit/block/splitk_rule.hpp"
#include "wavekit/core/gemm_shape.hpp"
#include "wavekit/core/gemm_view.hpp"
#include "wavekit/core/layout.hpp"
#include "wavekit/core/numeric_types.hpp"
#include "wavekit/core/status.hpp"

namespace wavekit::ops::gemm_mx {

enum class mx_format { mxfp8, mxfp4 };

constexpr const char* to_string(mx_format f) { return f == mx_format::mxfp8 ? "mxfp8" : "mxfp4"; }

// The element type of a format, its width, and the format of an element type.
template <mx_format F>
using element_of = std::conditional_t<F == mx_format::mxfp8, fp8_e4m3fn, fp4_e2m1>;
constexpr int element_bits(mx_format f) { return f == mx_format::mxfp8 ? 8 : 4; }
template <class Elem>
inline constexpr mx_format format_of = [] {
  static_assert(std::is_same_v<Elem, fp8_e4m3fn> || std::is_same_v<Elem, fp4_e2m1>,
                "gemm_mx: the elements are fp8_e4m3fn (MXFP8) or fp4_e2m1 (MXFP4)");
  return std::is_same_v<Elem, fp8_e4m3fn> ? mx_format::mxfp8 : mx_format::mxfp4;
}();

inline constexpr int scale_block = 32;  // K elements per e8m0 scale

// How A is stored: an MX tensor of the problem's format, or 16-bit values quantized in the kernel.
enum class a_storage { mx, bf16, fp16 };

constexpr const char* to_string(a_storage s) {
  return s == a_storage::mx ? "mx" : s == a_storage::bf16 ? "bf16" : "fp16";
}
constexpr int a_bits(a_storage s, mx_format f) { return s == a_storage::mx ? element_bits(f) : 16; }

// How B and its scales are laid out: K-contiguous rows, or aiter's pre-shuffled layouts.
enum class b_layout { plain, preshuffled };

struct problem {
  // No defaults: how A and B are stored is the caller's statement, as every op's storage order is.
  problem(int m_, int n_, int k_, mx_format format_, a_storage a_, b_layout b_)
      : m(m_), n(n_), k(k_), format(format_), a(a_), b(b_) {}
  int m, n, k;
  mx_format format;
  a_storage a;
  b_layout b;
  gemm_strides strides = {};
  gemm_batch batch = {};
  gemm_views views() const { return gemm_views::of(m, n, k, layout::k_contiguous, strides); }
  std::string str() const {
    return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) + " " + to_string(format) +
           (a == a_storage::mx ? "" : std::string(", A ") + to_string(a) + " quantized in the kernel") +
           (b == b_layout::plain ? "" : ", B pre-shuffled") + to_string(strides, batch);
  }
};

// The element types of OCP MX: e4m3fn (MXFP8) and e2m1 (MXFP4). gfx942's fnuz fp8 is not one of
// them (it reads its own bias and NaN: docs/hardware.md 2.2): arguments of it do not form.
template <class Elem>
concept mx_element = std::is_same_v<Elem, fp8_e4m3fn> || std::is_same_v<Elem, fp4_e2m1>;
template <class Out>
concept mx_output = std::is_same_v<Out, bf16> || std::is_same_v<Out, fp16>;

// Elem: fp8_e4m3fn or fp4_e2m1 (stored as fp4x2_e2m1 pairs); Out: bf16 or fp16.
template <mx_element Elem, mx_output Out>
struct args {
  static constexpr mx_format format = format_of<Elem>;
  using storage = mx_storage_t<Elem>;
  const storage* a = nullptr;
  const storage* b = nullptr;
  const e8m0* a_scale = nullptr;  // [M][K/32]
  const e8m0* b_scale = nullptr;  // [N][K/32]
  Out* c = nullptr;
  void* workspace = nullptr;  // fp32 split-K partials; see workspace_bytes
  std::size_t workspace_bytes = 0;
};

// MXFP4 with A 16-bit (T: bf16 or fp16), quantized in the kernel: no a_scale.
template <class T, mx_output Out>
  requires(std::is_same_v<T, bf16> || std::is_same_v<T, fp16>)
struct args_quantizing_a {
  static constexpr mx_format format = mx_format::mxfp4;
  static constexpr a_storage a_stored = std::is_same_v<T, bf16> ? a_storage::bf16 : a_storage::fp16;
  const T* a = nullptr;           // [M][K]
  const fp4x2_e2m1* b = nullptr;  // [N][K / 2]
  const e8m0* b_scale = nullptr;  // [N][K/32]
  Out* c = nullptr;
  void* workspace = nullptr;  // fp32 split-K partials; see workspace_bytes
  std::size_t workspace_bytes = 0;
};

// Either kind of a call's arguments.
template <class A>
inline constexpr bool is_args_v = false;
template <mx_element Elem, mx_output Out>
inline constexpr bool is_args_v<args<Elem, Out>> = true;
template <class T, mx_output Out>
  requires(std::is_same_v<T, bf16> || std::is_same_v<T, fp16>)
inline constexpr bool is_args_v<args_quantizing_a<T, Out>> = true;

inline std::size_t workspace_bytes(const problem& p, int splits) {
  return block::splitk_view_workspace_bytes(p, splits);
}

inline status validate_shape(const problem& p) {
  const auto what = lazy([&] { return "gemm_mx " + p.str() + ": "; });
  constexpr gemm_shape_rules rules{.n_multiple = 16, .k_multiple = scale_block, .k_why = "the MX scale block"};
  // The shape steps of core/gemm_shape.hpp with the format's check in its place; K-contiguous
  // only, so no order steps.
  if (status s = check_gemm_sizes(what, p.m, p.n, p.k); !s.ok()) return s;
  if (p.format != mx_format::mxfp8 && p.format != mx_format::mxfp4)
    return {status_code::bad_format, what + "format must be mx_format::mxfp8 or mx_format::mxfp4"};
  if (status s = check_gemm_multiples(what, p.n, p.k, rules); !s.ok()) return s;
  if (p.a != a_storage::mx && p.format != mx_format::mxfp4)
    return {status_code::bad_format, what + "a 16-bit A is quantized to MXFP4 only (the format must be mxfp4)"};
  if (p.b == b_layout::preshuffled && p.format != mx_format::mxfp4)
    return {status_code::bad_format, what + "a pre-shuffled B is MXFP4 (shuffle_weight of fp4 bytes)"};
  if (p.b == b_layout::preshuffled && p.k % 64)
    return {status_code::bad_shape, what + "a pre-shuffled B needs K a multiple of 64 (its 32-byte tiles)"};
  if (p.b == b_layout::preshuffled && p.strides.ldb != 0)
    return {status_code::bad_shape, what + "a pre-shuffled B's rows are its layout's: ldb must be 0"};
  // A and B may pass 2 GB: a block's buffers start at its tile's first row (block/gemm_block.hpp,
  // block/gemv_mx_block.hpp), so only a tile's rows (at most 256) need 32-bit offsets. C and the
  // fp32 split-K partials (32 bits an element) are addressed whole. 16-byte loads: lda and ldb a
  // multiple of 16 bytes.
  const int bits = element_bits(p.format), abits = a_bits(p.a, p.format);
  return check_gemm_views(what, p.m, p.n, p.k, layout::k_contiguous, p.strides, p.batch,
                          {.a_bits = abits,
                           .b_bits = bits,
                           .c_bits = 32,
                           .a_align = 128 / abits,
                           .b_align = 128 / bits,
                           .c_align = 4,
                           .tile_rows = 256});
}

template <class Elem, class Out>
status validate(const problem& p, const args<Elem, Out>& a) {
  if (status s = validate_shape(p); !s.ok()) return s;
  const auto what = lazy([&] { return "gemm_mx " + p.str() + ": "; });
  if (p.format != a.format || p.a != a_storage::mx)
    return {status_code::bad_format, what + "the arguments hold " + to_string(a.format) +
                                         " tensors, the problem says " + to_string(p.format) +
                                         (p.a == a_storage::mx ? "" : std::string(" with A ") + to_string(p.a))};
  if (p.m == 0) return status::success();  // empty: nothing is read or written, no pointer is checked
  return check_pointer_arguments(what, {{"a", a.a, 16, "16-byte vector loads"},
                                        {"b", a.b, 16, "16-byte vector loads"},
                                        {"a_scale", a.a_scale, 1, "e8m0 bytes"},
                                        {"b_scale", a.b_scale, 1, "e8m0 bytes"},
                                        {"c", a.c, 8, "vector stores of the split-K reduction"}});
}

template <class T, class Out>
status validate(const problem& p, const args_quantizing_a<T, Out>& a) {
  if (status s = validate_shape(p); !s.ok()) return s;
  const auto what = lazy([&] { return "gemm_mx " + p.str() + ": "; });
  if (p.format != mx_format::mxfp4 || p.a != a.a_stored)
    return {status_code::bad_format, what + "the arguments hold a " + to_string(a.a_stored) +
                                         " A and MXFP4 B; the problem says " + to_string(p.format) + " with A " +
                                         to_string(p.a)};
  if (p.m == 0) return status::success();  // empty: nothing is read or written, no pointer is checked
  return check_pointer_arguments(what, {{"a", a.a, 16, "16-byte vector loads"},
                                        {"b", a.b, 16, "16-byte vector loads"},
                                        {"b_scale", a.b_scale, 1, "e8m0 bytes"},
                                        {"c", a.c, 8, "vector stores of the split-K reduction"}});
}

}  // namespace wavekit::ops::gemm_mx
