// MLA decode attention (DeepSeek's absorbed MLA), host side (plain C++, no HIP): the problem, the
// sequences' tables as the host sees them, and the rules a call checks before any launch.
//
//   for each sequence b, query row i of it and head h:
//     s_j = sm_scale * q[i][h][0:576] . K_j,  out[i][h][0:512] = softmax(s) . V,  V_j = K_j[0:512]
//   over the rows of b's latent cache that query i sees (host/reference_mla_decode.hpp: causal
//   within the q_len <= 4 new tokens of speculative decoding, all of them when q_len = 1). A query
//   that sees no row (kv_len = 0) gets zeros and lse = -inf, never NaN.
//
// The cache in one of two layouts serving engines use:
//   kv_layout::ragged  cache [rows][576]; sequence b's rows are kv_indptr[b] .. kv_indptr[b + 1]
//                      (amd-mixed-mla's layout, a page size of 1 with consecutive pages)
//   kv_layout::paged   cache [pages][page_size][576]; row j of sequence b lives in page
//                      page_table[b][j / page_size] at slot j % page_size, kv_lens[b] rows
//                      (vLLM-style block tables; any page size)
// q [total_q][heads][576] and out [total_q][heads][512] are bf16; query rows of sequence b are
// qo_indptr[b] .. qo_indptr[b + 1].
//
// The sequences' tables live in device memory for the kernels and are passed on the host too
// (sequences_view): the split plan needs the KV lengths (ops/mla_decode/plan.hpp), and every rule
// about them (indptr monotone and inside the cache, page ids in range) is checked here, before
// anything is launched. The launch itself then reads device memory only (graph-safe).
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <numbers>
#include <span>
#include <string>
#include <type_traits>

#include "wavekit/core/numeric_types.hpp"
#include "wavekit/core/status.hpp"

namespace wavekit::ops::mla_decode {

inline constexpr int qk_dim = 576, v_dim = 512;  // latent 512 + rope 64; values: the latent part
inline constexpr int max_heads = 128, max_q_len = 4;

enum class kv_layout { ragged, paged };

// The cache's element types: bf16; the device's fp8 (e4m3fnuz on gfx942, e4m3fn on gfx950) with a
// per-tensor fp32 scale; or MXFP4 (fp4x2_e2m1: a row's 576 e2m1 values in 288 bytes, two a byte,
// the first in the low nibble, and an e8m0 scale per 32 values in a table of their own; gfx950).
// kv_bits_of<KV>: a value's bits, 16, 8 or 4, the figure a split plan records; q_bits_of<Q>: the
// queries', 16 (bf16) or 8 (fp8), the figure the model and plan take.
template <class KV>
inline constexpr bool is_cache_type_v = std::is_same_v<KV, bf16> || std::is_same_v<KV, fp8_e4m3fnuz> ||
                                        std::is_same_v<KV, fp8_e4m3fn> || std::is_same_v<KV, fp4x2_e2m1>;
template <class KV>
inline constexpr int kv_bits_of = std::is_same_v<KV, bf16>         ? 16
                                  : std::is_same_v<KV, fp4x2_e2m1> ? 4
                                                                   : 8;
template <class Q>
inline constexpr int q_bits_of = std::is_same_v<Q, bf16> ? 16 : 8;
inline constexpr int scale_blocks = qk_dim / 32;  // an MXFP4 row's e8m0 scales: 18
// The bytes one cache row takes in memory, its block scales included.
constexpr double kv_row_bytes(int kv_bits) { return qk_dim * kv_bits / 8.0 + (kv_bits == 4 ? scale_blocks : 0); }

inline const char* to_string(kv_layout l) {
  return l == kv_layout::ragged ? "ragged" : l == kv_layout::paged ? "paged" : "invalid layout";
}

struct problem {
  int batch;  // sequences
  int heads;  // query heads, 1 .. 128, all sharing the one latent KV head
  kv_layout layout;
  int page_size;   // paged: rows per page; ragged: 1
  int cache_rows;  // rows the cache holds (paged: pages * page_size)
  int max_pages;   // paged: the page table's row stride; ragged: 0
  float sm_scale;  // e.g. 1 / sqrt(576)
  std::string str() const {
    return std::to_string(batch) + " sequences, " + std::to_string(heads) + " heads, " + to_string(layout) +
           " cache of " + std::to_string(cache_rows) + " rows" +
           (layout == kv_layout::paged ? " in pages of " + std::to_string(page_size) : std::string());
  }
};

// The sequences' tables as the host sees them (the same values as the device copies a launch
// reads). kv_indptr for the ragged layout, kv_lens and page_table ([batch][max_pages]) for the
// paged one; the other layout's spans stay empty.
struct sequences_view {
  std::span<const int> qo_indptr;   // [batch + 1]
  std::span<const int> kv_indptr;   // ragged: [batch + 1]
  std::span<const int> kv_lens;     // paged: [batch]
  std::span<const int> page_table;  // paged: [batch * max_pages]

  int q_rows() const { return qo_indptr.empty() ? 0 : qo_indptr.back(); }
  int kv_len(int b) const { return kv_indptr.empty() ? kv_lens[b] : kv_indptr[b + 1] - kv_indptr[b]; }
};

inline status validate_shape(const problem& p) {
  const auto what = lazy([&] { return "mla_decode " + p.str() + ": "; });
  if (p.batch < 0) return {status_code::bad_shape, what + "batch must be >= 0"};
  if (p.heads < 1 || p.heads > max_heads)
    return {status_code::bad_shape, what + "heads must be in [1, " + std::to_string(max_heads) + "]"};
  if (p.layout != kv_layout::ragged && p.layout != kv_layout::paged)
    return {status_code::bad_shape, what + "layout must be kv_layout::ragged or kv_layout::paged"};
  if (p.layout == kv_layout::ragged && (p.page_size != 1 || p.max_pages != 0))
    return {status_code::bad_shape, what + "a ragged cache has page_size 1 and max_pages 0"};
  if (p.layout == kv_layout::paged && (p.page_size < 1 || p.max_pages < 1))
    return {status_code::bad_shape, what + "a paged cache needs page_size >= 1 and max_pages >= 1"};
  if (p.cache_rows < 0 || p.cache_rows % p.page_size)
    return {status_code::bad_shape, what + "cache_rows must be a non-negative multiple of page_size"};
  if (!std::isfinite(p.sm_scale) || !(p.sm_scale > 0.0f))
    return {status_code::bad_shape, what + "sm_scale must be finite and positive"};
  constexpr std::size_t limit = std::numeric_limits<std::int32_t>::max();
  if (std::size_t(p.cache_rows) * qk_dim * 2 > limit)
    return {status_code::too_large, what + "the cache exceeds 2^31 - 1 bytes (32-bit buffer offsets)"};
  // The decode reads a sequence's row of the page table through a buffer of max_pages * 4 bytes.
  if (std::size_t(p.max_pages) * 4 > limit)
    return {status_code::too_large,
            what + "a page table row exceeds 2^31 - 1 bytes (32-bit buffer offsets): max_pages * 4"};
  return status::success();
}

// The rules about the sequences' tables (host copies): sizes, qo_indptr from 0 and monotone with
// q_len <= 4, kv_indptr monotone inside the cache (ragged), kv_lens within a sequence's pages and
// every page it uses a page of the cache (paged), and q and out inside 32-bit offsets.
inline status validate_sequences(const problem& p, const sequences_view& s) {
  if (status st = validate_shape(p); !st.ok()) return st;
  const auto what = lazy([&] { return "mla_decode " + p.str() + ": "; });
  const std::size_t batch = static_cast<std::size_t>(p.batch);
  if (s.qo_indptr.size() != batch + 1) return {status_code::bad_shape, what + "qo_indptr must hold batch + 1 entries"};
  if (s.qo_indptr[0] != 0) return {status_code::bad_shape, what + "qo_indptr must start at 0"};
  for (std::size_t b = 0; b < batch; ++b) {
    const std::int64_t q_len = std::int64_t{s.qo_indptr[b + 1]} - s.qo_indptr[b];  // any ints: no overflow
    if (q_len < 0 || q_len > max_q_len)
      return {status_code::bad_shape, what + "qo_indptr: sequence " + std::to_string(b) + " has " +
                                          std::to_string(q_len) + " query rows; each has 0 to " +
                                          std::to_string(max_q_len) + " (qo_indptr must not decrease)"};
  }
  constexpr std::size_t limit = std::numeric_limits<std::int32_t>::max();
  if (std::size_t(s.q_rows()) * p.heads * qk_dim * 2 > limit)
    return {status_code::too_large, what + "q exceeds 2^31 - 1 bytes (32-bit buffer offsets)"};
  if (p.layout == kv_layout::ragged) {
    if (s.kv_indptr.size() != batch + 1)
      return {status_code::bad_shape, what + "kv_indptr must hold batch + 1 entries"};
    if (s.kv_indptr[0] < 0) return {status_code::bad_shape, what + "kv_indptr must start at a row >= 0"};
    for (std::size_t b = 0; b < batch; ++b)
      if (s.kv_indptr[b + 1] < s.kv_indptr[b])
        return {status_code::bad_shape, what + "kv_indptr must not decrease (sequence " + std::to_string(b) + ")"};
    if (s.kv_indptr[batch] > p.cache_rows)
      return {status_code::bad_shape, what + "kv_indptr runs past the cache's " + std::to_string(p.cache_rows) +
                                          " rows (to " + std::to_string(s.kv_indptr[batch]) + ")"};
    return status::success();
  }
  if (s.kv_lens.size() != batch) return {status_code::bad_shape, what + "kv_lens must hold batch entries"};
  if (s.page_table.size() != batch * static_cast<std::size_t>(p.max_pages))
    return {status_code::bad_shape, what + "page_table must hold batch * max_pages entries"};
  // Rows and page counts in 64 bits: max_pages * page_size and a length rounded up to whole pages
  // pass 2^31 for legal tables, and a wrapped bound would leave page ids unchecked.
  const int pages = p.cache_rows / p.page_size;
  for (std::size_t b = 0; b < batch; ++b) {
    const int len = s.kv_lens[b];
    if (len < 0 || len > std::int64_t{p.max_pages} * p.page_size)
      return {status_code::bad_shape, what + "kv_lens: sequence " + std::to_string(b) + " has " + std::to_string(len) +
                                          " rows; a sequence holds 0 to max_pages * page_size"};
    const std::int64_t used_pages = (std::int64_t{len} + p.page_size - 1) / p.page_size;
    for (std::int64_t i = 0; i < used_pages; ++i) {
      const int page = s.page_table[b * static_cast<std::size_t>(p.max_pages) + static_cast<std::size_t>(i)];
      if (page < 0 || page >= pages)
        return {status_code::bad_shape, what + "page_table: sequence " + std::to_string(b) + " page " +
                                            std::to_string(i) + " is " + std::to_string(page) +
                                            "; the cache has pages 0 to " + std::to_string(pages - 1)};
    }
  }
  return status::success();
}

// The per-tensor scales of an fp8 cache (KV) and fp8 queries (Q): finite and positive; a bf16
// operand has no scale, so its argument must stay 1 (a value there is a caller's mistake).
template <class KV, class Q>
status check_scales(const problem& p, float kv_scale, float q_scale) {
  const auto what = lazy([&] { return "mla_decode " + p.str() + ": "; });
  if (std::is_same_v<KV, bf16> ? kv_scale != 1.0f : !(std::isfinite(kv_scale) && kv_scale > 0.0f))
    return {status_code::bad_config,
            what + (std::is_same_v<KV, bf16> ? "kv_scale is an fp8 or MXFP4 cache's scale; a bf16 cache has 1"
                                             : "kv_scale must be finite and positive")};
  if (std::is_same_v<Q, bf16> ? q_scale != 1.0f : !(std::isfinite(q_scale) && q_scale > 0.0f))
    return {status_code::bad_config,
            what + (std::is_same_v<Q, bf16> ? "q_scale is fp8 queries' scale; bf16 queries have 1"
                                            : "q_scale must be finite and positive")};
  // The kernel scales each score by this product once (in log2 units, as it computes it): one
  // that rounds to 0 or Inf would turn the masked scores into NaN.
  const float score_log2 = p.sm_scale * kv_scale * q_scale * std::numbers::log2e_v<float>;
  if (!std::isnormal(score_log2))
    return {status_code::bad_config, what + "sm_scale * kv_scale * q_scale * log2(e) must be a normal fp32 (it is " +
                                         std::to_string(score_log2) + ")"};
  return status::success();
}

}  // namespace wavekit::ops::mla_decode
