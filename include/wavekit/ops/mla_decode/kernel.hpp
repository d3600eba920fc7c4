// The MLA decode kernel (bf16 queries; bf16 or fp8 latent cache) and its launcher. One workgroup per
// (sequence, split of its KV rows, group of 16 * Waves (query row, head) rows): it reads each KV
// row of its split once, for all its rows, composed of the kit's parts:
//
//   KV tile      32 rows x 576, moved by tile_loader_k_contiguous (its computed-row form: ragged
//                rows or pages) as nine 128-byte K steps into lds_swizzled_rows tiles
//   S = Q K^T    a warp MMA per wave (16 rows): A = the wave's queries, held in registers for the
//                whole split (warp_mma::a_fragment_of), B = the K-step tiles
//   softmax      online, fp32, per row: running max and sum; P rounded to bf16 into the wave's P
//                tile (lane pairs exchange a column so that every store is 4 bytes)
//   O += P V     a warp MMA per wave, A = its P tile, B = V^T: a latent half of 256 columns of
//                the tile transposed from the K-step tiles in LDS (row pairs exchanged between
//                lanes, 4-byte stores), in two passes of 256 output columns
//   epilogue     O / sum to bf16 (one split) or fp32 partials with their LSE (several), merged by
//                the reduce (ops/mla_decode/reduce_kernel.hpp)
//
// LDS (gfx942's 64 KiB): the nine K-step tiles (36 KiB; the second V^T half reuses the first
// four once the first half is built from them), one V^T half (16 KiB) and a 1 KiB P tile per wave. Rows a query does
// not see (past its split, or causally after it) score -inf; a row that sees none gets zeros and lse = -inf.
#pragma once

#include <hip/hip_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "wavekit/arch/buffer.hpp"
#include "wavekit/arch/codegen_targets.hpp"
#include "wavekit/arch/lds.hpp"
#include "wavekit/arch/matrix_formats.hpp"
#include "wavekit/arch/mfma_atoms.hpp"
#include "wavekit/core/half_convert.hpp"
#include "wavekit/core/math.hpp"
#include "wavekit/core/numeric_types.hpp"
#include "wavekit/core/status.hpp"
#include "wavekit/ops/mla_decode/configs.hpp"
#include "wavekit/ops/mla_decode/plan.hpp"
#include "wavekit/ops/mla_decode/problem.hpp"
#include "wavekit/ops/mla_decode/reduce_kernel.hpp"
#include "wavekit/tile/lds_swizzled_rows.hpp"
#include "wavekit/tile/tile_loader_k_contiguous.hpp"
#include "wavekit/warp/warp_mma.hpp"

namespace wavekit::ops::mla_decode {

struct decode_params {
  const bf16* q;      // [total_q][heads][576]
  const void* cache;  // [cache_rows][576] of the kernel's KV type
  const int* qo_indptr;
  const int* kv_indptr;   // ragged, else null
  const int* kv_lens;     // paged, else null
  const int* page_table;  // paged, else null
  int heads, page_size, max_pages, cache_rows;
  float sm_scale;
  float kv_scale;      // fp8 cache: its per-tensor scale; bf16: 1
  int chunk, splits;   // the split plan
  bf16* out;           // [total_q][heads][512] when splits == 1
  float* lse;          // [total_q][heads] or null, when splits == 1
  float* partial_out;  // [total_q][heads][splits][512] when splits > 1
  float* partial_lse;  // [total_q][heads][splits]
};

template <class Cfg, class KV>
struct decode_parts {
  static_assert(std::is_same_v<KV, bf16> || std::is_same_v<KV, fp8_e4m3fnuz> || std::is_same_v<KV, fp8_e4m3fn>,
                "mla_decode: the cache is bf16 or fp8 (e4m3fnuz on gfx942, e4m3fn on gfx950)");
  static constexpr bool fp8_kv = !std::is_same_v<KV, bf16>;
  static constexpr int kv_tile = Cfg::kv_tile, threads = Cfg::threads;
  static constexpr int step_bytes = 128;                      // 64 bf16 of the 576 a K step (in LDS)
  static constexpr int steps = qk_dim * 2 / step_bytes;       // 9
  static constexpr int v_half = v_dim / 2;                    // output columns a P x V pass
  static constexpr int half_steps = v_half * 2 / step_bytes;  // K steps whose columns form a half: 4
  // An fp8 cache is read as it is stored (64 bytes of a row a K step) and widened to bf16 on its way
  // into the K-step tiles (exact: e4m3 fits bf16), so the rest of the kernel is the bf16 one.
  using kv_loader =
      tile::tile_loader_k_contiguous<kv_tile, fp8_kv ? step_bytes / 2 : step_bytes, threads, fp8_kv ? 8 : 16>;
  using k_layout = tile::lds_swizzled_rows<step_bytes>;
  static constexpr int k_tile_chunks = kv_tile * step_bytes / 16;  // 16-byte chunks of a K-step tile
  using p_layout = tile::lds_swizzled_rows<kv_tile * 2>;           // P: 16 rows a wave, K = the tile's KV rows
  using v_layout = tile::lds_swizzled_rows<kv_tile * 2>;           // V^T: rows = output columns, K = KV rows
  using atom = arch::half_gemm_atom<bf16, 16>;
  using qk_mma = warp::warp_mma<atom, 1, kv_tile / 16, step_bytes, warp::from_registers, warp::from_lds<k_layout>>;
  // P x V in pieces of 32 output columns: a warp MMA issues all its LDS reads before its MFMAs,
  // and 16 column tiles at once would hold 68 registers of them next to the outputs and queries.
  static constexpr int pv_columns = 32, pv_pieces = v_half / pv_columns;
  using pv_mma =
      warp::warp_mma<atom, 1, pv_columns / 16, kv_tile * 2, warp::from_lds<p_layout>, warp::from_lds<v_layout>>;
  static constexpr int k_tile_bytes = kv_tile * step_bytes;
  static constexpr int v_bytes = v_half * kv_tile * 2;
  static constexpr int p_bytes = 16 * kv_tile * 2;
  static constexpr int lds_bytes = steps * k_tile_bytes + v_bytes + Cfg::waves * p_bytes;
  static constexpr int regs = qk_mma::regs;
  static_assert(kv_loader::per_thread == 1 && kv_loader::chunks % 64 == 0,
                "mla_decode: one 16-byte chunk of each K step a thread, whole waves of them");
  static_assert(lds_bytes <= 64 * 1024, "mla_decode: the tiles exceed gfx942's 64 KiB of LDS");
  // The softmax reduces a row over the 16 lanes that hold its columns: the 16x16 accumulator
  // layout (docs/hardware.md 1.2) puts row 4 (l / 16) + r, column l % 16 in register r of lane l.
  static constexpr bool rows_in_lane_groups = [] {
    for (int l = 0; l < 64; ++l)
      for (int r = 0; r < 4; ++r)
        if (atom::acc_row(l, r) != 4 * (l / 16) + r || atom::acc_col(l) != l % 16) return false;
    return qk_mma::regs == 4 && pv_mma::regs == 4;
  }();
  static_assert(rows_in_lane_groups, "mla_decode: the softmax assumes the 16x16 accumulator layout");
};

// V^T half h of the tile, from the K-step tiles in LDS (steps 4h .. 4h + 3) into v_lds: thread t
// reads 8 columns of KV row t / 8; it and its partner t ^ 8 (the other row of the pair, same
// columns) exchange them, then each writes 4 columns as (row 2i, row 2i + 1) words: 4-byte stores.
// Built after the scores, so no register holds the tile meanwhile.
template <class Parts>
WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void transpose_v_half(const unsigned char* k_lds, int half, unsigned char* v_lds,
                                                         int tid) {
  if (tid >= Parts::k_tile_chunks) return;  // whole waves without a chunk
  const int row = tid / 8, chunk = tid % 8;
  const bool even = row % 2 == 0;
#pragma unroll
  for (int s = 0; s < Parts::half_steps; ++s) {
    const arch::u32x4 mine = arch::lds_load<16>(k_lds + (half * Parts::half_steps + s) * Parts::k_tile_bytes +
                                                Parts::k_layout::offset(row, 16 * chunk));
    arch::u32x4 other;
#pragma unroll
    for (int w = 0; w < 4; ++w) other[w] = static_cast<std::uint32_t>(__shfl_xor(static_cast<int>(mine[w]), 8));
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      const int element = (even ? 0 : 4) + e, w = element / 2;
      const std::uint32_t selector = element % 2 == 0 ? 0x05040100u : 0x07060302u;  // low or high halves
      const std::uint32_t pair = even ? __builtin_amdgcn_perm(other[w], mine[w], selector)
                                      : __builtin_amdgcn_perm(mine[w], other[w], selector);
      const int column = s * 64 + chunk * 8 + element;  // within the half
      arch::lds_store<4>(v_lds + Parts::v_layout::offset(column, 2 * (even ? row : row - 1)), pair);
    }
  }
}

// An fp8 loader's chunk (16 values of KV row c / 4, K values 16 (c % 4) ..) widened to bf16 into the
// K-step tile: two 16-byte stores. e4m3 has fewer exponent and mantissa bits than bf16, so the
// widening (to fp32, then its top half) is exact.
template <class Parts>
WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void store_widened(const typename Parts::kv_loader& loaded, unsigned char* tile,
                                                      int tid) {
  using loader = typename Parts::kv_loader;
  if (tid >= loader::chunks) return;  // whole waves without a chunk
  const int row = tid / loader::chunks_per_row, k = tid % loader::chunks_per_row;
  std::uint32_t bf16_pairs[8];
  // The top half of an fp32 value is its bf16 (exact here: no bits below are set).
  auto pack = [](auto pair) {
    return (__builtin_bit_cast(std::uint32_t, static_cast<float>(pair[0])) >> 16) |
           (__builtin_bit_cast(std::uint32_t, static_cast<float>(pair[1])) & 0xFFFF0000u);
  };
#pragma unroll
  for (int w = 0; w < 4; ++w) {
    const int word = static_cast<int>(loaded.regs[0][w]);
    bf16_pairs[2 * w] = pack(__builtin_amdgcn_cvt_pk_f32_fp8(word, false));     // bytes 0 and 1
    bf16_pairs[2 * w + 1] = pack(__builtin_amdgcn_cvt_pk_f32_fp8(word, true));  // bytes 2 and 3
  }
  arch::lds_store<16>(tile + Parts::k_layout::offset(row, 32 * k),
                      arch::u32x4{bf16_pairs[0], bf16_pairs[1], bf16_pairs[2], bf16_pairs[3]});
  arch::lds_store<16>(tile + Parts::k_layout::offset(row, 32 * k + 16),
                      arch::u32x4{bf16_pairs[4], bf16_pairs[5], bf16_pairs[6], bf16_pairs[7]});
}

template <class Cfg, class KV>
__global__ __launch_bounds__(Cfg::threads) void mla_decode_kernel(decode_params p) {
  using parts = decode_parts<Cfg, KV>;
  using qk_mma = typename parts::qk_mma;
  using pv_mma = typename parts::pv_mma;
  constexpr int steps = parts::steps, kv_tile = parts::kv_tile, regs = parts::regs;
  arch::declare_codegen_targets<parts::lds_bytes, 1>();
  if constexpr (!arch::runs_on_current_target<typename parts::atom> ||
                (parts::fp8_kv && !arch::reads_fp8<KV>(arch::current_target) &&
                 arch::current_target != arch::target::host)) {
    __builtin_trap();  // the converter reads the target's own fp8 format, not KV
  } else {
    WAVEKIT_LDS_ARRAY(arch::u32x4, lds16, parts::lds_bytes / 16);
    unsigned char* const k_lds = reinterpret_cast<unsigned char*>(lds16);
    unsigned char* const v_lds = k_lds + steps * parts::k_tile_bytes;
    const int tid = static_cast<int>(threadIdx.x), lane = tid % 64, wave = __builtin_amdgcn_readfirstlane(tid / 64);
    unsigned char* const p_lds = v_lds + parts::v_bytes + wave * parts::p_bytes;
    const int b = static_cast<int>(blockIdx.z), split = static_cast<int>(blockIdx.y);
    const int row0 = static_cast<int>(blockIdx.x) * Cfg::rows;
    // Values the whole workgroup shares, read from the tables: readfirstlane tells the compiler so
    // (scalar registers; buffer descriptors built from them stay scalar, no waterfall loops).
    const int q_begin = __builtin_amdgcn_readfirstlane(p.qo_indptr[b]);
    const int q_len = __builtin_amdgcn_readfirstlane(p.qo_indptr[b + 1]) - q_begin, rows = q_len * p.heads;
    if (row0 >= rows) return;  // the whole workgroup: a group of rows this sequence lacks
    const int kv_base = p.kv_indptr ? __builtin_amdgcn_readfirstlane(p.kv_indptr[b]) : 0;
    const int kv_len = __builtin_amdgcn_readfirstlane(p.kv_indptr ? p.kv_indptr[b + 1] - kv_base : p.kv_lens[b]);
    const int j_begin = split * p.chunk;
    if (split > 0 && j_begin >= kv_len) return;  // a split this sequence does not have
    const int j_end = std::min(kv_len, j_begin + p.chunk);
    const int wave_row0 = row0 + 16 * wave;
    const bool wave_has_rows = wave_row0 < rows;  // the same in every lane of the wave

    // The wave's 16 queries as A fragments of the nine K steps, for the whole split.
    const std::size_t q_first = static_cast<std::size_t>(q_begin) * p.heads;  // the sequence's first row
    typename qk_mma::a_fragment q_frag[steps];
    {
      const arch::buffer qb = arch::buffer::over(p.q + q_first * qk_dim, static_cast<std::uint32_t>(rows) * qk_dim * 2);
      const int row = wave_row0 + lane % 16;
      const std::uint32_t at = row < rows ? static_cast<std::uint32_t>(row) * qk_dim * 2 : arch::out_of_range;
#pragma unroll
      for (int s = 0; s < steps; ++s) {
        arch::u32x4 v[qk_mma::reads][1];
#pragma unroll
        for (int r = 0; r < qk_mma::reads; ++r)
          v[r][0] = qb.load16(at + static_cast<std::uint32_t>(qk_mma::read_k(lane, r)),
                              static_cast<std::uint32_t>(s * parts::step_bytes));  // the step: wave-uniform
        q_frag[s] = qk_mma::a_fragment_of(v);
      }
    }
    // Per accumulator register r of this lane: the first KV row its query does not see.
    int visible_end[regs];
#pragma unroll
    for (int r = 0; r < regs; ++r) {
      const int row = wave_row0 + qk_mma::acc_row(lane, r), query = row / p.heads;
      visible_end[r] = row < rows ? std::min(j_end, kv_len - q_len + 1 + query) : j_begin;
    }

    const arch::buffer cache =
        arch::buffer::over(p.cache, static_cast<std::uint32_t>(p.cache_rows) * qk_dim * sizeof(KV));
    const int* pages = p.page_table ? p.page_table + static_cast<std::size_t>(b) * p.max_pages : nullptr;
    auto cache_row = [&](int j) {  // the cache row of the sequence's KV row j, -1 past the split
      if (j >= j_end) return -1;
      return pages ? pages[j / p.page_size] * p.page_size + j % p.page_size : kv_base + j;
    };

    constexpr float minus_inf = -std::numeric_limits<float>::infinity();
    const float score_scale = p.sm_scale * p.kv_scale;  // an fp8 cache's scale, once per score
    pv_mma o[2][parts::pv_pieces];                      // output columns [256 h + 64 c, 256 h + 64 c + 64) in o[h][c]
#pragma unroll
    for (int h = 0; h < 2; ++h)
#pragma unroll
      for (int c = 0; c < parts::pv_pieces; ++c) o[h][c].clear();
    float m[regs], l[regs];  // running max and this lane's share of the running sum, per row
#pragma unroll
    for (int r = 0; r < regs; ++r) m[r] = minus_inf, l[r] = 0.0f;

    for (int j0 = j_begin; j0 < j_end; j0 += kv_tile) {
      // The tile's nine K steps, in three batches so that at most three steps' loads are in
      // registers beside the outputs and the queries.
      {
        typename parts::kv_loader first;
        first.locate_rows_by([&](int r) { return cache_row(j0 + r); }, qk_dim, tid);
        static_for<3>([&](auto batch_constant) {
          constexpr int batch = decltype(batch_constant)::value, begin = batch * 3, end = begin + 3;
          typename parts::kv_loader loads[end - begin];
#pragma unroll
          for (int s = begin; s < end; ++s) {
            loads[s - begin] = first;
            loads[s - begin].load(cache, qk_dim, s * parts::step_bytes / 2);
          }
#pragma unroll
          for (int s = begin; s < end; ++s) loads[s - begin].wait_for_loads();
#pragma unroll
          for (int s = begin; s < end; ++s) {
            if constexpr (parts::fp8_kv)
              store_widened<parts>(loads[s - begin], k_lds + s * parts::k_tile_bytes, tid);
            else
              loads[s - begin].store(k_lds + s * parts::k_tile_bytes, tid);
          }
        });
      }
      __syncthreads();

      if (wave_has_rows) {
        qk_mma scores;
        static_for<steps>([&](auto s_constant) {
          constexpr int s = decltype(s_constant)::value;
          scores.template step<s == 0>(q_frag[s], k_lds + s * parts::k_tile_bytes, 0, lane);
        });
        // Online softmax: the tile's row maxima over the 16 lanes of each row.
        float t[qk_mma::tiles_n][regs], tile_max[regs];
#pragma unroll
        for (int r = 0; r < regs; ++r) tile_max[r] = minus_inf;
#pragma unroll
        for (int n = 0; n < qk_mma::tiles_n; ++n)
#pragma unroll
          for (int r = 0; r < regs; ++r) {
            const int j = j0 + 16 * n + qk_mma::acc_col(lane);
            const float x = scores.acc[0][n][r];
            t[n][r] = j < visible_end[r] ? x * score_scale : minus_inf;
            tile_max[r] = t[n][r] > tile_max[r] ? t[n][r] : tile_max[r];
          }
        float alpha[regs];
#pragma unroll
        for (int r = 0; r < regs; ++r) {
#pragma unroll
          for (int offset = 1; offset < 16; offset *= 2) {
            const float other = __shfl_xor(tile_max[r], offset);
            tile_max[r] = other > tile_max[r] ? other : tile_max[r];
          }
          const float m_new = tile_max[r] > m[r] ? tile_max[r] : m[r];
          alpha[r] = m_new == minus_inf ? 1.0f : expf(m[r] - m_new);  // no e^(-inf - -inf)
          m[r] = m_new;
        }
        // P in bf16 (each weight then within 2^-9 of its fp32 value, which the sums count), into the
        // wave's P tile:
        // lanes 2c and 2c + 1 hold columns 2c and 2c + 1 of the same rows; the even lane writes rows
        // 0 and 1 of its four, the odd one rows 2 and 3, each a (column 2c, 2c + 1) word.
#pragma unroll
        for (int n = 0; n < qk_mma::tiles_n; ++n) {
          std::uint32_t bits[regs];
#pragma unroll
          for (int r = 0; r < regs; ++r) {
            const float e = t[n][r] == minus_inf ? 0.0f : expf(t[n][r] - m[r]);
            bits[r] = half_bits_rne<bf16>(e);
            l[r] = (n == 0 ? l[r] * alpha[r] : l[r]) + e;
          }
          const bool even = lane % 2 == 0;
          // Send the rows the partner writes: the odd lane sends rows 0 and 1, the even 2 and 3.
          const std::uint32_t send = even ? (bits[2] | bits[3] << 16) : (bits[0] | bits[1] << 16);
          const std::uint32_t got = static_cast<std::uint32_t>(__shfl_xor(static_cast<int>(send), 1));
          const int column = 16 * n + qk_mma::acc_col(lane) - (even ? 0 : 1);
#pragma unroll
          for (int q = 0; q < 2; ++q) {
            const int r = even ? q : q + 2;
            const std::uint32_t partner = (got >> (16 * q)) & 0xFFFFu;
            const std::uint32_t word = even ? (bits[r] | partner << 16) : (partner | bits[r] << 16);
            arch::lds_store<4>(p_lds + parts::p_layout::offset(qk_mma::acc_row(lane, r), 2 * column), word);
          }
        }
#pragma unroll
        for (int h = 0; h < 2; ++h)
#pragma unroll
          for (int c = 0; c < parts::pv_pieces; ++c)
#pragma unroll
            for (int n = 0; n < pv_mma::tiles_n; ++n)
#pragma unroll
              for (int r = 0; r < regs; ++r) o[h][c].acc[0][n][r] *= alpha[r];
      }
      __syncthreads();  // scores done with the K steps, P tiles written
      transpose_v_half<parts>(k_lds, 0, v_lds, tid);
      __syncthreads();
      // Half 1 goes where K steps 0-3 were (half 0 has been taken from them), while the waves
      // multiply half 0: the two touch different bytes.
      if (wave_has_rows)
#pragma unroll
        for (int c = 0; c < parts::pv_pieces; ++c)
          o[0][c].template step<false>(p_lds, v_lds, 0, c * parts::pv_columns, lane);
      transpose_v_half<parts>(k_lds, 1, k_lds, tid);
      __syncthreads();
      if (wave_has_rows)
#pragma unroll
        for (int c = 0; c < parts::pv_pieces; ++c)
          o[1][c].template step<false>(p_lds, k_lds, 0, c * parts::pv_columns, lane);
      __syncthreads();  // before the next tile's stores
    }
    if (!wave_has_rows) return;

    // The row sums over their 16 lanes; out = O / sum, lse = max + log(sum) (natural log of the
    // scaled scores), or zeros and -inf for a row that saw no KV row.
    float inv[regs], lse[regs];
#pragma unroll
    for (int r = 0; r < regs; ++r) {
      float sum = l[r];
#pragma unroll
      for (int offset = 1; offset < 16; offset *= 2) sum += __shfl_xor(sum, offset);
      inv[r] = sum > 0.0f ? p.kv_scale / sum : 0.0f;  // and once per output value
      lse[r] = sum > 0.0f ? m[r] + logf(sum) : minus_inf;
    }
    // One split: the output in bf16 ([row][512]); several: this split's fp32 partial
    // ([row][split][512]) for the reduce. The LSE likewise, where it is asked for (a buffer of no
    // bytes drops the stores otherwise).
    auto store_rows = [&]<bool Direct>() {
      const std::uint32_t per_row = Direct ? 1u : static_cast<std::uint32_t>(p.splits);
      const std::uint32_t entries = static_cast<std::uint32_t>(rows) * per_row;
      const arch::buffer values =
          Direct ? arch::buffer::over(p.out + q_first * v_dim, entries * v_dim * 2)
                 : arch::buffer::over(p.partial_out + q_first * per_row * v_dim, entries * v_dim * 4);
      float* const lse_out = Direct ? p.lse : p.partial_lse;
      const arch::buffer lses =
          arch::buffer::over(lse_out ? lse_out + q_first * per_row : nullptr, lse_out ? entries * 4 : 0u);
#pragma unroll
      for (int r = 0; r < regs; ++r) {
        const int row = wave_row0 + qk_mma::acc_row(lane, r);
        const bool valid = row < rows;
        const std::uint32_t entry = static_cast<std::uint32_t>(row) * per_row + (Direct ? 0u : split);
#pragma unroll
        for (int h = 0; h < 2; ++h)
#pragma unroll
          for (int c = 0; c < parts::pv_pieces; ++c)
#pragma unroll
            for (int n = 0; n < pv_mma::tiles_n; ++n) {
              const std::uint32_t at =
                  entry * v_dim + static_cast<std::uint32_t>(h * parts::v_half + c * parts::pv_columns + 16 * n +
                                                             pv_mma::acc_col(lane));
              const float v = o[h][c].acc[0][n][r] * inv[r];
              if constexpr (Direct)
                values.store2(half_bits_rne<bf16>(v), valid ? at * 2 : arch::out_of_range);
              else
                values.store4(__builtin_bit_cast(std::uint32_t, v), valid ? at * 4 : arch::out_of_range);
            }
        lses.store4(__builtin_bit_cast(std::uint32_t, lse[r]),
                    valid && qk_mma::acc_col(lane) == 0 ? entry * 4 : arch::out_of_range);
      }
    };
    if (p.splits == 1)
      store_rows.template operator()<true>();
    else
      store_rows.template operator()<false>();
  }
}

// A call's device pointers: q, the cache and the sequences' tables (the device copies of
// sequences_view's), out, an optional lse, and the workspace of the split partials. KV: the cache's
// type, bf16, or the fp8 format the device reads with its per-tensor fp32 scale (kv_scale: the
// value of a code is code * kv_scale).
template <class KV = bf16>
struct args {
  const bf16* q = nullptr;          // [total_q][heads][576]
  const KV* cache = nullptr;        // [cache_rows][576] (paged: [pages][page_size][576])
  const int* qo_indptr = nullptr;   // [batch + 1]
  const int* kv_indptr = nullptr;   // ragged: [batch + 1]
  const int* kv_lens = nullptr;     // paged: [batch]
  const int* page_table = nullptr;  // paged: [batch][max_pages]
  bf16* out = nullptr;              // [total_q][heads][512]
  float* lse = nullptr;             // [total_q][heads], or null
  void* workspace = nullptr;        // workspace_bytes(...) bytes, 16-byte aligned
  std::size_t workspace_bytes = 0;
  float kv_scale = 1.0f;  // fp8 cache only
};

// The partial buffers of a split plan (none with one split): outputs, then LSEs.
inline std::size_t workspace_bytes(const problem& p, const sequences_view& s, const split_plan& plan) {
  if (!plan.reduce()) return 0;
  const std::size_t rows = std::size_t(s.q_rows()) * p.heads * plan.splits;
  return (rows * v_dim * 4 + 255) / 256 * 256 + rows * 4;
}

template <class KV>
status validate_args(const problem& p, const sequences_view& s, const args<KV>& a, const split_plan& plan) {
  if (status st = validate_sequences(p, s); !st.ok()) return st;
  const std::string what = "mla_decode " + p.str() + ": ";
  if (std::is_same_v<KV, bf16> ? a.kv_scale != 1.0f : !(std::isfinite(a.kv_scale) && a.kv_scale > 0.0f))
    return {status_code::bad_config,
            what + (std::is_same_v<KV, bf16> ? "kv_scale is an fp8 cache's scale; a bf16 cache has 1"
                                             : "kv_scale must be finite and positive")};
  const bool paged = p.layout == kv_layout::paged;
  if (status st =
          check_pointer_arguments(what, {{"q", a.q, 16, "16-byte vector loads"},
                                         {"cache", a.cache, 16, "16-byte vector loads"},
                                         {"qo_indptr", a.qo_indptr, 4, "int32"},
                                         {paged ? "kv_lens" : "kv_indptr", paged ? a.kv_lens : a.kv_indptr, 4, "int32"},
                                         {"out", a.out, 4, "bf16 pairs"}});
      !st.ok())
    return st;
  if (paged && !a.page_table) return {status_code::null_pointer, what + "argument page_table is null"};
  if (reinterpret_cast<std::uintptr_t>(a.lse) % 4)
    return {status_code::bad_alignment, what + "argument lse must be 4-byte aligned (fp32)"};
  if (plan.chunk < 32 || plan.chunk % 32 || plan.splits < 1 || plan.splits > max_splits)
    return {status_code::bad_config, what + "the split plan needs a chunk of whole 32-row KV tiles and 1 to " +
                                         std::to_string(max_splits) + " splits"};
  for (int b = 0; b < p.batch; ++b)
    if (!plan.covers(s.kv_len(b)))
      return {status_code::bad_config, what + "the split plan does not cover sequence " + std::to_string(b) + "'s " +
                                           std::to_string(s.kv_len(b)) + " KV rows"};
  const std::size_t need = workspace_bytes(p, s, plan);
  if (need && (!a.workspace || reinterpret_cast<std::uintptr_t>(a.workspace) % 16))
    return {status_code::null_pointer, what + "argument workspace must be given, 16-byte aligned, for split partials"};
  if (a.workspace_bytes < need)
    return {status_code::bad_config, what + "the workspace must hold " + std::to_string(need) + " bytes (have " +
                                         std::to_string(a.workspace_bytes) + ")"};
  return status::success();
}

// Validates, then launches config Cfg's decode kernel over (row groups, splits, sequences) and,
// with more than one split, the reduce: no host synchronisation, nothing allocated.
template <class Cfg, class KV>
status launch(const problem& p, const sequences_view& s, const args<KV>& a, const split_plan& plan,
              hipStream_t stream) {
  if (status st = validate_args(p, s, a, plan); !st.ok()) return st;
  if (p.batch == 0 || s.q_rows() == 0) return status::success();
  int max_rows = 0;
  for (int b = 0; b < p.batch; ++b) max_rows = std::max(max_rows, (s.qo_indptr[b + 1] - s.qo_indptr[b]) * p.heads);
  const std::size_t partial_rows = std::size_t(s.q_rows()) * p.heads * plan.splits;
  float* partial_out = plan.reduce() ? static_cast<float*>(a.workspace) : nullptr;
  float* partial_lse = plan.reduce() ? reinterpret_cast<float*>(static_cast<unsigned char*>(a.workspace) +
                                                                (partial_rows * v_dim * 4 + 255) / 256 * 256)
                                     : nullptr;
  const decode_params kp{a.q,        a.cache,     a.qo_indptr, a.kv_indptr,  a.kv_lens,   a.page_table,
                         p.heads,    p.page_size, p.max_pages, p.cache_rows, p.sm_scale,  a.kv_scale,
                         plan.chunk, plan.splits, a.out,       a.lse,        partial_out, partial_lse};
  const dim3 grid(static_cast<unsigned>(ceil_div(max_rows, Cfg::rows)), static_cast<unsigned>(plan.splits),
                  static_cast<unsigned>(p.batch));
  hipLaunchKernelGGL((mla_decode_kernel<Cfg, KV>), grid, dim3(Cfg::threads), 0, stream, kp);
  if (plan.reduce()) {
    const reduce_params<bf16> rp{partial_out,
                                 partial_lse,
                                 a.qo_indptr,
                                 p.layout == kv_layout::ragged ? a.kv_indptr : nullptr,
                                 p.layout == kv_layout::paged ? a.kv_lens : nullptr,
                                 p.batch,
                                 p.heads,
                                 plan.splits,
                                 plan.chunk,
                                 a.out,
                                 a.lse};
    hipLaunchKernelGGL(mla_reduce_kernel<bf16>, dim3(static_cast<unsigned>(s.q_rows() * p.heads)), dim3(merge::threads),
                       0, stream, rp);
  }
  if (hipError_t e = hipGetLastError(); e != hipSuccess)
    return {status_code::launch_failed, "mla_decode " + p.str() + ": " + hipGetErrorString(e)};
  return status::success();
}

}  // namespace wavekit::ops::mla_decode
