// How a GEMM's tensors lie in memory beyond their shapes: row strides (a view into a wider tensor:
// one head's columns of a projection, rows padded for alignment) and a batch (GEMMs of one shape in
// one launch, their tensors a stride apart; a stride of 0 gives every GEMM the same A or B).
//
//   A   k_contiguous [M][lda] (lda >= K)   mn_contiguous [K][lda] (lda >= M)
//   B   k_contiguous [N][ldb] (ldb >= K)   mn_contiguous [K][ldb] (ldb >= N)
//   C   [M][ldc] (ldc >= N)
//   GEMM i of the batch reads A + i * batch.a and B + i * batch.b, writes C + i * batch.c
//
// Strides count elements; 0 for a row stride means packed (the shape's own width). An op's rules for
// them (element sizes, the alignment its vector loads and stores need) go to check_gemm_views, which
// every GEMM problem's validation calls; its arithmetic is 64-bit throughout.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <cstdint>
#include <limits>
#include <string>

#include "wavekit/core/layout.hpp"
#include "wavekit/core/lazy_text.hpp"
#include "wavekit/core/row_view.hpp"
#include "wavekit/core/status.hpp"

namespace wavekit {

// Blocks a launch grid holds in z, which a batched GEMM's grid fills with splits x GEMMs
// (block/tile_scheduler.hpp).
inline constexpr int max_grid_z = 65535;

constexpr bool batched_grid_fits(int splits, int batches) {
  return static_cast<std::int64_t>(splits) * batches <= max_grid_z;
}

struct gemm_strides {
  std::int64_t lda = 0, ldb = 0, ldc = 0;  // elements between rows as stored; 0: packed
};

struct gemm_batch {
  int count = 1;                     // GEMMs in the call
  std::int64_t a = 0, b = 0, c = 0;  // elements between consecutive GEMMs' A, B and C
};

// One GEMM's row strides with 0 resolved, and its tensors' extents (elements from the first to one
// past the last it touches).
struct gemm_views {
  std::int64_t lda, ldb, ldc;
  std::int64_t a_extent, b_extent, c_extent;

  static gemm_views of(int m, int n, int k, layout order, const gemm_strides& s) {
    const bool kc = order == layout::k_contiguous;
    gemm_views v{};
    v.lda = s.lda ? s.lda : (kc ? k : m);
    v.ldb = s.ldb ? s.ldb : (kc ? k : n);
    v.ldc = s.ldc ? s.ldc : n;
    using i64 = std::int64_t;
    v.a_extent = kc ? view_extent<i64>(m, k, v.lda) : view_extent<i64>(k, m, v.lda);
    v.b_extent = kc ? view_extent<i64>(n, k, v.ldb) : view_extent<i64>(k, n, v.ldb);
    v.c_extent = view_extent<i64>(m, n, v.ldc);
    return v;
  }
  // C's extent over the whole batch: a split-K launch's partials take this much a split.
  std::int64_t c_batch_extent(const gemm_batch& batch) const {
    return c_extent > 0 ? (batch.count - 1) * batch.c + c_extent : 0;
  }
};

// The strides and batch as a problem's text spells them (empty when packed and unbatched).
inline std::string to_string(const gemm_strides& s, const gemm_batch& b) {
  std::string out;
  if (s.lda) out += " lda " + std::to_string(s.lda);
  if (s.ldb) out += " ldb " + std::to_string(s.ldb);
  if (s.ldc) out += " ldc " + std::to_string(s.ldc);
  if (b.count != 1)
    out += " batch " + std::to_string(b.count) + " (strides a " + std::to_string(b.a) + ", b " + std::to_string(b.b) +
           ", c " + std::to_string(b.c) + ")";
  return out;
}

// An op's rules for its views: element bits of A, B and C (C's: the widest the kernel addresses
// C's layout with, its fp32 split-K partials), and the multiple (in elements) every stride of each
// must be (its vector loads and stores: a 16-byte load of 2-byte elements needs 8). tile_rows > 0:
// K-contiguous A and B buffers span a tile of that many rows (block/gemm_block.hpp), so only a
// tile, not the tensor, needs 32-bit offsets.
struct gemm_view_rules {
  int a_bits, b_bits, c_bits;
  int a_align, b_align, c_align;
  int tile_rows = 0;
  int max_batch = max_grid_z;
};

// The checks of a problem's strides and batch (the shape itself already checked: m >= 1, n, k > 0);
// `what` names the op and the problem. Each tensor of one GEMM stays below 2^31 bytes (buffer
// offsets are 32-bit); C's GEMMs may not overlap (stacked: batch.c >= C's extent; or interleaved in
// the rows: batch.c >= N and ldc >= (count - 1) * batch.c + N).
inline status check_gemm_views(text_ref what, int m, int n, int k, layout order, const gemm_strides& s,
                               const gemm_batch& b, const gemm_view_rules& rule) {
  const bool kc = order == layout::k_contiguous;
  constexpr std::int64_t int_limit = std::numeric_limits<std::int32_t>::max();
  constexpr std::int64_t stride_limit = int_limit;  // kernels take 32-bit batch strides
  const struct {
    const char* name;
    std::int64_t ld, least;
    const char* least_name;
    int align;
  } rows[] = {{"lda", s.lda, kc ? k : m, kc ? "K" : "M", rule.a_align},
              {"ldb", s.ldb, kc ? k : n, kc ? "K" : "N", rule.b_align},
              {"ldc", s.ldc, n, "N", rule.c_align}};
  for (const auto& r : rows)
    if (status st = check_row_stride(what, r.name, r.ld, r.least, r.least_name, r.align,
                                     "vector loads and stores stay aligned");
        !st.ok())
      return st;
  if (b.count < 1 || b.count > rule.max_batch)
    return {status_code::bad_shape,
            what + "batch.count must be 1 to " + std::to_string(rule.max_batch) + " (the launch grid's z)"};
  const struct {
    const char* name;
    std::int64_t stride;
    int align;
  } batch_strides[] = {{"batch.a", b.a, rule.a_align}, {"batch.b", b.b, rule.b_align}, {"batch.c", b.c, rule.c_align}};
  for (const auto& bs : batch_strides) {
    if (bs.stride < 0 || bs.stride > stride_limit)
      return {bs.stride < 0 ? status_code::bad_shape : status_code::too_large,
              what + bs.name + " must be 0 to 2^31 - 1 elements"};
    if (bs.stride % bs.align)
      return {status_code::bad_alignment, what + bs.name + " must be a multiple of " + std::to_string(bs.align) +
                                              " elements (each GEMM's tensors stay aligned)"};
  }
  const gemm_views v = gemm_views::of(m, n, k, order, s);
  auto bytes = [](std::int64_t elements, int bits) { return (elements * bits + 7) / 8; };
  if (rule.tile_rows > 0 && kc) {
    if (bytes(rule.tile_rows * v.lda, rule.a_bits) > int_limit ||
        bytes(rule.tile_rows * v.ldb, rule.b_bits) > int_limit)
      return {status_code::too_large, what + std::to_string(rule.tile_rows) +
                                          " rows (a tile) of lda or ldb exceed 2^31 - 1 bytes (32-bit buffer offsets)"};
  } else if (bytes(v.a_extent, rule.a_bits) > int_limit || bytes(v.b_extent, rule.b_bits) > int_limit) {
    return {status_code::too_large, what + "a GEMM's tensor spans more than 2^31 - 1 bytes (32-bit buffer offsets)"};
  }
  if (bytes(v.c_extent, rule.c_bits) > int_limit)
    return {status_code::too_large, what + "a GEMM's tensor spans more than 2^31 - 1 bytes (32-bit buffer offsets)"};
  if (b.count > 1 && m > 0) {
    const bool stacked = b.c >= v.c_extent;
    const bool interleaved = b.c >= n && v.ldc >= (b.count - 1) * b.c + n;
    if (!stacked && !interleaved)
      return {status_code::bad_shape,
              what + "the batch's C tensors would overlap: batch.c must be at least C's extent ((M - 1) * ldc + N = " +
                  std::to_string(v.c_extent) + "), or at least N with ldc >= (batch.count - 1) * batch.c + N"};
  }
  return status::success();
}

}  // namespace wavekit
