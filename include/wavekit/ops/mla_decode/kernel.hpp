// The MLA decode kernel (bf16 or fp8 queries; bf16, fp8 or MXFP4 latent cache) and its launcher. One
// workgroup per (sequence, split of its KV rows, group of (query row, head) rows: 16 a wave, or 16
// shared by four waves): it reads each KV row of its split once, for all its rows, composed of the
// kit's parts:
//
//   KV tile      32 rows x 576, moved by tile_loader_k_contiguous (its computed-row form: ragged
//                rows or pages) as nine 128-byte K steps into lds_swizzled_rows tiles; the next
//                tile's page lookups and first rounds of loads in flight through this tile's P x V
//   S^T = K Q^T  a warp MMA per wave (16 rows, one a lane): A = the K-step tiles, B = the wave's
//                queries, held in registers for the whole split (warp_mma::b_fragment_of)
//   softmax      online, fp32, in log2 units, per row: running max and sum, each row's in the
//                lanes of its column, the max moved (and O rescaled: a rare block) only when a
//                score passes it by more than rescale_margin; P^T rounded to bf16 stays in
//                registers as the next product's B operand (V^T holds the KV rows in the order that
//                operand takes the scores: v_position)
//   O^T += V^T P^T  a warp MMA per wave, A = V^T: on gfx950 read from the K-step tiles by
//                ds_read_b64_tr_b16 (read_v_transposed); on gfx942 a latent half of 256 columns of
//                the tile transposed from the K-step tiles in LDS (row pairs exchanged between
//                lanes, 4-byte stores), in two passes of 256 output columns
//   epilogue     O / sum to bf16 (one split) or fp32 partials with their LSE (several), merged by
//                the reduce (ops/mla_decode/reduce_kernel.hpp)
//
// Computing the transposes keeps a row's softmax state in one register of each lane of its column
// and P out of LDS. LDS: the nine K-step tiles (36 KiB), and on gfx942 one V^T half (16 KiB; the
// second V^T half reuses the first four K steps once the first half is built from them): 52 KiB of
// its 64. Rows a query does not see (past its split, or causally after it) score -inf; a row that
// sees none gets zeros and lse = -inf.
//
// Four waves sharing 16 rows (k_ways 4, rows16): wave k computes the scores over K steps k, k + 4,
// k + 8 and the output columns 128 k .. 128 k + 127; the partial scores meet in LDS, wave k
// computes the weights of the lanes' score pair k and shares them as word k of P^T (a rare block
// recomputes all four where the max moves), and on gfx942 each wave transposes its own two K steps
// in place (transpose_v_in_wave). LDS: 36 KiB of K steps and 10 KiB of partials, words and maxima.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <hip/hip_runtime.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <numbers>
#include <string>
#include <type_traits>

#include "wavekit/arch/bf16_pack.hpp"
#include "wavekit/arch/buffer.hpp"
#include "wavekit/arch/codegen_targets.hpp"
#include "wavekit/arch/device_math.hpp"
#include "wavekit/arch/fp4_convert.hpp"
#include "wavekit/arch/fp8_convert.hpp"
#include "wavekit/arch/lds.hpp"
#include "wavekit/arch/matrix_formats.hpp"
#include "wavekit/arch/mfma_atoms.hpp"
#include "wavekit/arch/schedule.hpp"
#include "wavekit/block/lse_merge.hpp"
#include "wavekit/core/half_convert.hpp"
#include "wavekit/core/math.hpp"
#include "wavekit/core/numeric_types.hpp"
#include "wavekit/core/result.hpp"
#include "wavekit/core/status.hpp"
#include "wavekit/ops/mla_decode/balanced_split.hpp"
#include "wavekit/ops/mla_decode/configs.hpp"
#include "wavekit/ops/mla_decode/plan.hpp"
#include "wavekit/ops/mla_decode/problem.hpp"
#include "wavekit/ops/mla_decode/reduce_kernel.hpp"
#include "wavekit/ops/mla_decode/schedule_kernel.hpp"
#include "wavekit/tile/lds_swizzled_rows.hpp"
#include "wavekit/tile/tile_loader_k_contiguous.hpp"
#include "wavekit/warp/warp_mma.hpp"

namespace wavekit::ops::mla_decode {

struct decode_params {
  const void* q;      // [total_q][heads][576] of the kernel's query type
  const void* cache;  // [cache_rows][576] of the kernel's KV type
  const int* qo_indptr;
  const int* kv_indptr;   // ragged, else null
  const int* kv_lens;     // paged, else null
  const int* page_table;  // paged, else null
  int heads, page_size, max_pages, cache_rows;
  float sm_scale;
  float kv_scale;               // fp8 or MXFP4 cache: its per-tensor scale; bf16: 1
  float q_scale;                // fp8 queries: their per-tensor scale; bf16: 1
  const void* kv_block_scales;  // MXFP4 cache: e8m0 [cache_rows][kv_block_scales_stride], else null
  int kv_block_scales_stride;
  int chunk, splits;   // the split plan (the grid of chunks)
  bf16* out;           // [total_q][heads][512]: where a run writes the whole output
  float* lse;          // [total_q][heads] or null
  float* partial_out;  // chunks: [total_q][heads][splits][512] when splits > 1; balanced: [2 workers][rows][512]
  float* partial_lse;  // chunks: [total_q][heads][splits]; balanced: [2 workers][rows]
  // The balanced schedule (balanced_split.hpp; the grid of chunks: null and 0): the workers'
  // segments (schedule_kernel.hpp), the cut runs' counters, the sequences and the workers.
  const int* segment_begin;       // [workers + 1]
  const segment_entry* segments;  // the schedule's list
  int* counters;                  // [workers]
  int batch, workers;
};

// Where a run of a row group's KV tiles leaves its rows: the output itself, or fp32 partials with
// their LSE, of split `index` of the grid of chunks ([row][splits] entries from the sequence's
// first row) or in partial slot `index` of the balanced schedule ([slot][row of the group]).
struct run_destination {
  enum kind_t { output, split_partial, piece_partial } kind;
  int index;
};

// Where V^T keeps KV row j of the tile (its K position, 0..31): the P x V step gives lane group g
// the K positions [8 g, 8 g + 8) (warp_mma's step_slices order, one 16-byte slice), and the scores
// leave KV row 16 n + 4 g + r in register r of tile n of lane group g (the 16x16 accumulator), so
// row 16 n + 4 g + r goes to element 4 n + (r ^ n) of that lane group's slice: the rows of tile 1
// trade places within their pairs (a pair's two rows still share one 4-byte word of V^T), so that
// the transpose reads even and odd rows together (transpose_v_half). The P x V product sums a
// slice's 8 products as one truncated group sum (docs/hardware.md 1.3: CDNA3, and the emulator on
// both targets), so their order leaves its bits alone.
WAVEKIT_HOST_DEVICE constexpr int v_position(int j) { return 8 * (j / 4 % 4) + 4 * (j / 16) + (j % 4 ^ j / 16); }
// Element e of a lane group's V^T slice holds the score in register slice_register(e) of tile e / 4.
WAVEKIT_HOST_DEVICE constexpr int slice_register(int e) { return e % 4 ^ e / 4; }

template <class Cfg, class KV, class Q = bf16>
struct decode_parts {
  static_assert(is_cache_type_v<KV>,
                "mla_decode: the cache is bf16, fp8 (e4m3fnuz on gfx942, e4m3fn on gfx950) or MXFP4 (fp4x2_e2m1)");
  static constexpr int kv_bits = kv_bits_of<KV>;
  static constexpr bool fp8_kv = kv_bits == 8, mx_kv = kv_bits == 4;
  // fp8 queries over an fp8 cache (amd-mixed-mla's a8w8 form): both products on the fp8 MFMAs,
  // the K-step tiles hold the cache's codes as stored and P^T is rounded to fp8 (fp8_products
  // below). Every other form multiplies bf16 (an fp8 or MXFP4 cache widened on its way into LDS).
  static constexpr bool fp8_products = fp8_kv && !std::is_same_v<Q, bf16>;
  static constexpr bool widened = kv_bits < 16 && !fp8_products;
  static constexpr int element_bytes = fp8_products ? 1 : 2;  // of the K-step tiles and V^T
  static constexpr int kv_tile = Cfg::kv_tile, threads = Cfg::threads;
  static constexpr int step_values = 64;                          // of the 576 a K step
  static constexpr int step_bytes = step_values * element_bytes;  // a K-step tile's row in LDS
  static constexpr int steps = qk_dim / step_values;              // 9
  static constexpr int v_half = v_dim / 2;                        // output columns a bf16 P x V pass
  static constexpr int half_steps = v_half / step_values;         // K steps whose columns form a half: 4
  static constexpr int v_steps = v_dim / step_values;             // K steps holding V's columns: 8
  // A cache is read as it is stored (128, 64 or 32 bytes of a row a K step); an fp8 or MXFP4 one
  // multiplied in bf16 is widened on its way into the K-step tiles (exact: e4m3, and e2m1 times
  // its block's scale, fit bf16), so the rest of the kernel is the bf16 one. The loader moves one
  // K step with one 16-byte chunk a thread (of MXFP4: 32 values, one scale block, whose e8m0 code
  // it loads too); the workgroup's threads load load_groups K steps at once.
  static constexpr int load_bytes = step_values * kv_bits / 8;  // of a cache row, a K step
  static constexpr int row_bytes = qk_dim * kv_bits / 8;        // of a cache row
  static constexpr int load_threads = kv_tile * load_bytes / 16, load_groups = threads / load_threads;
  using chunk_loader = tile::tile_loader_k_contiguous<kv_tile, load_bytes, load_threads, kv_bits>;
  struct scaled_chunk_loader : chunk_loader {
    std::uint32_t scale_at;  // the chunk's block scale at K = 0: row * stride + chunk (out_of_range: none)
    // The block's scale operand (arch::e8m0_scale_operand of its e8m0 code), made as it is loaded:
    // a code carried to its use would be widened from 16 bits first (one VALU more).
    float scale_operand;
  };
  using kv_loader = std::conditional_t<mx_kv, scaled_chunk_loader, chunk_loader>;
  static constexpr int load_rounds = ceil_div(steps, load_groups);
  // Rounds of the next tile's loads issued before this tile's P x V product and kept in flight
  // through it (the rest follow it, three at a time): as many as the registers hold beside the
  // product's and, on gfx942, the transposes' (4 registers a round: two on gfx950, one on gfx942,
  // where a second spills, and with an MXFP4 cache, whose scales' addresses and codes add to a
  // round, where a second spills on gfx950).
  // A wave of a config whose waves share their rows (k_ways > 1) holds a quarter of the outputs
  // and queries, and so the next tile whole: its loads are issued before this tile's scores. So
  // does a row config with fp8 products: its queries take half the registers (fp8) and its byte
  // transposes hold one K step's items at a time (rows64: 5 rounds, 20 registers; rows128: 3).
  static constexpr int k_ways = Cfg::k_ways;
  static constexpr int early_rounds = k_ways > 1 || fp8_products ? load_rounds
                                      : arch::current_target == arch::target::gfx942 || mx_kv
                                          ? 1
                                          : (load_rounds < 2 ? load_rounds : 2);
  static constexpr bool whole_tile_in_flight = early_rounds == load_rounds;
  // Whether every load group has a K step in round i.
  static constexpr bool round_full(int i) { return load_groups * (i + 1) <= steps; }
  // A widened cache's last round, with one K step for load_groups groups, is split between them:
  // group g moves part g (tail_part_bytes) of each chunk, so that every wave converts as many
  // values a tile (with whole chunks the first group's waves converted a chunk more: fp8 8 VALU a
  // tile on gfx942, 4 on gfx950, MXFP4 16, the most of any wave's, which the issue ratio counts).
  // An MXFP4 chunk's block scale is read once, by the first group, and handed to the others
  // through LDS (tail_scale_bytes: its fp32 scale operand a chunk) before the tile's stores. Nothing
  // to convert in a bf16 cache's tail. The few-row configs only: the row configs' MFMAs leave room
  // for their conversions (and rows128 on gfx942 has no register for a lane's part).
  static constexpr bool split_tail = widened && Cfg::k_ways > 1 &&
                                     (load_groups == 2 || load_groups == 4 || (mx_kv && load_groups == 8)) &&
                                     steps == load_groups*(load_rounds - 1) + 1;
  static constexpr int tail_part_bytes = 16 / load_groups;
  // The bytes a part takes widened: two a byte of fp8, four of MXFP4 (two values).
  static constexpr int tail_store_bytes = tail_part_bytes * 16 / kv_bits;
  static constexpr int tail_scale_bytes = split_tail && mx_kv ? load_threads * 4 : 0;
  // The part of its chunk that loader thread tid of load group `group` moves: its group's, but
  // where two parts share a 16-byte LDS unit (8 bytes widened) the rows' pairs alternate: a phase
  // of 16 lanes (four rows) then stores its ds_write_b64s into both halves of the units (its rows'
  // swizzles keep each pair's units apart), not into one half twice over.
  static constexpr int tail_part(int group, int tid) {
    return tail_store_bytes == 8 ? group ^ (tid / chunk_loader::chunks_per_row >> 1 & 1) : group;
  }
  static_assert(threads % load_threads == 0, "mla_decode: whole K steps a round of loads");
  using k_layout = tile::lds_swizzled_rows<step_bytes>;
  using v_layout = tile::lds_swizzled_rows<kv_tile * 2>;  // bf16 V^T: rows = output columns, K = KV rows
  using atom = std::conditional_t<fp8_products, arch::mfma_atom<KV, KV, 16, 16, 32>, arch::half_gemm_atom<bf16, 16>>;
  // S^T: rows = the tile's KV rows, columns = the wave's 16 (query row, head) rows.
  using qk_mma = warp::warp_mma<atom, kv_tile / 16, 1, step_bytes, warp::from_lds<k_layout>, warp::from_registers>;
  // O^T += V^T P^T in pieces of 32 output columns: a warp MMA issues all its LDS reads before its
  // MFMAs, and the reads of many column tiles at once would sit in registers beside the outputs
  // and the queries.
  static constexpr int pv_columns = 32, pv_pieces = v_half / pv_columns;
  // bf16 on gfx950 reads V^T's fragments straight from the K-step tiles with ds_read_b64_tr_b16
  // (read_v_transposed): no V^T tile, no transpose pass, two barriers a KV tile. gfx942, which has
  // no transposing read, builds each V^T half in LDS (transpose_v_half). fp8 products on both
  // targets transpose the tile's V bytes into a V^T tile of their own (transpose_v_bytes: the
  // 8-bit transposing read's exact permutation is not known, docs/hardware.md 4.3).
  static constexpr bool v_by_transposing_reads = arch::current_target == arch::target::gfx950 && !fp8_products;
  using v_source =
      std::conditional_t<v_by_transposing_reads || fp8_products, warp::from_registers, warp::from_lds<v_layout>>;
  using pv_mma = warp::warp_mma<atom, pv_columns / 16, 1, kv_tile * element_bytes, v_source, warp::from_registers>;
  static constexpr int k_tile_bytes = kv_tile * step_bytes;
  // A P x V piece's V^T rows start pv_piece_bytes further on: every piece's reads then have the
  // same lane addresses (immediate offsets apart), which holds as the layout's swizzle repeats
  // every pv_columns rows.
  static constexpr int pv_piece_bytes = pv_columns * kv_tile * 2;
  static constexpr bool pieces_repeat = [] {
    for (int r = 0; r < pv_columns; ++r)
      for (int k = 0; k < kv_tile * 2; k += 16)
        if (v_layout::offset(r + pv_columns, k) != v_layout::offset(r, k) + pv_piece_bytes) return false;
    return true;
  }();
  static_assert(pieces_repeat, "mla_decode: V^T's swizzle must repeat every P x V piece");
  // How far (log2 units: 2^(scaled score / ln 2)) a row's scores may pass its running max before
  // the max moves and the outputs are rescaled: weights up to 2^12 (4096), far inside bf16's and
  // fp32's range (8.3 in natural-log units of the scaled scores).
  // With fp8 products the weights are rounded to fp8 as P^T: a margin of 4 and weights scaled by
  // 2^p_shift = 2^3 keep them at most 2^7 (fp8's largest finite values: 240 fnuz, 448 OCP; no
  // clamp needed), and put a weight 2^-10 of the row's max still among fp8's normal values.
  static constexpr float rescale_margin = fp8_products ? 4.0f : 12.0f;
  static constexpr float p_shift = fp8_products ? 3.0f : 0.0f;
  // The waves of one row group (k_ways of them) share the work: wave k takes K steps k, k + k_ways,
  // ... of the scores (wave_steps at most) and output columns [k wave_columns, (k + 1) wave_columns).
  // Each writes its partial S^T (8 fp32 a lane) to LDS; wave k adds the group's partials of score
  // pair k and shares its weights (the kernel's k_ways > 1 softmax), so every wave holds the same
  // softmax state.
  static constexpr int wave_steps = ceil_div(steps, k_ways);
  static constexpr int wave_columns = v_dim / k_ways, wave_pieces = wave_columns / pv_columns;
  // With k_ways > 1: the partials (four score pairs a lane, 8 bytes each), P^T's words and the
  // pairs' maxima (4 bytes a lane each) of every wave.
  static constexpr int partial_bytes = k_ways > 1 ? threads * (4 * 8 + 4 + 4) : 0;
  // gfx942 with shared rows: each wave transposes its own columns' K steps in place (only it reads
  // them once the scores are done), no V^T tile and no barrier for it.
  static constexpr bool v_in_place = k_ways > 1 && !v_by_transposing_reads && !fp8_products;
  static constexpr int wave_column_steps = wave_columns / step_values;  // K steps holding a wave's columns
  // fp8 products: V^T in byte planes (vt_bytes_layout), all 512 columns; bf16 on gfx942 with k_ways
  // 1: one half of them.
  static constexpr int vt_plane_bytes = v_dim * 8 + 128;
  static constexpr int v_bytes = fp8_products                           ? 4 * vt_plane_bytes
                                 : v_by_transposing_reads || v_in_place ? 0
                                                                        : v_half * kv_tile * 2;
  static constexpr int lds_bytes = steps * k_tile_bytes + v_bytes + partial_bytes + tail_scale_bytes;
  static constexpr int regs = qk_mma::regs;
  static_assert(kv_loader::per_thread == 1 && kv_loader::chunks == load_threads && load_threads % 64 == 0,
                "mla_decode: one 16-byte chunk of a K step a thread, whole waves of them");
  static_assert(lds_bytes <= 64 * 1024, "mla_decode: the tiles exceed gfx942's 64 KiB of LDS");
  // The layouts the softmax and P^T rely on (v_position): the 16x16 accumulator (docs/hardware.md
  // 1.2) puts row 4 (l / 16) + r, column l % 16 in register r of lane l, and the P x V step gives
  // each lane group one 16-byte slice of the tile's 32 KV positions.
  static constexpr bool scores_feed_pv = [] {
    for (int l = 0; l < 64; ++l)
      for (int r = 0; r < 4; ++r)
        if (atom::acc_row(l, r) != 4 * (l / 16) + r || atom::acc_col(l) != l % 16) return false;
    bool taken[32] = {};
    for (int j = 0; j < 32; j += 2) {
      if (v_position(j) / 2 != v_position(j + 1) / 2) return false;  // pairs stay words
      taken[v_position(j)] = taken[v_position(j + 1)] = true;
    }
    for (bool t : taken)
      if (!t) return false;
    for (int g = 0; g < 4; ++g)  // P^T's elements are the scores v_position puts there
      for (int e = 0; e < 8; ++e)
        if (v_position(16 * (e / 4) + 4 * g + slice_register(e)) != 8 * g + e) return false;
    // Lane group 1 of a P x V step takes K positions 8 .. 15: bf16 by the step's slices, fp8 by the
    // atom's own layout (its fragments are built here, not read by the warp MMA).
    return kv_tile == 32 && qk_mma::regs == 4 && pv_mma::regs == 4 && pv_mma::reads == 1 &&
           pv_mma::read_k(16, 0) == 8 * element_bytes && pv_mma::order == warp::k_order::step_slices &&
           (!fp8_products || (atom::operand_k(16, 0) == 8 && atom::operand_k(16, 7) == 15));
  }();
  static_assert(scores_feed_pv, "mla_decode: the softmax and P^T assume the 16x16 accumulator layout");
};

// One item of a V^T transpose: KV rows 2p and 2p + 1 (p = lane % 16) at four columns (column quad
// q) of a K step, written as four 4-byte words of V^T, each column's pair at their positions
// (v_position keeps pairs together, the row it puts first in the low half). The lanes of an item
// take the column quads 16 rows of V^T apart (q = 4 g + sub for lane group g, XOR bit 2 of the
// pair), which spreads their stores over both halves of the banks (lds_swizzled_rows' row-pair
// trade every 16 rows). Each read takes a pair's row of even K position (v_position): row 2p for
// pairs 0-7, 2p + 1 for pairs 8-15. gfx950 serves a ds_read_b64 in phases of 32 lanes (16 pairs x 2
// quads) over 64 banks, where a 128-byte row covers one half of the banks, by its parity: rows of
// one parity alone would take two cycles a phase (one extra cycle per phase, 128 a KV tile). With
// both parities, and the column quads XOR bit 2 of the pair, gfx950's phases and gfx942's (16
// lanes, 32 banks) hit distinct 8-byte slots of the banks (the K-step rows' swizzle: the Gray code
// of the row on gfx950, row % 8 on gfx942), and the stores keep theirs (a pair's words are 16 rows
// of V^T apart still). The emulator's counters: no conflicts on either target.
template <class Parts>
struct v_transpose_item {
  static constexpr int pairs = Parts::kv_tile / 2, quads = Parts::step_bytes / 8;  // per K step: 16 x 16
  static constexpr int subs = pairs * quads / 64;  // items of one K step a wave's lanes take in turn
  static_assert(pairs == 16 && quads == 16,
                "mla_decode: the transpose takes K steps of 16 row pairs x 16 column quads");
  // Each further K step is a whole K-step tile on in the K steps and 64 rows on in V^T, where the
  // swizzle repeats: immediate offsets, so the addresses are computed once.
  static constexpr int v_step_bytes = 64 * Parts::kv_tile * 2;
  static_assert(
      [] {
        for (int r = 0; r < 64; ++r)
          for (int k = 0; k < Parts::kv_tile * 2; k += 4)
            if (Parts::v_layout::offset(r + 64, k) != Parts::v_layout::offset(r, k) + v_step_bytes) return false;
        return true;
      }(),
      "mla_decode: V^T's swizzle must repeat every 64 rows (one K step's columns)");
  int low_at, high_at;  // the pair's reads in a K-step tile
  int store_at[4];      // its words in V^T's first 64 rows
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE v_transpose_item(unsigned lane, int sub) {
    const int pair = static_cast<int>(lane % 16);
    const int low = 2 * pair + (pair >> 3), high = low ^ 1;  // the pair's rows, by their K positions
    const int quad = (4 * static_cast<int>(lane / 16) + sub) ^ (pair >> 2 & 1);
    low_at = Parts::k_layout::offset(low, 8 * quad), high_at = Parts::k_layout::offset(high, 8 * quad);
#pragma unroll
    for (int x = 0; x < 4; ++x) store_at[x] = Parts::v_layout::offset(4 * quad + x, 2 * v_position(low));
  }
  // Word x: the low halves (columns 4q, 4q + 2) or high halves of the two rows, (row low, row high).
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE static std::uint32_t word(const arch::u32x2& low_row, const arch::u32x2& high_row,
                                                               int x) {
    return __builtin_amdgcn_perm(high_row[x / 2], low_row[x / 2], x % 2 ? 0x07060302u : 0x05040100u);
  }
};

// V^T half h of the tile, from the K-step tiles in LDS (steps 4h .. 4h + 3) into v_lds, by all the
// workgroup's waves: wave w takes K step w / 4 of them (and further ones threads / 256 steps on)
// and item w % 4 of it (v_transpose_item). Built after the scores, so no register holds the tile
// meanwhile.
template <class Parts>
WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void transpose_v_half(const unsigned char* k_lds, int half, unsigned char* v_lds,
                                                         int wave, unsigned lane) {
  using item_of = v_transpose_item<Parts>;
  constexpr int items = item_of::pairs * item_of::quads, groups = Parts::threads / items;  // K steps at once
  static_assert(Parts::threads % items == 0 && Parts::half_steps % groups == 0,
                "mla_decode: the transpose takes whole K steps");
  const int first = wave / item_of::subs;  // whole waves a K step
  const item_of item(lane, wave % item_of::subs);
  const unsigned char* const tiles = k_lds + (half * Parts::half_steps + first) * Parts::k_tile_bytes;
  unsigned char* const v_first = v_lds + first * item_of::v_step_bytes;
#pragma unroll
  for (int i = 0; i < Parts::half_steps / groups; ++i) {
    const unsigned char* tile = tiles + groups * i * Parts::k_tile_bytes;
    const arch::u32x2 low_row = arch::lds_load<8>(tile + item.low_at);
    const arch::u32x2 high_row = arch::lds_load<8>(tile + item.high_at);
#pragma unroll
    for (int x = 0; x < 4; ++x)
      arch::lds_store<4>(v_first + item.store_at[x] + groups * i * item_of::v_step_bytes,
                         item_of::word(low_row, high_row, x));
  }
}

// The V^T rows of one wave's output columns (K steps first .. first + Parts::wave_column_steps - 1),
// transposed in place by that wave alone, once every wave is done with the scores: its lanes take
// the K steps' items in turn (v_transpose_item: sub = the turn), all reads before any store (a
// wave's LDS accesses run in order), so V^T row r of the wave's columns then stands at row r of
// the layout from K step `first`.
template <class Parts>
WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void transpose_v_in_wave(unsigned char* k_lds, int first, unsigned lane) {
  using item_of = v_transpose_item<Parts>;
  constexpr int steps = Parts::wave_column_steps, subs = item_of::subs;
  static_assert(item_of::v_step_bytes == Parts::k_tile_bytes, "mla_decode: V^T's 64 rows fill one K-step tile");
  unsigned char* const tiles = k_lds + first * Parts::k_tile_bytes;
  arch::u32x2 rows[steps][subs][2];
#pragma unroll
  for (int sub = 0; sub < subs; ++sub) {
    const item_of item(lane, sub);
#pragma unroll
    for (int i = 0; i < steps; ++i) {
      rows[i][sub][0] = arch::lds_load<8>(tiles + i * Parts::k_tile_bytes + item.low_at);
      rows[i][sub][1] = arch::lds_load<8>(tiles + i * Parts::k_tile_bytes + item.high_at);
    }
  }
#pragma unroll
  for (int sub = 0; sub < subs; ++sub) {
    const item_of item(lane, sub);
#pragma unroll
    for (int i = 0; i < steps; ++i)
#pragma unroll
      for (int x = 0; x < 4; ++x)
        arch::lds_store<4>(tiles + item.store_at[x] + i * item_of::v_step_bytes,
                           item_of::word(rows[i][sub][0], rows[i][sub][1], x));
  }
}

// fp8 products: V^T as four byte planes, plane g holding K positions 8 g .. 8 g + 7 (the bytes
// lane group g of a P x V step takes, KV rows by v_position) of every output column c, 8 bytes a
// column. A step's read of 16 columns by one lane group is 128 contiguous bytes whatever the order
// of the columns inside it, and the planes are 128 bytes out of step on gfx950's 64 banks, so the
// two lane groups of a phase (docs/hardware.md 4.2) meet no conflict; inside each group of four
// columns the order turns with bit 4 of the column and bit 0 of the plane, which spreads the
// transpose's stores (transpose_v_bytes) over the banks too.
template <class Parts>
struct vt_bytes_layout {
  WAVEKIT_HOST_DEVICE static constexpr int offset(int column, int plane) {
    const int turn = (column >> 4 & 1) | (plane & 1) << 1;
    return plane * Parts::vt_plane_bytes + 8 * ((column & ~3) | ((column ^ turn) & 3));
  }
};

// fp8 products: V's columns of a K step (64 output columns, 32 KV rows) transposed from the K-step
// tile into V^T's planes, one item a lane: column quad q (bytes 4 q .. 4 q + 3 of the step's rows)
// of KV rows 4 a .. 4 a + 3 and 16 + 4 a .. 16 + 4 a + 3, which v_position puts at K positions
// 8 a .. 8 a + 7 (the low rows in order, the high ones swapped in pairs): each column's 8 bytes are
// one store into plane a. Read r takes row 4 a + (r ^ a) (and 16 + ..), so a read's lanes reach
// rows of all four residues mod 4 and both halves of the banks (a lane's four rows are then in an
// order of its own, which the byte selectors of the two perm stages undo: bit 0 of a swaps the
// first stage's rows, bit 1 the second stage's pairs; the high rows' pair swap is the first
// stage's operands exchanged). Lane bits: q = 4 (bit 2 | bit 4 << 1) + bits 0-1, a = bit 3 |
// bit 5 << 1, so 32 consecutive lanes read all 16 quads of two residues and 16 consecutive lanes
// store into 16 distinct 8-byte slots (vt_bytes_layout). 8 reads, 16 perms and 4 stores a lane
// and K step. The lane's addresses are for K step `first`; a K step further on is an immediate
// offset (a K-step tile, 64 columns of the planes).
template <class Parts>
struct vt_bytes_item {
  int read_at[2][4];  // the low and high rows' reads in K step first's tile
  int store_at[4];    // column x's 8 bytes in plane a, for K step first
  std::uint32_t first_sel, second_sel, even_sel, odd_sel;
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE vt_bytes_item(unsigned lane, int first) {
    const int a = static_cast<int>((lane >> 3 & 1) | (lane >> 5) << 1);
    const int quad = static_cast<int>(4 * ((lane >> 2 & 1) | (lane >> 4 & 1) << 1) + (lane & 3));
#pragma unroll
    for (int r = 0; r < 4; ++r)
#pragma unroll
      for (int h = 0; h < 2; ++h)
        read_at[h][r] = first * Parts::k_tile_bytes + Parts::k_layout::offset(16 * h + 4 * a + (r ^ a), 4 * quad);
#pragma unroll
    for (int x = 0; x < 4; ++x)
      store_at[x] = vt_bytes_layout<Parts>::offset(Parts::step_values * first + 4 * quad + x, a);
    // Stage 1: bytes 0-1 (first) and 2-3 (second) of two rows interleaved; stage 2: column x's
    // four rows from the two row pairs' interleaves (even: x = 0, 2; odd: x = 1, 3).
    first_sel = a & 1 ? 0x01050004u : 0x05010400u, second_sel = a & 1 ? 0x03070206u : 0x07030602u;
    even_sel = a & 2 ? 0x01000504u : 0x05040100u, odd_sel = a & 2 ? 0x03020706u : 0x07060302u;
  }
  // K step first + on.
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void transpose(const unsigned char* k_lds, unsigned char* v_lds, int on) const {
    std::uint32_t rows[2][4];
#pragma unroll
    for (int r = 0; r < 4; ++r)
#pragma unroll
      for (int h = 0; h < 2; ++h) rows[h][r] = arch::lds_load<4>(k_lds + read_at[h][r] + on * Parts::k_tile_bytes);
    std::uint32_t columns[2][4];
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      auto stage1 = [&](int p, std::uint32_t sel) {
        return h ? __builtin_amdgcn_perm(rows[h][2 * p], rows[h][2 * p + 1], sel)
                 : __builtin_amdgcn_perm(rows[h][2 * p + 1], rows[h][2 * p], sel);
      };
      const std::uint32_t u0 = stage1(0, first_sel), u1 = stage1(1, first_sel);
      const std::uint32_t v0 = stage1(0, second_sel), v1 = stage1(1, second_sel);
      columns[h][0] = __builtin_amdgcn_perm(u1, u0, even_sel);
      columns[h][1] = __builtin_amdgcn_perm(u1, u0, odd_sel);
      columns[h][2] = __builtin_amdgcn_perm(v1, v0, even_sel);
      columns[h][3] = __builtin_amdgcn_perm(v1, v0, odd_sel);
    }
#pragma unroll
    for (int x = 0; x < 4; ++x)
      arch::lds_store<8>(v_lds + store_at[x] + on * Parts::step_values * 8, arch::u32x2{columns[0][x], columns[1][x]});
  }
};

// fp8 products: the A fragment of the P x V piece of output columns column0 .. column0 + 31
// (column0 a multiple of 32) from V^T's planes: tile i's lane l takes column column0 + 16 i + l %
// 16 of plane l / 16. lane_at[i]: the lane's bytes in V^T for column0 = 0.
template <class Parts>
WAVEKIT_DEVICE WAVEKIT_FORCEINLINE typename Parts::pv_mma::a_fragment read_vt_bytes(
    int column0, const unsigned char* const (&lane_at)[2]) {
  typename Parts::pv_mma::a_fragment a;
#pragma unroll
  for (int i = 0; i < Parts::pv_mma::tiles_m; ++i)
    a.v[i][0] = __builtin_bit_cast(typename Parts::pv_mma::operand_bits, arch::lds_load<8>(lane_at[i] + 8 * column0));
  return a;
}

// gfx950: the A fragment of P x V piece `piece` (output columns 32 piece + 16 i of tile i counted
// from the K-step tile at `columns`, K = the tile's 32 KV rows in v_position's order) read from the
// K-step tiles with ds_read_b64_tr_b16. Lane group g takes K positions 8 g .. 8 g + 7: read r of its
// two gives positions 8 g + 4 r + n, KV row 16 r + 4 g + (n ^ r) (v_position), so lane 4 n + q of
// the group names that row's columns 4 q .. 4 q + 3 of the 16-column block, and each lane
// receives its own column (arch::lds_load_transposed_b16). row_at[r][b]: this lane's byte of its
// row for read r in 16-column block b of a K step (the swizzle XORs chunks, so each block has its
// own address; the K steps are immediate offsets apart).
template <class Parts>
WAVEKIT_DEVICE WAVEKIT_FORCEINLINE typename Parts::pv_mma::a_fragment read_v_transposed(const unsigned char* columns,
                                                                                        int piece,
                                                                                        const int (&row_at)[2][4]) {
  typename Parts::pv_mma::a_fragment a;
#pragma unroll
  for (int i = 0; i < Parts::pv_mma::tiles_m; ++i) {
    const int column = piece * Parts::pv_columns + 16 * i;
    const unsigned char* step = columns + column / 64 * Parts::k_tile_bytes;
    const arch::u32x2 low = arch::lds_load_transposed_b16(step + row_at[0][column % 64 / 16]);
    const arch::u32x2 high = arch::lds_load_transposed_b16(step + row_at[1][column % 64 / 16]);
    a.v[i][0] = typename Parts::pv_mma::operand_bits{low[0], low[1], high[0], high[1]};
  }
  return a;
}

// A loader's chunk widened to bf16 into the K-step tile, exactly: of an fp8 cache 16 values of KV
// row c / 4, K values 16 (c % 4) .. (arch/fp8_convert.hpp: two 16-byte stores); of an MXFP4 cache
// 32 values of row c / 2, K values 32 (c % 2) .., one scale block, times its scale
// (arch/fp4_convert.hpp: four 16-byte stores). tid: the loader's thread (every one below its
// chunks: decode_parts sizes the loader to the threads of one K step).
template <class Parts>
WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void store_widened(const typename Parts::kv_loader& loaded, unsigned char* tile,
                                                      int tid) {
  using loader = typename Parts::kv_loader;
  const int row = tid / loader::chunks_per_row, k = tid % loader::chunks_per_row;
  if constexpr (Parts::mx_kv) {
    const float scale = loaded.scale_operand;
#pragma unroll
    for (int w = 0; w < 4; ++w)
      arch::lds_store<16>(tile + Parts::k_layout::offset(row, 64 * k + 16 * w),
                          arch::widen_fp4x8_to_bf16(loaded.regs[0][w], scale));
    return;
  }
  arch::u32x2 bf16_pairs[4];
#pragma unroll
  for (int w = 0; w < 4; ++w) bf16_pairs[w] = arch::widen_fp8x4_to_bf16(loaded.regs[0][w]);
  arch::lds_store<16>(tile + Parts::k_layout::offset(row, 32 * k),
                      arch::u32x4{bf16_pairs[0][0], bf16_pairs[0][1], bf16_pairs[1][0], bf16_pairs[1][1]});
  arch::lds_store<16>(tile + Parts::k_layout::offset(row, 32 * k + 16),
                      arch::u32x4{bf16_pairs[2][0], bf16_pairs[2][1], bf16_pairs[3][0], bf16_pairs[3][1]});
}

// Part `part` of a loader's chunk (decode_parts::split_tail: Parts::tail_part_bytes of it, in the
// low bytes of the chunk's registers) widened the same way, into its place in the chunk's; an
// MXFP4 part times the loader's scale operand (the first load group's, handed on to every group).
template <class Parts>
WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void store_widened_part(const typename Parts::kv_loader& loaded, unsigned char* tile,
                                                           int tid, int part) {
  using loader = typename Parts::kv_loader;
  constexpr int bytes = Parts::tail_part_bytes, stored = Parts::tail_store_bytes;
  const int row = tid / loader::chunks_per_row, k = tid % loader::chunks_per_row;
  const arch::u32x4 bits = loaded.regs[0];
  unsigned char* const at =
      tile + Parts::k_layout::offset(row, 2 * Parts::step_values / loader::chunks_per_row * k + stored * part);
  if constexpr (Parts::mx_kv) {
    static_assert(bytes == 2 || bytes == 4, "mla_decode: 2 or 4 bytes an MXFP4 tail part (eight or four load groups)");
    if constexpr (bytes == 2)
      arch::lds_store<8>(at, arch::widen_fp4x4_to_bf16(bits[0], loaded.scale_operand));
    else
      arch::lds_store<16>(at, arch::widen_fp4x8_to_bf16(bits[0], loaded.scale_operand));
  } else {
    static_assert(bytes == 4 || bytes == 8, "mla_decode: 4 or 8 bytes an fp8 tail part (four or two load groups)");
    const arch::u32x2 low = arch::widen_fp8x4_to_bf16(bits[0]);
    if constexpr (bytes == 4) {
      arch::lds_store<8>(at, low);
    } else {
      const arch::u32x2 high = arch::widen_fp8x4_to_bf16(bits[1]);
      arch::lds_store<16>(at, arch::u32x4{low[0], low[1], high[0], high[1]});
    }
  }
}

// Whether decode_parts<Cfg, KV, Q> runs on the target being compiled (the host: every form): the
// converters read the target's own fp8 format, MXFP4 is gfx950's.
template <class Cfg, class KV, class Q>
inline constexpr bool decode_runs_here =
    arch::runs_on_current_target<typename decode_parts<Cfg, KV, Q>::atom> &&
    (arch::current_target == arch::target::host ||
     !((decode_parts<Cfg, KV, Q>::fp8_kv && !arch::reads_fp8<KV>(arch::current_target)) ||
       (decode_parts<Cfg, KV, Q>::mx_kv && arch::current_target != arch::target::gfx950) ||
       (!std::is_same_v<Q, bf16> && !arch::reads_fp8<Q>(arch::current_target))));

// One run of the decode: row group row0 of sequence b over its KV rows [j_begin, min(kv_len,
// j_limit)) (a run from past the sequence's rows, a chunk it does not have, does nothing), its
// rows left at `dest`. Every thread of the workgroup calls it (tid: threadIdx.x); it returns with
// every wave past the loop's last barrier (the epilogue reads no K-step tile).
// Q: the queries' type, bf16 or the target's fp8 format (widened to bf16 as they are loaded,
// exactly, so the rest of the kernel is the bf16 one). Resident: a run of the balanced kernel's
// worker loop (mla_decode_balanced_kernel), else the kernel's only run.
template <class Cfg, class KV, class Q, bool Resident>
WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void decode_run(const decode_params& p, unsigned char* const k_lds, const int b,
                                                   const int row0, const int j_begin, const int j_limit,
                                                   const run_destination dest, const int tid) {
  using parts = decode_parts<Cfg, KV, Q>;
  static_assert(std::is_same_v<Q, bf16> || std::is_same_v<Q, fp8_e4m3fnuz> || std::is_same_v<Q, fp8_e4m3fn>,
                "mla_decode: the queries are bf16 or fp8 (e4m3fnuz on gfx942, e4m3fn on gfx950)");
  constexpr bool fp8_q = !std::is_same_v<Q, bf16>;
  using qk_mma = typename parts::qk_mma;
  using pv_mma = typename parts::pv_mma;
  constexpr int steps = parts::steps, kv_tile = parts::kv_tile, regs = parts::regs;
  {
    unsigned char* const v_lds = k_lds + steps * parts::k_tile_bytes;
    unsigned char* const partial_lds = v_lds + parts::v_bytes;  // S^T partials (k_ways > 1)
    // An MXFP4 cache's split tail: the scale operand of each of the last K step's chunks.
    unsigned char* const tail_scales_lds = partial_lds + parts::partial_bytes;
    const int lane = tid % 64, wave = __builtin_amdgcn_readfirstlane(tid / 64);
    __builtin_assume(wave >= 0 && wave < Cfg::waves);  // readfirstlane hides it: no sign fix-ups
    // Values the whole workgroup shares, read from the tables: readfirstlane tells the compiler so
    // (scalar registers; buffer descriptors built from them stay scalar, no waterfall loops).
    const int q_begin = __builtin_amdgcn_readfirstlane(p.qo_indptr[b]);
    const int q_len = __builtin_amdgcn_readfirstlane(p.qo_indptr[b + 1]) - q_begin, rows = q_len * p.heads;
    if (row0 >= rows) return;  // the whole workgroup: a group of rows this sequence lacks
    const int kv_base = p.kv_indptr ? __builtin_amdgcn_readfirstlane(p.kv_indptr[b]) : 0;
    const int kv_len = __builtin_amdgcn_readfirstlane(p.kv_indptr ? p.kv_indptr[b + 1] - kv_base : p.kv_lens[b]);
    if (j_begin > 0 && j_begin >= kv_len) return;  // a chunk this sequence does not have
    const int j_end = std::min(kv_len, j_limit);
    // The wave's rows (16 of them from wave_row0) and its share of them (k_way of k_ways: the K
    // steps k_way + k_ways i of the scores, output columns from k_way * wave_columns).
    constexpr int k_ways = parts::k_ways;
    const int k_way = wave % k_ways, wave_row0 = row0 + 16 * (wave / k_ways);
    const bool wave_has_rows = Cfg::row_waves == 1 || wave_row0 < rows;  // the same in every lane of the wave
    // This lane's row (query row, head): column lane % 16 of the wave's S^T and O^T; its lane group
    // g = lane / 16 holds KV rows 16 n + 4 g + r of each tile and four output columns of each 16.
    const int row = wave_row0 + lane % 16, group = lane / 16;
    const bool row_valid = row < rows;

    // The wave's 16 queries as B fragments of its K steps (all nine with k_ways 1), for the whole
    // split (fp8 ones read as stored, half the bytes, and widened). Wave-uniform: whether the wave
    // has its i-th step (k_ways 4: the third only wave 0).
    auto wave_step = [&](int i) { return k_ways == 1 ? i : k_way + k_ways * i; };
    auto has_step = [&](int i) { return k_ways * (i + 1) <= steps || wave_step(i) < steps; };
    const std::size_t q_first = static_cast<std::size_t>(q_begin) * p.heads;  // the sequence's first row
    typename qk_mma::b_fragment q_frag[parts::wave_steps];
    {
      constexpr std::uint32_t q_bytes = sizeof(Q);
      const arch::buffer qb = arch::buffer::over(static_cast<const unsigned char*>(p.q) + q_first * qk_dim * q_bytes,
                                                 static_cast<std::uint32_t>(rows) * qk_dim * q_bytes);
      const std::uint32_t at = row_valid ? static_cast<std::uint32_t>(row) * qk_dim * q_bytes : arch::out_of_range;
#pragma unroll
      for (int i = 0; i < parts::wave_steps; ++i) {
        if (!has_step(i)) continue;
        const int s = wave_step(i);
        arch::u32x4 v[qk_mma::reads][1];
#pragma unroll
        for (int r = 0; r < qk_mma::reads; ++r) {
          // The read's bytes of bf16 values; of fp8 ones, half as many.
          const std::uint32_t k = static_cast<std::uint32_t>(qk_mma::read_k(lane, r)) * q_bytes / 2;
          const std::uint32_t step = static_cast<std::uint32_t>(s * parts::step_bytes) * q_bytes / 2;  // wave-uniform
          if constexpr (parts::fp8_products) {  // the codes as they are, for the fp8 MFMAs
            v[r][0] = qb.load16(at + static_cast<std::uint32_t>(qk_mma::read_k(lane, r)),
                                static_cast<std::uint32_t>(s * parts::step_bytes));
          } else if constexpr (fp8_q) {
            const arch::u32x2 codes = qb.load8(at + k, step);
            const arch::u32x2 low = arch::widen_fp8x4_to_bf16(codes[0]), high = arch::widen_fp8x4_to_bf16(codes[1]);
            v[r][0] = arch::u32x4{low[0], low[1], high[0], high[1]};
          } else {
            v[r][0] = qb.load16(at + k, step);
          }
        }
        q_frag[i] = qk_mma::b_fragment_of(v);
      }
      // The queries' loads waited for here, before the loop: a load still in flight at the loop's
      // entry would make the compiler wait, at every tile's first score, for every load issued
      // since (the next tile's, issued just before: vmcnt counts in order).
#pragma unroll
      for (int i = 0; i < parts::wave_steps; ++i)
        if (has_step(i)) arch::keep_whole(q_frag[i].v[0]);
    }
    // The first KV row this lane's query does not see.
    const int visible_end = row_valid ? std::min(j_end, kv_len - q_len + 1 + row / p.heads) : j_begin;
    // The same counted from this lane group's first KV row of a tile (each tile's count of the rows
    // seen is then this less the tile's first row).
    const int group_visible_end = visible_end - 4 * group;
    // The first KV row some query of the wave does not see (its first row's query sees the
    // fewest): tiles before it need no mask. The same in every lane: readfirstlane puts it in a
    // scalar register, so each tile's test is a scalar compare and the mask a scalar branch.
    const int wave_visible_end =
        __builtin_amdgcn_readfirstlane(std::min(j_end, kv_len - q_len + 1 + wave_row0 / p.heads));

    const arch::buffer cache = arch::buffer::over(p.cache, static_cast<std::uint32_t>(p.cache_rows) * parts::row_bytes);
    // An MXFP4 cache's e8m0 block scales, row r's at r * stride (none for other caches: no bytes).
    const arch::buffer block_scales =
        arch::buffer::over(p.kv_block_scales, parts::mx_kv ? static_cast<std::uint32_t>(p.cache_rows) *
                                                                 static_cast<std::uint32_t>(p.kv_block_scales_stride)
                                                           : 0u);
    const int* pages = p.page_table ? p.page_table + static_cast<std::size_t>(b) * p.max_pages : nullptr;
    auto cache_row = [&](int j) {  // the cache row of the sequence's KV row j, -1 past the split
      if (j >= j_end) return -1;
      if (!pages) return kv_base + j;
      // j >= 0: unsigned division (no sign fix-ups)
      const unsigned page = static_cast<unsigned>(j) / static_cast<unsigned>(p.page_size);
      return pages[page] * p.page_size + (j - static_cast<int>(page) * p.page_size);
    };
    // A whole next tile in flight (whole_tile_in_flight): the page-table entry of a loader lane's
    // row is fetched a tile earlier still, by a buffer load (counted by vmcnt alone, in order behind
    // the KV loads issued before it), so no tile waits for a page-table round trip before issuing
    // its next tile's loads. The lane's chunk is followed a tile at a time (page_cursor: its page
    // and its place, the units from the page's start to the chunk; kv_tile rows are tile_pages
    // whole pages and tile_rest more), so that a run divides by the page size once, not every tile
    // (a division by a kernel argument is some twenty VALU a lane), and a tile's offset is entry *
    // page_units + place, one multiply-add. An MXFP4 cache's place counts rows, not bytes: the row
    // in the cache gives both the chunk's bytes and its block scale's index, one multiply-add each
    // (from bytes the scale took a division by the row's). A ragged cache is one page without end
    // at place 0 (entry 0, the empty table's): the place never wraps, so both layouts take the same
    // instructions.
    const arch::buffer page_table = arch::buffer::over(
        pages, pages && parts::whole_tile_in_flight ? static_cast<std::uint32_t>(p.max_pages) * 4u : 0u);
    struct page_cursor {
      std::uint32_t entry_at;  // the byte of the page's entry in its table row
      std::uint32_t place;
    };
    struct page_ahead {
      std::uint32_t entry, place;
    };
    constexpr std::uint32_t row_bytes = parts::row_bytes;
    using loader = typename parts::kv_loader;
    constexpr int step_waves = parts::load_threads / 64;
    // This lane's loader row and chunk (one chunk a lane and K step).
    static_assert(loader::per_thread == 1, "mla_decode: one chunk of a K step a loader lane");
    const int loader_tid = wave % step_waves * 64 + lane, loader_row = loader_tid / loader::chunks_per_row;
    // (chunk_byte hidden from the compiler where the place counts rows: a multiply and an or it
    // would make of row * 288 + chunk_byte are one multiply-add.)
    const std::uint32_t chunk = static_cast<std::uint32_t>(loader_tid % loader::chunks_per_row),
                        chunk_byte = parts::mx_kv ? arch::opaque_copy(chunk * 16u) : chunk * 16u;
    // The cursor's unit (a byte, or a row) and a row's units; the chunk's place in its row.
    constexpr bool rows_placed = parts::mx_kv;
    constexpr std::uint32_t row_units = rows_placed ? 1u : row_bytes;
    const std::uint32_t chunk_place = rows_placed ? 0u : chunk_byte;
    // A page's units: below 2^31 where the cache holds a page (with none, no row is read).
    const std::uint32_t page_units = static_cast<std::uint32_t>(p.page_size) * row_units;
    const unsigned tile_pages = pages ? static_cast<unsigned>(kv_tile / p.page_size) : 0u;
    const std::uint32_t tile_rest = static_cast<std::uint32_t>(pages ? kv_tile % p.page_size : kv_tile) * row_units;
    // What going back a page takes from a place past the page's last row: 2^31 with a ragged cache
    // (more than any place: the subtraction always borrows).
    const std::uint32_t wrap_units = pages ? page_units : 1u << 31;
    auto cursor_at = [&](int j) {
      if (!pages) return page_cursor{0u, static_cast<std::uint32_t>(kv_base + j) * row_units + chunk_place};
      const unsigned page = static_cast<unsigned>(j) / static_cast<unsigned>(p.page_size);  // j >= 0
      return page_cursor{
          page * 4u, static_cast<std::uint32_t>(j - static_cast<int>(page) * p.page_size) * row_units + chunk_place};
    };
    // A place past its page's last row (the subtraction of a page does not borrow: the chunk's
    // place in its row is below a row's units) goes back a page and the entry forward one.
    auto advance_tile = [&](page_cursor& c) {
      const std::uint32_t next = c.place + tile_rest;
      std::uint32_t back;
      const bool stays = __builtin_sub_overflow(next, wrap_units, &back);
      c.place = stays ? next : back;
      c.entry_at += tile_pages * 4u + (stays ? 0u : 4u);
    };
    // The entry at cursor c, unconditionally: a page past the sequence's rows reads an entry of its
    // table row that nothing uses (the chunk reads nothing there), past max_pages or with a ragged
    // cache (no bytes) the buffer's 0.
    auto fetch_page = [&](const page_cursor& c) { return page_ahead{page_table.load4(c.entry_at), c.place}; };
    // The cache row of the chunk at `ahead`, rows_placed.
    auto row_ahead = [&](const page_ahead& a) { return a.entry * static_cast<std::uint32_t>(p.page_size) + a.place; };

    constexpr float minus_inf = -std::numeric_limits<float>::infinity();
    // Scores go to the softmax in log2 units: 2^(s * score_log2 - m) is e^(scaled score - m ln 2)
    // for the row's running m, one fused multiply-add and v_exp_f32 a weight (the fp8 scales join
    // here, once per score; check_scales keeps the product a normal fp32).
    const float score_log2 = p.sm_scale * p.kv_scale * p.q_scale * std::numbers::log2e_v<float>;
    // O^T: the wave's output columns [32 c, 32 c + 32) from k_way * wave_columns in o[c].
    constexpr int pieces = parts::wave_pieces;
    pv_mma o[pieces];
#pragma unroll
    for (int c = 0; c < pieces; ++c) o[c].clear();
    // The row's running max (log2 units, -inf before its first seen row), the weights' offset (-m,
    // or 0 while m is -inf, so that unseen scores weigh 2^-inf = 0), and this lane's share of the
    // row's running sum.
    float m = minus_inf, offset = 0.0f;
    // The raw score past which the max moves, (m + rescale_margin) / score_log2 (set with m): a
    // lane's max is compared as it is, with no multiply a tile (score_log2 > 0; a threshold one
    // rounding off lets a weight pass 2^rescale_margin by a few ulp, inside the bounds it sets).
    float m_moves = minus_inf;
    // The row configs add a lane's eight weights to one sum (its registers are spoken for); rows16
    // keeps two partial sums, one v_pk_add_f32 a weight pair.
    std::conditional_t<k_ways == 1, float, floatx2> l{};
    typename pv_mma::b_fragment p_frag;
    // Whole waves take whole K steps of a tile's loads: a wave's first step is the same in all its
    // lanes, so the steps' K offsets are scalar and a step past the ninth is a scalar branch.
    const int step0 = wave / step_waves;

    // A tile's K steps: wave w moves chunk (w % step_waves) * 64 + lane of K steps w / step_waves +
    // load_groups i (round i). Rounds [Begin, End) are issued together (their chunks in registers
    // at once), waited for together and stored together.
    // A tile's rows from their cache rows (cache_row), or (whole_tile_in_flight) the lane's chunk at
    // `ahead`, tested against the split's end unless the whole tile is `inside` it.
    auto locate_tile = [&](int j0, int load_tid, const page_ahead* ahead = nullptr, bool inside = false) {
      loader first;
      if (ahead)
        first.locate_offsets_by(
            [&](int r, int) {
              const std::uint32_t at =
                  rows_placed ? row_ahead(*ahead) * row_bytes + chunk_byte : ahead->entry * page_units + ahead->place;
              return inside || j0 + r < j_end ? at : arch::out_of_range;
            },
            load_tid);
      else
        first.locate_rows_by([&](int r) { return cache_row(j0 + r); }, qk_dim, load_tid);
      if constexpr (parts::mx_kv) {
        // The chunk's block scale: row * stride + chunk, the row that of `ahead`, or from the
        // chunk's bytes, row * 288 + 16 chunk (at / 16 is row * 18 + chunk, the scale's index in an
        // unpadded table, to which each row adds its padding; the registers hold nothing more across
        // the tile: the row is not kept). A tile inside the split has every row: no test (the
        // others' offsets are hidden from the compiler, which would otherwise merge the two and test
        // every tile).
        const std::uint32_t at = inside ? first.base[0] : arch::opaque_copy(first.base[0]);
        const std::uint32_t stride = static_cast<std::uint32_t>(p.kv_block_scales_stride);
        const std::uint32_t scale_at =
            ahead ? row_ahead(*ahead) * stride + chunk : at / 16 + at / parts::row_bytes * (stride - scale_blocks);
        first.scale_at = inside || at != arch::out_of_range ? scale_at : arch::out_of_range;
      }
      return first;
    };
    auto issue_rounds = [&]<int Begin, int End>(const loader& first, loader(&loads)[End - Begin], int load_tid) {
#pragma unroll
      for (int i = Begin; i < End; ++i) {
        // Whole waves past the ninth step load nothing (a round in which every wave has a step to
        // load tests nothing).
        const int s = step0 + parts::load_groups * i;
        loads[i - Begin] = first;
        if constexpr (parts::split_tail) {
          if (i == parts::load_rounds - 1) {
            // The last K step, this lane's part of the chunk (step0: its group), the part's place a
            // scalar offset where it is the group's alone.
            constexpr bool lane_parts = parts::tail_store_bytes == 8;
            const std::uint32_t part_at = static_cast<std::uint32_t>(
                                    (lane_parts ? parts::tail_part(step0, load_tid) : step0) * parts::tail_part_bytes),
                                at = first.base[0] + (lane_parts ? part_at : 0u),
                                step_at = static_cast<std::uint32_t>((steps - 1) * parts::load_bytes) +
                                          (lane_parts ? 0u : part_at);
            if constexpr (parts::tail_part_bytes == 8) {
              const arch::u32x2 part = cache.load8(at, step_at);
              loads[i - Begin].regs[0][0] = part[0];
              loads[i - Begin].regs[0][1] = part[1];
            } else if constexpr (parts::tail_part_bytes == 4) {
              loads[i - Begin].regs[0][0] = cache.load4(at, step_at);
            } else {
              loads[i - Begin].regs[0][0] = cache.load2(at, step_at);
            }
            // The chunk's block scale, by the first group alone (hand_on_tail_scales).
            if constexpr (parts::mx_kv)
              if (step0 == 0)
                loads[i - Begin].scale_operand = arch::e8m0_scale_operand(
                    block_scales.load1(first.scale_at, static_cast<std::uint32_t>(2 * (steps - 1))));
            continue;
          }
        }
        if (parts::round_full(i) || s < steps) {
          loads[i - Begin].load(cache, qk_dim, s * parts::step_values);
          if constexpr (parts::mx_kv)  // K step s holds blocks 2 s and 2 s + 1 of the row
            loads[i - Begin].scale_operand =
                arch::e8m0_scale_operand(block_scales.load1(first.scale_at, static_cast<std::uint32_t>(2 * s)));
        }
      }
    };
    auto store_rounds = [&]<int Begin, int End>(loader(&loads)[End - Begin], int load_tid) {
#pragma unroll
      for (int i = Begin; i < End; ++i) loads[i - Begin].wait_for_loads();
#pragma unroll
      for (int i = Begin; i < End; ++i) {
        const int s = step0 + parts::load_groups * i;
        if constexpr (parts::split_tail) {
          if (i == parts::load_rounds - 1) {
            if constexpr (parts::mx_kv)  // the first group's, handed on (hand_on_tail_scales)
              loads[i - Begin].scale_operand =
                  __builtin_bit_cast(float, arch::lds_load<4>(tail_scales_lds + 4 * load_tid));
            store_widened_part<parts>(loads[i - Begin], k_lds + (steps - 1) * parts::k_tile_bytes, load_tid,
                                      parts::tail_part(step0, load_tid));
            continue;
          }
        }
        if (!parts::round_full(i) && s >= steps) continue;
        if constexpr (parts::widened)
          store_widened<parts>(loads[i - Begin], k_lds + s * parts::k_tile_bytes, load_tid);
        else
          loads[i - Begin].store(k_lds + s * parts::k_tile_bytes, load_tid);
      }
    };
    // The rounds after the first `early` ones, in batches of three: at most three chunks in a
    // thread's registers beside the outputs and the queries.
    constexpr int early = parts::early_rounds;
    auto load_rest = [&](const loader& first, int load_tid) {
      static_for<ceil_div(parts::load_rounds - early, 3)>([&](auto batch_constant) {
        constexpr int begin = early + 3 * decltype(batch_constant)::value;
        constexpr int end = begin + 3 < parts::load_rounds ? begin + 3 : parts::load_rounds;
        loader loads[end - begin];
        issue_rounds.template operator()<begin, end>(first, loads, load_tid);
        store_rounds.template operator()<begin, end>(loads, load_tid);
      });
    };
    // An MXFP4 cache's split tail: the first group's waves, which read the last K step's block
    // scales (one a chunk), leave their scale operands in LDS for every group's part of the chunk;
    // a barrier between this and store_rounds hands them on (the loads of the round waited for).
    auto hand_on_tail_scales = [&](const loader& tail, int load_tid) {
      if constexpr (parts::tail_scale_bytes > 0)
        if (step0 == 0)
          arch::lds_store<4>(tail_scales_lds + 4 * load_tid, __builtin_bit_cast(std::uint32_t, tail.scale_operand));
    };
    // The first tile, whole, before the loop, and (whole_tile_in_flight) the page entries of the
    // second's rows: this lane's loader row.
    page_ahead ahead{};
    page_cursor cursor{};
    if constexpr (parts::whole_tile_in_flight) {
      cursor = cursor_at(j_begin + kv_tile + loader_row);
      ahead = fetch_page(cursor);
    }
    if (j_begin < j_end) {
      const loader first = locate_tile(j_begin, loader_tid);
      loader loads[early];
      issue_rounds.template operator()<0, early>(first, loads, loader_tid);
      if constexpr (parts::tail_scale_bytes > 0) {
        static_assert(early == parts::load_rounds, "mla_decode: an MXFP4 split tail has the whole tile in flight");
        hand_on_tail_scales(loads[early - 1], loader_tid);
        __syncthreads();
      }
      store_rounds.template operator()<0, early>(loads, loader_tid);
      load_rest(first, loader_tid);
    }
    __syncthreads();

    // fp8 products: the K steps whose V^T bytes this wave transposes each tile (vt_bytes_item's
    // lane addresses from the first, computed once), vt_stride apart: four waves sharing 16 rows
    // each their own columns' (no barrier before their P x V product); otherwise wave w K steps w,
    // w + waves, .. (a barrier hands them on).
    constexpr bool vt_own_columns = k_ways > 1 && Cfg::row_waves == 1;
    constexpr int vt_steps = vt_own_columns ? parts::wave_column_steps : parts::v_steps / Cfg::waves;
    constexpr int vt_stride = vt_own_columns ? 1 : Cfg::waves;
    static_assert(!parts::fp8_products || vt_own_columns || parts::v_steps % Cfg::waves == 0,
                  "mla_decode: whole K steps of V^T a wave");
    const vt_bytes_item<parts> vt_item(static_cast<unsigned>(lane),
                                       vt_own_columns ? k_way * parts::wave_column_steps : wave);
    // fp8 products: this lane's bytes of V^T's column 0 in the P x V step's two tiles (read_vt_bytes),
    // V^T's offset in the LDS added once here: an immediate offset cannot reach it, and the compiler
    // would add it again every tile (the copy hides the sum's origin).
    // (Other forms need neither: no copy is made.)
    const int v_offset = steps * parts::k_tile_bytes;
    constexpr bool fp8_products = parts::fp8_products;
    const unsigned char* const vt_lane_at[2] = {
        fp8_products ? k_lds + arch::opaque_copy(v_offset + vt_bytes_layout<parts>::offset(lane % 16, group)) : k_lds,
        fp8_products ? k_lds + arch::opaque_copy(v_offset + vt_bytes_layout<parts>::offset(16 + lane % 16, group))
                     : k_lds};
    // bf16 weights with k_ways > 1: whether the wave's own pair of weights turns to P^T's order (the
    // second tile's pairs, ordered below), held in a register (arch::bf16x2_turn: no instruction
    // more on gfx942, a rotate on gfx950).
    const arch::bf16x2_turn own_pair_turn{
        k_ways > 1 && !fp8_products ? arch::opaque_copy(arch::make_bf16x2_turn(k_way / 2 != 0).bits) : 0u};

    for (int j0 = j_begin; j0 < j_end; j0 += kv_tile) {
      // The lane and what follows from it, recomputed each tile (arch::opaque_copy) where the loop's
      // registers must go to the outputs and the queries, not to lane addresses (k_ways 1); a wave
      // that shares its rows has registers for its addresses, computed once.
      const unsigned t_lane = k_ways > 1 || parts::fp8_products ? static_cast<unsigned>(lane)
                                                                : arch::opaque_copy(static_cast<unsigned>(lane)),
                     t_group = t_lane / 16;
      __builtin_assume(t_lane < 64);  // what the copy hides: lane-derived indices need no sign fix-ups
      const int load_tid = wave % step_waves * 64 + static_cast<int>(t_lane);
      const bool next_tile = j0 + kv_tile < j_end;  // the same in the whole workgroup
      // The next tile's first rounds stay in flight through this tile's P x V product (early_rounds:
      // what the registers allow beside it), issued once the scores are done; a whole next tile is
      // issued before them.
      loader next_first, next_early[early];
      auto issue_next = [&] {
        if (!next_tile) return;
        if constexpr (parts::whole_tile_in_flight) {
          // A next tile that ends the split (rare: once a split) tests its rows; the others not.
          if (j0 + 2 * kv_tile <= j_end) {
            next_first = locate_tile(j0 + kv_tile, load_tid, &ahead, true);
          } else {
            arch::mark_rare_block();
            next_first = locate_tile(j0 + kv_tile, load_tid, &ahead, false);
          }
        } else {
          next_first = locate_tile(j0 + kv_tile, load_tid);
        }
        issue_rounds.template operator()<0, early>(next_first, next_early, load_tid);
        // The tile after's page entries, behind these loads.
        if constexpr (parts::whole_tile_in_flight) {
          advance_tile(cursor);
          ahead = fetch_page(cursor);
        }
      };
      if constexpr (parts::whole_tile_in_flight) issue_next();

      // The wave's scores: S^T over its K steps (with k_ways > 1 a partial, added to its group's
      // below; a group without rows, rows32's second over 17 to 31 rows, scores zero queries, so
      // that its softmax, whose results nobody stores, works on numbers).
      qk_mma scores;
      if (k_ways > 1 || wave_has_rows)
        static_for<parts::wave_steps>([&](auto i_constant) {
          constexpr int i = decltype(i_constant)::value;
          if (has_step(i))
            scores.template step<i == 0>(k_lds + wave_step(i) * parts::k_tile_bytes, q_frag[i], 0, t_lane);
        });
      // Score (n, r) of this lane is KV row j0 + 16 n + 4 g + r: the rows its query sees keep their
      // raw score (the scale is positive, so maxima commute with it), the others -inf. The row
      // configs mask every tile (a branch around the mask spilled rows64 on gfx942); with k_ways > 1
      // only a tile that reaches past a query's last row is masked (a split's or a sequence's last
      // tile, a causal tail: a rare block). Lanes without a row keep their scores of zero queries:
      // they are never stored.
      const bool tile_seen_whole = j0 + kv_tile <= wave_visible_end;
      // The rows seen count from this lane group's first. (With k_ways > 1 the mask is rare, and so
      // is the count: an opaque j0 there keeps the compiler from following group_visible_end - j0
      // in a register of its own every tile. The row configs count where they mask: counted once a
      // tile and held, the count took a register that gfx950's rows64 and rows128 spilled for.)
      auto seen_from = [&](int j) { return group_visible_end - j; };
      auto mask = [&](float v, int n, int r) {
        return 16 * n + r < seen_from(k_ways == 1 ? j0 : arch::opaque_copy(j0)) ? v : minus_inf;
      };
      // The running max moves only when some lane of the wave sees a score past its row's max by
      // more than rescale_margin (a row's first seen score among them: -inf + margin is -inf), so
      // most tiles leave the outputs as they are: no pass over O, no shuffles. Between moves a
      // weight is at most 2^rescale_margin, which bf16 P and the fp32 sums hold as exactly as 1.
      // lane_max: the largest score of the lane's (masked) scores.
      auto needs_new_max = [&](float lane_max) { return __builtin_amdgcn_ballot_w64(lane_max > m_moves) != 0; };
      auto move_max = [&](float lane_max) {
        float row_max = lane_max;  // over the row's four lane groups
#pragma unroll
        for (int x = 16; x < 64; x *= 2) row_max = __builtin_fmaxf(row_max, __shfl_xor(row_max, x));
        const float m_new = __builtin_fmaxf(m, row_max * score_log2);                       // -inf: nothing seen yet
        const float alpha = m_new == minus_inf ? 1.0f : arch::exp2_instruction(m - m_new);  // 0 from -inf
        m = m_new;
        m_moves = (m_new + parts::rescale_margin) / score_log2;
        offset = m_new == minus_inf ? 0.0f : parts::p_shift - m_new;
        l *= alpha;
#pragma unroll
        for (int c = 0; c < pieces; ++c)
#pragma unroll
          for (int i = 0; i < pv_mma::tiles_m; ++i)
#pragma unroll
            for (int r = 0; r < regs; ++r) o[c].acc[i][0][r] *= alpha;
      };
      // The weights of a pair of scores (one v_pk_fma_f32, two v_exp_f32), summed in fp32, and
      // P^T in bf16 (each weight then within 2^-9 of its fp32 value relatively, which the sums
      // count) or, with fp8 products, in fp8 (RNE, within 2^-4 relatively, or 2^-11 / 2^-10
      // absolutely where subnormal) as the P x V step's B operand: pair t of the lane's slice holds
      // elements 2t, 2t + 1, score (q / 4, slice_register(q)) for element q (v_position), a pair of
      // score registers; in bf16 it is word t, in fp8 the half t % 2 of word t / 2.
      auto weights = [&](float a, float b) {
        const floatx2 x =
            __builtin_elementwise_fma(floatx2{a, b}, floatx2{score_log2, score_log2}, floatx2{offset, offset});
        return floatx2{arch::exp2_instruction(x[0]), arch::exp2_instruction(x[1])};
      };
      constexpr int words = sizeof(typename pv_mma::operand_bits) / 4;
      static_assert(pv_mma::mfmas * words * 2 == 4 * parts::element_bytes,
                    "mla_decode: P^T's slice is four pairs of weights a lane");
      auto set_word = [&](int w, std::uint32_t bits) { p_frag.v[0][w / words][w % words] = bits; };
      // Score registers of pair t's elements: slice_register(2t) and slice_register(2t + 1) of tile
      // t / 2, the pair 2 (t % 2), 2 (t % 2) + 1 (swapped in tile 1).
      auto ordered = [](int t, floatx2 e) { return t / 2 == 0 ? e : floatx2{e[1], e[0]}; };
      // The bits of the wave's own pair (k_way, known only at run time): a bf16 word in P^T's order
      // (packed in the pair's own order and turned by own_pair_turn where ordered swaps), or two fp8
      // bytes in the low half of one in the pair's own order, whatever the high half (set_pairs'
      // byte selectors put them in P^T's order at no cost, and no register is cleared).
      auto own_pair_bits = [&](floatx2 e) -> std::uint32_t {
        if constexpr (parts::fp8_products)
          return static_cast<std::uint32_t>(
              __builtin_amdgcn_cvt_pk_fp8_f32(e[0], e[1], __builtin_nondeterministic_value(0), false));
        else
          return arch::pack_bf16x2_rne_numbers(e[0], e[1], own_pair_turn);
      };
      // P^T from the four pairs' weights (fp8: two converts a word, the second into its high half).
      auto set_weights = [&](const floatx2(&e)[4]) {
#pragma unroll
        for (int w = 0; w < 4 * parts::element_bytes / 2; ++w) {
          if constexpr (parts::fp8_products) {
            const floatx2 low = ordered(2 * w, e[2 * w]), high = ordered(2 * w + 1, e[2 * w + 1]);
            set_word(w, static_cast<std::uint32_t>(__builtin_amdgcn_cvt_pk_fp8_f32(
                            high[0], high[1], __builtin_amdgcn_cvt_pk_fp8_f32(low[0], low[1], 0, false), true)));
          } else {
            const floatx2 o = ordered(w, e[w]);
            set_word(w, arch::pack_bf16x2_rne_numbers(o[0], o[1]));
          }
        }
      };
      // P^T from the four pairs' bits (pair_bits; fp8: word w's low halves of pairs 2 w and 2 w + 1,
      // each pair's bytes swapped for tile 1, w = 1, as ordered does).
      auto set_pairs = [&](const std::uint32_t(&bits)[4]) {
#pragma unroll
        for (int w = 0; w < 4 * parts::element_bytes / 2; ++w)
          set_word(w, parts::fp8_products
                          ? __builtin_amdgcn_perm(bits[2 * w + 1], bits[2 * w], w == 0 ? 0x05040100u : 0x04050001u)
                          : bits[w]);
      };
      static_assert(slice_register(0) == 0 && slice_register(1) == 1 && slice_register(4) == 1 &&
                        slice_register(5) == 0 && slice_register(6) == 3 && slice_register(7) == 2,
                    "mla_decode: word t of P^T's slice is score pair t, swapped in tile 1");

      if constexpr (k_ways == 1) {
        if (wave_has_rows) {
          float sc[qk_mma::tiles_m][regs], lane_max = minus_inf;
#pragma unroll
          for (int n = 0; n < qk_mma::tiles_m; ++n)
#pragma unroll
            for (int r = 0; r < regs; ++r) sc[n][r] = mask(scores.acc[n][0][r], n, r);
#pragma unroll
          for (int n = 0; n < qk_mma::tiles_m; ++n)
#pragma unroll
            for (int r = 0; r < regs; ++r) lane_max = __builtin_fmaxf(lane_max, sc[n][r]);
          if (__builtin_expect(needs_new_max(lane_max), 0)) {
            arch::mark_rare_block();
            move_max(lane_max);
          }
          floatx2 e[4];
#pragma unroll
          for (int t = 0; t < 4; ++t) {
            e[t] = weights(sc[t / 2][2 * (t % 2)], sc[t / 2][2 * (t % 2) + 1]);
            l += e[t][0] + e[t][1];
          }
          set_weights(e);
        }
      } else {
        // The k_ways waves of the row group share the softmax: wave k adds the group's partial
        // S^T for score pair k (of the lane's four: tile k / 2, registers 2 (k % 2) and the next),
        // computes its weights with the running max as it stands and writes them to LDS as word k
        // of P^T's slice, with the pair's larger score. After a barrier every wave reads the four
        // maxima (the same bits in each, so every wave decides alike): where no lane needs a new
        // max, the four words are the P^T slice; where one does (rare), each wave moves the max,
        // adds all four pairs of partials itself and computes the whole slice. A wave's share of
        // the row's running sum is its pair's weights (summed over the waves at the end).
        static_assert(k_ways == 4 && qk_mma::tiles_m == 2 && regs == 4,
                      "mla_decode: four waves share a lane's four score pairs");
        const int group_wave0 = wave - k_way;
        auto pair_at = [&](int w, int pair) {
          return partial_lds + ((w * 4 + pair) * 64 + static_cast<int>(t_lane)) * 8;
        };
        unsigned char* const words_lds = partial_lds + Cfg::waves * 4 * 64 * 8;
        unsigned char* const max_lds = words_lds + Cfg::waves * 64 * 4;
        auto word_at = [&](unsigned char* region, int w) { return region + (w * 64 + static_cast<int>(t_lane)) * 4; };
#pragma unroll
        for (int pair = 0; pair < 4; ++pair) {
          // Float copies first: clang 19 bit-casts a vector element taken with a variable index
          // as element 0 (device and emulated builds alike).
          const float first = scores.acc[pair / 2][0][2 * (pair % 2)],
                      second = scores.acc[pair / 2][0][2 * (pair % 2) + 1];
          arch::lds_store<8>(pair_at(wave, pair), __builtin_bit_cast(arch::u32x2, floatx2{first, second}));
        }
        __syncthreads();  // every wave's partials in LDS (and every wave done with the K steps' scores)
        // Score pair `pair` summed over the group's partials in wave order, and masked.
        auto pair_sum = [&](int pair) {
          floatx2 v = __builtin_bit_cast(floatx2, arch::lds_load<8>(pair_at(group_wave0, pair)));
#pragma unroll
          for (int w = 1; w < k_ways; ++w)
            v += __builtin_bit_cast(floatx2, arch::lds_load<8>(pair_at(group_wave0 + w, pair)));
          return v;
        };
        auto masked = [&](floatx2 v, int pair) {
          return floatx2{mask(v[0], pair / 2, 2 * (pair % 2)), mask(v[1], pair / 2, 2 * (pair % 2) + 1)};
        };
        auto pair_scores = [&](int pair) {
          const floatx2 v = pair_sum(pair);
          return tile_seen_whole ? v : masked(v, pair);
        };
        // The wave's own pair and its larger score, each path taking its own max: sums are
        // canonical numbers, so the common path's max is one v_max_f32 where the sums are made (in
        // a block of its own the compiler would quiet both operands first, two more); the copies
        // keep each max where it is written.
        floatx2 own = pair_sum(k_way);
        float own_max = arch::opaque_copy(__builtin_fmaxf(own[0], own[1]));
        if (__builtin_expect(!tile_seen_whole, 0)) {
          arch::mark_rare_block();
          own = masked(own, k_way);
          own_max = arch::opaque_copy(__builtin_fmaxf(own[0], own[1]));
        }
        floatx2 e = weights(own[0], own[1]);
        arch::lds_store<4>(word_at(words_lds, wave), own_pair_bits(e));
        arch::lds_store<4>(word_at(max_lds, wave), __builtin_bit_cast(std::uint32_t, own_max));
        __syncthreads();  // the group's words and maxima
        float lane_max = minus_inf;
#pragma unroll
        for (int w = 0; w < k_ways; ++w)
          lane_max = __builtin_fmaxf(lane_max,
                                     __builtin_bit_cast(float, arch::lds_load<4>(word_at(max_lds, group_wave0 + w))));
        {
          std::uint32_t bits[4];
#pragma unroll
          for (int t = 0; t < 4; ++t) bits[t] = arch::lds_load<4>(word_at(words_lds, group_wave0 + t));
          set_pairs(bits);
        }
        if (__builtin_expect(needs_new_max(lane_max), 0)) {
          arch::mark_rare_block();
          move_max(lane_max);
          floatx2 all[4];
#pragma unroll
          for (int t = 0; t < 4; ++t) {
            const floatx2 v = pair_scores(t);
            all[t] = weights(v[0], v[1]);
            if (t == k_way) e = all[t];
          }
          set_weights(all);
        }
        l += e;
      }
      if constexpr (!parts::whole_tile_in_flight) issue_next();
      // The wave's first output column's K step.
      const int column_step = k_way * parts::wave_column_steps;
      if constexpr (parts::fp8_products) {
        // V^T's bytes, from the K steps (which every wave is done with but for these reads) into
        // their own planes: four waves sharing 16 rows each transpose their own columns' K steps
        // and need no barrier; otherwise wave w takes K steps w, w + waves, .. and a barrier hands
        // them on.
#pragma unroll
        for (int i = 0; i < vt_steps; ++i) vt_item.transpose(k_lds, v_lds, i * vt_stride);
        if constexpr (!vt_own_columns) __syncthreads();
        if (wave_has_rows) {
#pragma unroll
          for (int c = 0; c < pieces; ++c)
            o[c].template step<false>(
                read_vt_bytes<parts>(k_way * parts::wave_columns + c * parts::pv_columns, vt_lane_at), p_frag, t_lane);
        }
      } else if constexpr (parts::v_by_transposing_reads) {
        if (wave_has_rows) {
          const int n = static_cast<int>(t_lane / 4 % 4), q = static_cast<int>(t_lane % 4);
          int row_at[2][4];
#pragma unroll
          for (int r = 0; r < 2; ++r)
#pragma unroll
            for (int blk = 0; blk < 4; ++blk)
              row_at[r][blk] =
                  parts::k_layout::offset(16 * r + 4 * static_cast<int>(t_group) + (n ^ r), 32 * blk + 8 * q);
          const unsigned char* const columns = k_lds + column_step * parts::k_tile_bytes;
#pragma unroll
          for (int c = 0; c < pieces; ++c)
            o[c].template step<false>(read_v_transposed<parts>(columns, c, row_at), p_frag, t_lane);
        }
      } else if constexpr (parts::v_in_place) {
        // The partials' barrier saw every wave's scores done: the wave's own K steps are its alone,
        // or, with several row groups, its and its peers' in the other groups: the first group's
        // wave transposes them and a barrier hands them to the others.
        if constexpr (Cfg::row_waves == 1) {
          transpose_v_in_wave<parts>(k_lds, column_step, t_lane);
        } else {
          if (wave < k_ways) transpose_v_in_wave<parts>(k_lds, column_step, t_lane);
          __syncthreads();
        }
        const unsigned char* const v_columns = k_lds + column_step * parts::k_tile_bytes;
#pragma unroll
        for (int c = 0; c < pieces; ++c)
          o[c].template step<false>(v_columns + c * parts::pv_piece_bytes, p_frag, 0, t_lane);
      } else {
        __syncthreads();  // scores done with the K steps
        transpose_v_half<parts>(k_lds, 0, v_lds, wave, t_lane);
        __syncthreads();
        // Half 1 goes where K steps 0-3 were (half 0 has been taken from them), while the waves
        // multiply half 0: the two touch different bytes.
        if (wave_has_rows)
#pragma unroll
          for (int c = 0; c < parts::pv_pieces; ++c)
            o[c].template step<false>(v_lds + c * parts::pv_piece_bytes, p_frag, 0, t_lane);
        transpose_v_half<parts>(k_lds, 1, k_lds, wave, t_lane);
        __syncthreads();
        if (wave_has_rows)
#pragma unroll
          for (int c = 0; c < parts::pv_pieces; ++c)
            o[parts::pv_pieces + c].template step<false>(k_lds + c * parts::pv_piece_bytes, p_frag, 0, t_lane);
      }
      // Every wave done with the K steps: the next tile's stores (fp8 products with k_ways 1: the
      // barrier after the transposes was the K steps' last use).
      if constexpr (parts::tail_scale_bytes > 0)
        if (next_tile) hand_on_tail_scales(next_early[early - 1], load_tid);
      if constexpr (!parts::fp8_products || k_ways > 1) __syncthreads();
      if (next_tile) {
        store_rounds.template operator()<0, early>(next_early, load_tid);
        load_rest(next_first, load_tid);
      }
      __syncthreads();
    }
    // The row's sum over its four lane groups; out = O / sum, lse = (m + log2(sum)) ln 2 for the
    // running m (natural log of the scaled scores), or zeros and -inf for a row that saw no KV row.
    float sum;
    if constexpr (k_ways == 1)
      sum = l;
    else
      sum = l[0] + l[1];
    // The row group's shares, in wave order (every wave done with the loop's LDS; every wave takes
    // part in the barrier, with rows or without).
    if constexpr (k_ways > 1) {
      unsigned char* const share_at = partial_lds + lane * 4;
      arch::lds_store<4>(share_at + wave * 256, __builtin_bit_cast(std::uint32_t, sum));
      __syncthreads();
      const int group_wave0 = wave - k_way;
      sum = __builtin_bit_cast(float, arch::lds_load<4>(share_at + group_wave0 * 256));
#pragma unroll
      for (int w = 1; w < k_ways; ++w)
        sum += __builtin_bit_cast(float, arch::lds_load<4>(share_at + (group_wave0 + w) * 256));
    }
    if (!wave_has_rows) return;
#pragma unroll
    for (int offset = 16; offset < 64; offset *= 2) sum += __shfl_xor(sum, offset);
    const float inv = sum > 0.0f ? p.kv_scale / sum : 0.0f;  // and once per output value
    const float lse =
        sum > 0.0f ? (m - parts::p_shift + arch::device_log2f(sum)) * std::numbers::ln2_v<float> : minus_inf;
    // One split: the output in bf16 ([row][512]); several: this split's fp32 partial
    // ([row][split][512]) for the reduce. The LSE likewise, where it is asked for (a buffer of no
    // bytes drops the stores otherwise). A lane stores four consecutive columns of each 16.
    // A resident worker's run: the lane's row again, from the thread's index (the opaque copy
    // keeps the compiler from reusing the row computed before the loop: a register fewer through
    // it, where the worker's loop holds its own). A kernel of one run keeps the row.
    const int out_row =
        Resident ? wave_row0 + static_cast<int>(arch::opaque_copy(static_cast<unsigned>(tid)) % 16) : row;
    const bool out_row_valid = out_row < rows;
    auto store_row = [&]<bool Direct>() {
      const int row = out_row;
      const bool row_valid = out_row_valid;
      // The entries from the first one the run's rows may use: the sequence's first row's (the
      // output, a chunk's partials) or the partial slot's first.
      const bool piece = dest.kind == run_destination::piece_partial;
      const std::uint32_t per_row = Direct || piece ? 1u : static_cast<std::uint32_t>(p.splits);
      const std::size_t first_entry = piece ? static_cast<std::size_t>(dest.index) * Cfg::rows : q_first * per_row;
      const std::uint32_t entries = piece ? std::uint32_t{Cfg::rows} : static_cast<std::uint32_t>(rows) * per_row;
      const arch::buffer values = Direct ? arch::buffer::over(p.out + q_first * v_dim, entries * v_dim * 2)
                                         : arch::buffer::over(p.partial_out + first_entry * v_dim, entries * v_dim * 4);
      float* const lse_out = Direct ? p.lse : p.partial_lse;
      // The bytes as a scalar (the balanced kernel's compiler otherwise selects them per lane and
      // stores the LSE in a waterfall loop).
      const std::uint32_t lse_bytes = __builtin_amdgcn_readfirstlane(lse_out ? entries * 4 : 0u);
      const arch::buffer lses = arch::buffer::over(lse_out ? lse_out + first_entry : nullptr, lse_bytes);
      const std::uint32_t entry = piece ? static_cast<std::uint32_t>(row - row0)
                                        : static_cast<std::uint32_t>(row) * per_row + (Direct ? 0u : dest.index);
      const std::uint32_t first_column = static_cast<std::uint32_t>(k_way * parts::wave_columns + 4 * group);
#pragma unroll
      for (int c = 0; c < pieces; ++c)
#pragma unroll
        for (int i = 0; i < pv_mma::tiles_m; ++i) {
          const std::uint32_t at = entry * v_dim + first_column + c * parts::pv_columns + 16 * i;
          float v[regs];
#pragma unroll
          for (int r = 0; r < regs; ++r) v[r] = o[c].acc[i][0][r] * inv;
          if constexpr (Direct) {  // out is 4-byte aligned: two bf16 pairs
#pragma unroll
            for (int r = 0; r < regs; r += 2)
              values.store4(half_bits_rne<bf16>(v[r]) | std::uint32_t{half_bits_rne<bf16>(v[r + 1])} << 16,
                            row_valid ? (at + r) * 2 : arch::out_of_range);
          } else {
            values.store16(
                arch::u32x4{__builtin_bit_cast(std::uint32_t, v[0]), __builtin_bit_cast(std::uint32_t, v[1]),
                            __builtin_bit_cast(std::uint32_t, v[2]), __builtin_bit_cast(std::uint32_t, v[3])},
                row_valid ? at * 4 : arch::out_of_range);
          }
        }
      // One lane of the row's column in one wave of its group.
      lses.store4(__builtin_bit_cast(std::uint32_t, lse),
                  row_valid && group == 0 && k_way == 0 ? entry * 4 : arch::out_of_range);
    };
    if (dest.kind == run_destination::output)
      store_row.template operator()<true>();
    else
      store_row.template operator()<false>();
  }
}

// The grid of chunks: one workgroup per (row group, split, sequence), its chunk of the sequence's
// KV rows, the output itself with one split, else its partials for the reduce.
// Two waves a SIMD's registers each (256, VGPRs only) for every config: with more, the compiler
// keeps the outputs in AGPRs and copies them to VGPRs every tile for the rare rescale pass.
template <class Cfg, class KV, class Q = bf16>
__global__ __launch_bounds__(Cfg::threads) WAVEKIT_MIN_WAVES_PER_SIMD(2) void mla_decode_kernel(decode_params p) {
  using parts = decode_parts<Cfg, KV, Q>;
  arch::declare_codegen_targets<parts::lds_bytes, 64 * Cfg::waves / 256>();
  if constexpr (!decode_runs_here<Cfg, KV, Q>) {
    __builtin_trap();  // the converter reads the target's own fp8 format, not KV's or Q's
  } else {
    WAVEKIT_LDS_ARRAY(arch::u32x4, lds16, parts::lds_bytes / 16);
    const int split = static_cast<int>(blockIdx.y), j_begin = split * p.chunk;
    // The chunk's end, clamped to the sequence's rows in the run (check_plan keeps chunk * splits
    // inside 32 bits).
    decode_run<Cfg, KV, Q, false>(
        p, reinterpret_cast<unsigned char*>(lds16), static_cast<int>(blockIdx.z),
        static_cast<int>(blockIdx.x) * Cfg::rows, j_begin, j_begin + p.chunk,
        run_destination{p.splits == 1 ? run_destination::output : run_destination::split_partial, split},
        static_cast<int>(threadIdx.x));
  }
}

// The balanced schedule: the pieces of a cut run, counted by its counter, merged by the worker
// whose piece is the last to arrive (in worker order, whichever it is), into the output, and the
// counter zeroed for the next launch. Every thread calls it after its piece's stores. lds: the
// workgroup's LDS, free (the run's loop is done with it).
template <class Cfg>
WAVEKIT_DEVICE WAVEKIT_FORCEINLINE void merge_pieces_if_last(const decode_params& p, unsigned char* const lds,
                                                             const segment_entry& seg, const int tid) {
  const int b = seg.sequence, row0 = seg.row0;
  using merge = block::lse_merge<v_dim, max_workers>;
  constexpr int rows_at_once = Cfg::threads / merge::threads;
  static_assert(Cfg::threads % merge::threads == 0, "mla_decode: whole rows of the merge");
  // Release: every thread's piece stores, then one count. Acquire: the counter read, then every
  // thread's reads of the others' pieces (the fences at the device's scope: the pieces come from
  // workgroups on other CUs, and on MI300X other XCDs' L2s).
  __threadfence();
  __syncthreads();
  std::uint32_t before = 0;
  if (tid == 0) {
    __threadfence();
    before = atomicAdd(reinterpret_cast<unsigned*>(p.counters + seg.first_worker), 1u);
    __threadfence();
  }
  arch::lds_store<4>(lds, before, tid == 0);  // masked, not divergent
  __syncthreads();
  const bool last = static_cast<int>(arch::lds_load<4>(lds)) == seg.pieces - 1;
  __syncthreads();  // every wave has read the count before the LDS is written again
  if (!last) return;
  __threadfence();
  const int q_begin = __builtin_amdgcn_readfirstlane(p.qo_indptr[b]);
  const int rows = (__builtin_amdgcn_readfirstlane(p.qo_indptr[b + 1]) - q_begin) * p.heads;
  const int group_rows = std::min(int{Cfg::rows}, rows - row0);
  const int round_row = __builtin_amdgcn_readfirstlane(tid / merge::threads);  // the same in a wave
  float* const merge_lds = reinterpret_cast<float*>(lds) + round_row * max_workers;
  const std::uint32_t entries = 2u * static_cast<std::uint32_t>(p.workers) * Cfg::rows;
  for (int r0 = 0; r0 < group_rows; r0 += rows_at_once) {
    const int r = r0 + round_row;
    const bool has_row = r < group_rows;
    const std::size_t out_row = static_cast<std::size_t>(q_begin) * p.heads + static_cast<std::size_t>(row0 + r);
    merge::merge_entries(
        p.partial_out, p.partial_lse, entries, has_row ? seg.pieces : 0,
        [&](int k) { return piece_slot(seg.first_worker, k) * Cfg::rows + r; },
        has_row ? p.out + out_row * v_dim : nullptr, has_row && p.lse ? p.lse + out_row : nullptr, merge_lds,
        tid % merge::threads);
    __syncthreads();  // these rows' LSEs read from LDS before the next rows' are stored
  }
  if (tid == 0) p.counters[seg.first_worker] = 0;
}

// The balanced schedule (balanced_split.hpp): workgroup w, one of p.workers resident workers, runs
// its segments of the schedule kernel's list (schedule_kernel.hpp): a whole run writes the output,
// a piece of a cut run its partials. After its last segment the worker counts its pieces in (at
// most two: its first segment's and its last's, the only ones that can be cut), merging a run
// whose pieces are then all in (merge_pieces_if_last): the merge's code after the loop, not in
// it, where what it holds would sit in registers through every run's hot loop.
template <class Cfg, class KV, class Q = bf16>
__global__ __launch_bounds__(Cfg::threads)
    WAVEKIT_MIN_WAVES_PER_SIMD(2) void mla_decode_balanced_kernel(decode_params params) {
  using parts = decode_parts<Cfg, KV, Q>;
  static_assert(Cfg::threads / block::lse_merge<v_dim, max_workers>::threads * max_workers * 4 <= parts::lds_bytes,
                "mla_decode: the merge's LSEs (a row's merge: max_workers of them) fit the decode's LDS");
  arch::declare_codegen_targets<parts::lds_bytes, 64 * Cfg::waves / 256>();
  if constexpr (!decode_runs_here<Cfg, KV, Q>) {
    __builtin_trap();  // the converter reads the target's own fp8 format, not KV's or Q's
  } else {
    WAVEKIT_LDS_ARRAY(arch::u32x4, lds16, parts::lds_bytes / 16);
    unsigned char* const lds = reinterpret_cast<unsigned char*>(lds16);
    const int worker = static_cast<int>(blockIdx.x);
    const int first = __builtin_amdgcn_readfirstlane(params.segment_begin[worker]);
    const int end = __builtin_amdgcn_readfirstlane(params.segment_begin[worker + 1]);
    // A segment of the list, read with scalar loads.
    auto entry = [&](const decode_params& p, int i) {
      const int* const at = reinterpret_cast<const int*>(p.segments + i);
      segment_entry e;
      e.sequence = __builtin_amdgcn_readfirstlane(at[0]), e.row0 = __builtin_amdgcn_readfirstlane(at[1]);
      e.j_begin = __builtin_amdgcn_readfirstlane(at[2]), e.j_end = __builtin_amdgcn_readfirstlane(at[3]);
      e.slot = __builtin_amdgcn_readfirstlane(at[4]), e.first_worker = __builtin_amdgcn_readfirstlane(at[5]);
      e.pieces = __builtin_amdgcn_readfirstlane(at[6]), e.unused = 0;
      return e;
    };
    // The thread's index, made anew each run (in its one register), and the argument read anew:
    // nothing derived from them is hoisted out of this loop, to sit in registers through every
    // run's hot loop.
    unsigned thread = threadIdx.x;
    for (int i = first; i < end; ++i) {
      thread = arch::opaque_copy(thread);
      const decode_params p = arch::reread_kernel_argument(params);
      const segment_entry e = entry(p, i);
      decode_run<Cfg, KV, Q, true>(
          p, lds, e.sequence, e.row0, e.j_begin, e.j_end,
          run_destination{e.slot < 0 ? run_destination::output : run_destination::piece_partial, e.slot},
          static_cast<int>(thread));
    }
    // The worker's first segment (a cut run's tail or middle piece, or whole) and its last (a cut
    // run's head piece, or whole).
    if (first == end) return;
    const segment_entry first_segment = entry(params, first);
    if (first_segment.slot >= 0) merge_pieces_if_last<Cfg>(params, lds, first_segment, static_cast<int>(thread));
    if (end - 1 == first) return;
    const segment_entry last_segment = entry(params, end - 1);
    if (last_segment.slot >= 0) merge_pieces_if_last<Cfg>(params, lds, last_segment, static_cast<int>(thread));
  }
}

// A call's device pointers: q, the cache and the sequences' tables (the device copies of
// sequences_view's), out, an optional lse, and the workspace of the split partials. KV: the cache's
// type, bf16, the fp8 format the device reads with its per-tensor fp32 scale (kv_scale: the value
// of a code is code * kv_scale), or fp4x2_e2m1 (MXFP4, gfx950: a row's 576 e2m1 values in 288
// bytes, two a byte, the first in the low nibble, and their e8m0 scales, value j of row r times
// 2^(kv_block_scales[r * kv_block_scales_stride + j / 32] - 127), times kv_scale); Q: the queries'
// type, bf16 or the device's fp8 (q_scale).
template <class KV = bf16, class Q = bf16>
struct args {
  const Q* q = nullptr;             // [total_q][heads][576]
  const KV* cache = nullptr;        // [cache_rows][576] (paged: [pages][page_size][576]); MXFP4: [..][288]
  const int* qo_indptr = nullptr;   // [batch + 1]
  const int* kv_indptr = nullptr;   // ragged: [batch + 1]
  const int* kv_lens = nullptr;     // paged: [batch]
  const int* page_table = nullptr;  // paged: [batch][max_pages]
  bf16* out = nullptr;              // [total_q][heads][512]
  float* lse = nullptr;             // [total_q][heads], or null
  void* workspace = nullptr;        // workspace_bytes(...) bytes, 16-byte aligned
  std::size_t workspace_bytes = 0;
  float kv_scale = 1.0f;                  // fp8 or MXFP4 cache only
  float q_scale = 1.0f;                   // fp8 queries only
  const e8m0* kv_block_scales = nullptr;  // MXFP4 cache only: [cache_rows][kv_block_scales_stride]
  int kv_block_scales_stride = 0;         // MXFP4 cache only: >= 18 (scale_blocks; a padded table's row)
  // A balanced plan: the workspace already holds this step's schedule (an earlier call this step,
  // e.g. the first layer's, with the same sequences, plan and workspace), so the schedule kernel
  // is not launched again: one launch a layer.
  bool schedule_ready = false;
};

// The workspace of a balanced plan for `batch` sequences of `heads` heads on a config of `rows`
// rows a workgroup: the units' and runs' prefixes, the workers' first segments, the runs'
// counters, the segment list (room for the most runs the heads allow, max_q_len query rows a
// sequence: any lengths and query rows within the rules fit), then the pieces' partial outputs
// and LSEs; each region 256-byte aligned.
struct balanced_workspace {
  std::size_t unit_begin, run_begin, segment_begin, counters, segments, partial_out, partial_lse, bytes;
  int segment_capacity;
  balanced_workspace(int batch, int heads, int workers, int rows) {
    auto aligned = [](std::size_t n) { return (n + 255) / 256 * 256; };
    const std::size_t slots = 2 * static_cast<std::size_t>(workers) * rows;
    const std::size_t sequences = static_cast<std::size_t>(batch) + 1;
    segment_capacity = static_cast<int>(
        max_segments(std::int64_t{batch} * ((std::int64_t{max_q_len} * heads + rows - 1) / rows), workers));
    unit_begin = 0;
    run_begin = aligned(sequences * 4);
    segment_begin = run_begin + aligned(sequences * 4);
    counters = segment_begin + aligned((static_cast<std::size_t>(workers) + 1) * 4);
    segments = counters + aligned(static_cast<std::size_t>(workers) * 4);
    partial_out = segments + aligned(static_cast<std::size_t>(segment_capacity) * sizeof(segment_entry));
    partial_lse = partial_out + aligned(slots * v_dim * 4);
    bytes = partial_lse + slots * 4;
  }
};

// The partial buffers of a split plan (none with one split): outputs, then LSEs; a balanced plan's
// workspace (balanced_workspace).
inline std::size_t split_partial_bytes(const problem& p, const sequences_view& s, const split_plan& plan) {
  if (plan.balanced())
    return balanced_workspace(p.batch, p.heads, plan.workers,
                              with_config(choose_config(p, s), [](auto c) { return decltype(c)::rows; }))
        .bytes;
  if (!plan.reduce()) return 0;
  const std::size_t rows = std::size_t(s.q_rows()) * p.heads * plan.splits;
  return (rows * v_dim * 4 + 255) / 256 * 256 + rows * 4;
}

// The workspace a launch of p over s with this plan needs (0 with one split), or the status of the
// problem's or the plan's rules (the launch's own; the cache type's rule is the plan's record).
inline result<std::size_t> workspace_bytes(const problem& p, const sequences_view& s, const split_plan& plan) {
  if (status st = validate_shape(p); !st.ok()) return st;
  if (status st = check_plan(p, plan, plan.kv_element_bits); !st.ok()) return st;
  return split_partial_bytes(p, s, plan);
}

template <class KV, class Q>
status validate_args(const problem& p, const sequences_view& s, const args<KV, Q>& a, const split_plan& plan) {
  if (status st = validate_sequences(p, s); !st.ok()) return st;
  const auto what = lazy([&] { return "mla_decode " + p.str() + ": "; });
  if (status st = check_scales<KV, Q>(p, a.kv_scale, a.q_scale); !st.ok()) return st;
  if (status st = check_plan(p, plan, kv_bits_of<KV>); !st.ok()) return st;
  if constexpr (std::is_same_v<KV, fp4x2_e2m1>) {
    if (a.kv_block_scales_stride < scale_blocks)
      return {status_code::bad_shape, what + "argument kv_block_scales_stride is " +
                                          std::to_string(a.kv_block_scales_stride) + "; an MXFP4 row has " +
                                          std::to_string(scale_blocks) + " e8m0 scales (a stride of at least that)"};
    if (std::int64_t{p.cache_rows} * a.kv_block_scales_stride > std::numeric_limits<std::int32_t>::max())
      return {
          status_code::too_large,
          what + "the block scales exceed 2^31 - 1 bytes (32-bit buffer offsets): cache_rows * kv_block_scales_stride"};
  } else if (a.kv_block_scales || a.kv_block_scales_stride) {
    return {status_code::bad_config,
            what + "arguments kv_block_scales and kv_block_scales_stride are an MXFP4 cache's; this cache has none"};
  }
  // No sequences or no query rows: nothing is read or written, no pointer is checked.
  if (p.batch == 0 || s.q_rows() == 0) return status::success();
  const bool paged = p.layout == kv_layout::paged;
  if (status st =
          check_pointer_arguments(what, {{"q", a.q, 16 * static_cast<int>(sizeof(Q)) / 2,
                                          std::is_same_v<Q, bf16> ? "16-byte vector loads" : "8-byte vector loads"},
                                         {"cache", a.cache, 16, "16-byte vector loads"},
                                         {"qo_indptr", a.qo_indptr, 4, "int32"},
                                         {paged ? "kv_lens" : "kv_indptr", paged ? a.kv_lens : a.kv_indptr, 4, "int32"},
                                         {"out", a.out, 4, "bf16 pairs"}});
      !st.ok())
    return st;
  if (paged && !a.page_table) return {status_code::null_pointer, what + "argument page_table is null"};
  if (std::is_same_v<KV, fp4x2_e2m1> && !a.kv_block_scales)
    return {status_code::null_pointer, what + "argument kv_block_scales is null (an MXFP4 cache's e8m0 scales)"};
  if (reinterpret_cast<std::uintptr_t>(a.lse) % 4)
    return {status_code::bad_alignment, what + "argument lse must be 4-byte aligned (fp32)"};
  for (int b = 0; b < p.batch; ++b)
    if (!plan.covers(s.kv_len(b)))
      return {status_code::bad_config, what + "the split plan does not cover sequence " + std::to_string(b) + "'s " +
                                           std::to_string(s.kv_len(b)) + " KV rows"};
  if (plan.balanced()) {  // the schedule counts units in 32 bits
    const config_sizes c = sizes_of(choose_config(p, s));
    const std::int64_t units = batch_units(p, s, c.rows, c.kv_tile);
    if (units > std::numeric_limits<std::int32_t>::max())
      return {status_code::too_large, what + "a balanced plan counts the batch's KV tiles of each row group (" +
                                          std::to_string(units) + ") in 32 bits: plan with the grid of chunks"};
  }
  const std::size_t need = split_partial_bytes(p, s, plan);
  if (need && !a.workspace)
    return {status_code::null_pointer,
            what + "argument workspace is null and the split partials need " + std::to_string(need) + " bytes of it"};
  if (need && reinterpret_cast<std::uintptr_t>(a.workspace) % 16)
    return {status_code::bad_alignment, what + "argument workspace must be 16-byte aligned (the split partials)"};
  if (a.workspace_bytes < need)
    return {status_code::workspace_too_small, what + "the workspace must hold " + std::to_string(need) +
                                                  " bytes (have " + std::to_string(a.workspace_bytes) + ")"};
  return status::success();
}

// Validates, then launches config Cfg's decode kernel: over (row groups, splits, sequences) and,
// with more than one split, the reduce; or, with a balanced plan, the schedule kernel (unless
// args::schedule_ready) and plan.workers workers. No host synchronisation, nothing allocated.
template <class Cfg, class KV, class Q>
status launch(const problem& p, const sequences_view& s, const args<KV, Q>& a, const split_plan& plan,
              hipStream_t stream) {
  if (status st = validate_args(p, s, a, plan); !st.ok()) return st;
  if (p.batch == 0 || s.q_rows() == 0) return status::success();
  int max_rows = 0;
  for (int b = 0; b < p.batch; ++b) max_rows = std::max(max_rows, (s.qo_indptr[b + 1] - s.qo_indptr[b]) * p.heads);
  unsigned char* const workspace = static_cast<unsigned char*>(a.workspace);
  decode_params kp{a.q,          a.cache,           a.qo_indptr,
                   a.kv_indptr,  a.kv_lens,         a.page_table,
                   p.heads,      p.page_size,       p.max_pages,
                   p.cache_rows, p.sm_scale,        a.kv_scale,
                   a.q_scale,    a.kv_block_scales, a.kv_block_scales_stride,
                   plan.chunk,   plan.splits,       a.out,
                   a.lse,        nullptr,           nullptr,
                   nullptr,      nullptr,           nullptr,
                   p.batch,      plan.workers};
  if (plan.balanced()) {
    const balanced_workspace ws(p.batch, p.heads, plan.workers, Cfg::rows);
    auto region = [&](std::size_t at) { return reinterpret_cast<int*>(workspace + at); };
    kp.partial_out = reinterpret_cast<float*>(workspace + ws.partial_out);
    kp.partial_lse = reinterpret_cast<float*>(workspace + ws.partial_lse);
    kp.segment_begin = region(ws.segment_begin), kp.counters = region(ws.counters);
    kp.segments = reinterpret_cast<const segment_entry*>(workspace + ws.segments);
    if (!a.schedule_ready) {
      const schedule_params sp{a.qo_indptr,
                               p.layout == kv_layout::ragged ? a.kv_indptr : nullptr,
                               p.layout == kv_layout::paged ? a.kv_lens : nullptr,
                               p.batch,
                               p.heads,
                               Cfg::rows,
                               Cfg::kv_tile,
                               plan.workers,
                               ws.segment_capacity,
                               region(ws.unit_begin),
                               region(ws.run_begin),
                               region(ws.segment_begin),
                               region(ws.counters),
                               reinterpret_cast<segment_entry*>(workspace + ws.segments)};
      hipLaunchKernelGGL(mla_schedule_kernel<64>, dim3(1), dim3(64), 0, stream, sp);
    }
    hipLaunchKernelGGL((mla_decode_balanced_kernel<Cfg, KV, Q>), dim3(static_cast<unsigned>(plan.workers)),
                       dim3(Cfg::threads), 0, stream, kp);
  } else {
    const std::size_t partial_rows = std::size_t(s.q_rows()) * p.heads * plan.splits;
    kp.partial_out = plan.reduce() ? reinterpret_cast<float*>(workspace) : nullptr;
    kp.partial_lse =
        plan.reduce() ? reinterpret_cast<float*>(workspace + (partial_rows * v_dim * 4 + 255) / 256 * 256) : nullptr;
    const dim3 grid(static_cast<unsigned>(ceil_div(max_rows, Cfg::rows)), static_cast<unsigned>(plan.splits),
                    static_cast<unsigned>(p.batch));
    hipLaunchKernelGGL((mla_decode_kernel<Cfg, KV, Q>), grid, dim3(Cfg::threads), 0, stream, kp);
  }
  float* const partial_out = kp.partial_out;
  float* const partial_lse = kp.partial_lse;
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
