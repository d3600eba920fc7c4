// The GEMM mainloop: one block's K loop over its tile's K groups, composed of two tile loaders
// (tile/), a warp MMA (warp/) and a scale policy (scale_none.hpp, scale_group_promotion.hpp, ...).
//
// Pipeline, two LDS stages (Cfg::stages == 2): double buffering with one barrier per K step.
// While the waves run the MFMAs of step s on buffer s % 2, the threads' global loads for step
// s + 1 are in flight; after the MFMAs they store them into buffer (s + 1) % 2, and a barrier
// separates the steps. One stage: the same, with one buffer, so a second barrier (after the
// MFMAs, before the stores) keeps the stores off tiles still being read; the loads still overlap
// the MFMAs, in registers.
//
// K is cut into groups of Policy::steps_per_group steps (a scale group: 128 K for 1x128 scales,
// one step without scales). A group's steps are unrolled, so which step starts and which ends it
// is known at compile time; the last group is peeled off: it loads nothing ahead, so the loop over
// the others carries no conditions. The policy's hooks, in the order a step calls them:
//   group_begin(g)           before a group's first step
//   issue_loads<s>(g, more)  before the next step's tile loads (more: there is a next step)
//   stage_in_lds<s>(a_tile)  optional: the step's tiles are in LDS, A's at a_tile (a policy that
//                            reads scales its A loader left there: tile_loader_quantize_fp4)
//   before_mma<s>(g)         before the step's MFMAs
//   mma_scales<s>()          the scales the step's MFMAs take (warp::neutral_scales, or the warp
//                            MMA's instruction_scales where the scales ride in the instruction)
//   after_stores<s>(g)       after the next step's tiles are stored (only when there is one)
//   after_mma<s>(mma)        after those stores, which cover the MFMA-result hazard window
// and prologue(g) once, between the first step's tile loads and stores.
//
// KTail: K need not be a whole number of steps. The first step of the K range then starts skip
// elements early and its loaders read those as 0 (load_skipping), in the prologue only.
//
// Two steps ahead (a staged config with register_prefetch_steps = 2): two register copies of the
// tiles, so that step s + 2's loads are issued while step s runs and step s + 1's, issued a step
// earlier, are stored after step s's MFMAs: a load has two steps of work to return in, not one, for
// one more copy of the tiles' registers. A copy is chosen at compile time (the copies alternate
// with the steps; odd steps-per-group run groups in pairs), and the last two groups are peeled
// (they load less ahead). One staged run serves both depths; the policy's hooks run in the same
// order.
//
// Direct fill (a config with fills_lds_directly): the next step's tiles go from global memory
// straight into LDS (tile/lds_direct_fill.hpp), two stages in two LDS arrays of their own
// (gemm_lds_stages; arch/buffer_lds.hpp says why). A step waits for its own loads, then the
// barrier (every thread's loads of the step have landed; every wave is done with the other stage),
// then issues the next step's loads into the other stage and runs its MFMAs: one barrier a step,
// no registers or ds_write for the tiles. The policy's hooks run in the same order.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <hip/hip_runtime.h>  // the platform: HIP on the device, the emulator's shim on the CPU

#include <type_traits>

#include "wavekit/arch/buffer.hpp"
#include "wavekit/arch/buffer_lds.hpp"
#include "wavekit/arch/schedule.hpp"
#include "wavekit/block/gemm_tile_shape.hpp"
#include "wavekit/block/tile_scheduler.hpp"
#include "wavekit/core/math.hpp"
#include "wavekit/core/platform.hpp"
#include "wavekit/tile/lds_direct_fill.hpp"
#include "wavekit/tile/tile_concepts.hpp"
#include "wavekit/warp/warp_mma.hpp"

namespace wavekit::block {

// The hooks every scale policy provides (see above), checked where the mainloop takes one.
template <class P, class Mma>
concept scale_policy = requires(P policy, const P& const_policy, Mma& mma, int g, bool more) {
  { P::group_k } -> std::convertible_to<int>;
  { P::steps_per_group } -> std::convertible_to<int>;
  { P::restarts } -> std::convertible_to<bool>;
  { P::lds_bytes } -> std::convertible_to<int>;
  policy.prologue(g);
  policy.group_begin(g);
  policy.template issue_loads<0>(g, more);
  policy.template before_mma<0>(g);
  policy.template mma_scales<0>();
  policy.template after_stores<0>(g);
  policy.template after_mma<0>(mma);
  const_policy.result(mma);
  const_policy.epilogue_transform();
};

// The LDS bytes a loader's tile takes: its tile_bytes where it has more than its rows (a quantizing
// loader's scales), else rows x row_bytes.
template <class Loader, int Rows>
inline constexpr int loader_tile_bytes = [] {
  if constexpr (requires { Loader::tile_bytes; })
    return Loader::tile_bytes;
  else
    return Rows * Loader::row_bytes;
}();

// Where the operands are: buffers over A and B (B's: what its loader reads from, one buffer or a
// tile::buffer_pair), their strides (elements) and extents.
template <class BSource = arch::buffer>
struct gemm_sources {
  arch::buffer a;
  BSource b;
  int a_ld, b_ld;  // elements between rows as stored (packed K-contiguous: K; M/N-contiguous: M / N)
  int m, n;
  int skip;                     // KTail: elements the first step of the K range starts early (0 when K is whole steps)
  const int* a_rows = nullptr;  // grouped GEMMs: A row of each C row (-1: zeros), or null: the same row
};

// Whether a config asks for the direct fill (the mainloop's header comment).
template <class Cfg>
inline constexpr bool fills_lds_directly = [] {
  if constexpr (requires { Cfg::fills_lds_directly; })
    return bool(Cfg::fills_lds_directly);
  else
    return false;
}();

// How many K steps ahead a config's staged fill loads (1, or 2: register_prefetch_config).
template <class Cfg>
inline constexpr int register_prefetch_steps = [] {
  if constexpr (requires { Cfg::register_prefetch_steps; })
    return int(Cfg::register_prefetch_steps);
  else
    return 1;
}();

// The LDS of a direct-fill mainloop: each stage's tiles in an array of its own, and the rest (the
// scale policy's buffers; null when it has none).
struct gemm_lds_stages {
  unsigned char* stage[2];
  unsigned char* rest;
};

template <class Cfg, class Mma, class ALoader, class BLoader, class Policy, bool KTail = false>
struct gemm_mainloop {
  static_assert(tile::tile_loader<ALoader> && tile::tile_loader<BLoader>,
                "gemm_mainloop: its loaders must model tile::tile_loader");
  static_assert(warp::warp_accumulators<Mma>, "gemm_mainloop: its warp MMA must model warp::warp_accumulators");
  static_assert(scale_policy<Policy, Mma>, "gemm_mainloop: the scale policy must provide the hooks of scale_policy");
  static_assert(ALoader::row_bytes == BLoader::row_bytes && ALoader::element_bits == BLoader::element_bits,
                "gemm_mainloop: A and B tiles have the same K step");
  static_assert(Cfg::stages == 1 || Cfg::stages == 2, "gemm_mainloop: 1 or 2 LDS stages");
  static constexpr int kps = Policy::steps_per_group, step_k = Cfg::block_k;
  static_assert(ALoader::row_bytes * 8 == step_k * ALoader::element_bits,
                "gemm_mainloop: the loaders' rows are one K step (Cfg::block_k elements)");
  static_assert(Policy::group_k == kps * step_k, "gemm_mainloop: a scale group is a whole number of K steps");
  // The direct fill where the config asks for it and both tiles can take it (K-contiguous rows in
  // one buffer each); otherwise the tiles stage through registers, in no more LDS.
  static constexpr bool direct =
      fills_lds_directly<Cfg> && tile::fills_directly<ALoader> && tile::fills_directly<BLoader>;
  // How many K steps ahead the staged fill loads (two: two LDS stages, two register copies).
  static constexpr int ahead_steps = register_prefetch_steps<Cfg>;
  static_assert(ahead_steps == 1 || (ahead_steps == 2 && Cfg::stages == 2),
                "gemm_mainloop: a staged fill loads one K step ahead, or two with two LDS stages");
  // The direct fill's loads: 16 bytes a lane on gfx950 (buffer_load_dwordx4 ... lds), else 4.
  using fill = tile::lds_direct_fill<ALoader, BLoader, Cfg::threads, direct_fill_lane_bytes(arch::current_target)>;
  static constexpr int a_tile_bytes = loader_tile_bytes<ALoader, Cfg::block_m>;
  static constexpr int tile_bytes = [] {
    if constexpr (direct)
      return fill::stage_bytes;  // A's tile, B's, the sink
    else
      return a_tile_bytes + loader_tile_bytes<BLoader, Cfg::block_n>;
  }();
  static constexpr int policy_lds_offset = Cfg::stages * tile_bytes;  // the policy's LDS follows the tiles
  static constexpr int lds_bytes = policy_lds_offset + Policy::lds_bytes;
  static constexpr bool k_tail = KTail;
  using mma_type = Mma;
  using policy_type = Policy;
  // The LDS the kernel gives it: one array (lds_bytes), or the direct fill's arrays.
  using lds_type = std::conditional_t<direct, gemm_lds_stages, unsigned char*>;
  static_assert(
      [] {
        if constexpr (direct)
          return Cfg::stages == 2 && ALoader::rows == Cfg::block_m && BLoader::rows == Cfg::block_n &&
                 fill::stage_bytes ==
                     direct_fill_stage_bytes<Cfg, ALoader::row_bytes, direct_fill_lane_bytes(arch::current_target)>;
        else
          return true;
      }(),
      "gemm_mainloop: the direct fill takes two stages of the config's A and B tiles");
  // The scale policy's LDS, and what an epilogue that exchanges values between waves may use
  // after the K loop (the tiles', done with).
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE static float* policy_lds(lds_type lds) {
    if constexpr (direct)
      return reinterpret_cast<float*>(lds.rest);
    else
      return reinterpret_cast<float*>(lds + policy_lds_offset);
  }
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE static unsigned char* exchange_lds(lds_type lds) {
    if constexpr (direct)
      return lds.stage[0];
    else
      return lds;
  }
  static constexpr int exchange_bytes = direct ? tile_bytes : lds_bytes;

  // lds: lds_bytes, 16-byte aligned; the policy's LDS (if any) starts at lds + stages * tile_bytes
  // and is the policy's to place.
  using sources = gemm_sources<tile::loader_source_t<BLoader>>;

  // B's share of the copy starts where A's ends, so that threads (whole waves, where the tiles
  // divide evenly) are either busy with one of them or idle, rather than all partly busy.
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE static int b_thread(int tid) { return (tid + ALoader::work_items) % Cfg::threads; }
  // The staged loaders' rows and columns (A's through the row table where the GEMM gathers them).
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE static void locate(ALoader& a_load, BLoader& b_load, const sources& src,
                                                        const gemm_tile& t, int tid, int b_tid) {
    if constexpr (ALoader::gathers_rows) {
      if (src.a_rows)
        a_load.locate_rows(src.a_rows, t.m0, src.m, src.a_ld, tid);
      else
        a_load.locate(t.m0, src.m, src.a_ld, tid);
    } else {
      a_load.locate(t.m0, src.m, src.a_ld, tid);
    }
    b_load.locate(t.n0, src.n, src.b_ld, b_tid);
  }

  // The staged fill's K loop, ahead_steps K steps ahead (the header comment): ahead_steps register
  // copies of the tiles. Step s + ahead_steps's loads go into copy (s + ahead_steps) % ahead_steps
  // while step s runs; step s + 1's, in copy (s + 1) % ahead_steps, are stored after its MFMAs.
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE static void run(const sources& src, const gemm_tile& t, int tid, int lane,
                                                     int wave_row, int wave_col, Mma& w, Policy& policy,
                                                     unsigned char* lds)
    requires(!direct)
  {
    ALoader a_load[ahead_steps];
    BLoader b_load[ahead_steps];
    w.clear();
    const int b_tid = b_thread(tid);
    locate(a_load[0], b_load[0], src, t, tid, b_tid);
    if constexpr (ahead_steps == 2) a_load[1] = a_load[0], b_load[1] = b_load[0];
    const int skip = KTail ? src.skip : 0;
    const int k_begin = t.group_begin * Policy::group_k - skip;  // K of the range's first step
    const int groups = t.group_end - t.group_begin;
    // Step 0's loads into copy First, two steps ahead step 1's into the other copy, then step 0's
    // tiles into LDS stage First.
    auto prologue = [&]<int First>() {
      if (KTail && skip > 0 && t.group_begin == 0) {
        a_load[First].load_skipping(src.a, src.a_ld, skip, tid);
        b_load[First].load_skipping(src.b, src.b_ld, skip, b_tid);
      } else {
        a_load[First].load(src.a, src.a_ld, k_begin);
        b_load[First].load(src.b, src.b_ld, k_begin);
      }
      if constexpr (ahead_steps == 2) {
        if (groups * kps > 1) {
          b_load[First ^ 1].load(src.b, src.b_ld, k_begin + step_k);
          a_load[First ^ 1].load(src.a, src.a_ld, k_begin + step_k);
        }
      }
      policy.prologue(t.group_begin);
      a_load[First].store(lds + First * tile_bytes, tid);
      b_load[First].store(lds + First * tile_bytes + a_tile_bytes, b_tid);
      __syncthreads();
    };
    // Rest: the groups after this one, counted up to ahead_steps; Phase: with two copies, the copy
    // (and LDS stage) of the group's first step.
    auto group = [&]<int Rest, int Phase>(int g) {
      policy.group_begin(g);
      static_for<kps>([&](auto s_constant) {
        constexpr int s = decltype(s_constant)::value;
        constexpr bool more = s + 1 < kps * (1 + Rest);                  // there is a next step
        constexpr bool load_ahead = s + ahead_steps < kps * (1 + Rest);  // and one ahead_steps on
        constexpr int load_copy = (Phase + s) % ahead_steps, store_copy = (Phase + s + 1) % ahead_steps;
        const int step = (g - t.group_begin) * kps + s;
        // The step's LDS stage: known at compile time where the copies alternate with the steps or
        // a group has an even number of them.
        const unsigned stage = Cfg::stages == 1                   ? 0u
                               : ahead_steps == 2 || kps % 2 == 0 ? static_cast<unsigned>(Phase + s) & 1u
                                                                  : static_cast<unsigned>(step) & 1u;
        unsigned char* cur = lds + stage * tile_bytes;
        unsigned char* next = Cfg::stages == 2 ? lds + (stage ^ 1u) * tile_bytes : lds;
        // Loads in the order they are waited for (global loads complete in order): the policy's,
        // B, A; waiting for A's then covers all.
        policy.template issue_loads<s>(g, more);
        if constexpr (load_ahead) {
          const int k_ahead = k_begin + (step + ahead_steps) * step_k;
          b_load[load_copy].load(src.b, src.b_ld, k_ahead);
          a_load[load_copy].load(src.a, src.a_ld, k_ahead);
        }
        if constexpr (requires { policy.template stage_in_lds<s>(cur); }) policy.template stage_in_lds<s>(cur);
        policy.template before_mma<s>(g);
        w.template step<Policy::restarts && s == 0>(cur, cur + a_tile_bytes, wave_row, wave_col, lane,
                                                    policy.template mma_scales<s>());
        // Nothing below moves above the MFMAs: waiting for the loads there would stall them.
        arch::schedule_fence();
        if constexpr (more) {
          // The next step's loads were issued ahead_steps steps ago (two ahead, the step after's
          // stay in flight): one wait for all, not one per use.
          a_load[store_copy].wait_for_loads();
          b_load[store_copy].wait_for_loads();
          if constexpr (Cfg::stages == 1) __syncthreads();  // every wave is done reading the buffer
          a_load[store_copy].store(next, tid);
          b_load[store_copy].store(next + a_tile_bytes, b_tid);
          policy.template after_stores<s>(g);
        }
        policy.template after_mma<s>(w);
        if constexpr (more) __syncthreads();
      });
    };
    int g = t.group_begin;
    if constexpr (ahead_steps == 1) {
      if (groups > 0) {
        prologue.template operator()<0>();
        for (; g < t.group_end - 1; ++g) group.template operator()<1, 0>(g);
        group.template operator()<0, 0>(g);
      }
    } else if constexpr (kps % 2 == 0) {  // every group starts in copy 0
      if (groups > 0) {
        prologue.template operator()<0>();
        for (; g + 2 < t.group_end; ++g) group.template operator()<2, 0>(g);
        if (g + 1 < t.group_end) group.template operator()<1, 0>(g++);
        group.template operator()<0, 0>(g);
      }
    } else if (groups == 1) {
      prologue.template operator()<0>();
      group.template operator()<0, 0>(g);
    } else if (groups > 1) {
      // Groups in pairs (copies 0 then 1), the last pair peeled; an odd count runs its first group
      // alone, in copy 1, before them.
      if (groups % 2 == 1) {
        prologue.template operator()<1>();
        group.template operator()<2, 1>(g++);
      } else {
        prologue.template operator()<0>();
      }
      for (; g + 2 < t.group_end; g += 2) {
        group.template operator()<2, 0>(g);
        group.template operator()<2, 1>(g + 1);
      }
      group.template operator()<1, 0>(g);
      group.template operator()<0, 1>(g + 1);
    }
    w.finish();  // a row-pair atom folds its sparse rows (warp/warp_mma.hpp)
  }

  // The direct fill's K loop (the header comment).
  WAVEKIT_DEVICE WAVEKIT_FORCEINLINE static void run(const sources& src, const gemm_tile& t, int tid, int lane,
                                                     int wave_row, int wave_col, Mma& w, Policy& policy,
                                                     const gemm_lds_stages& lds)
    requires direct
  {
    fill f;
    const int wave = __builtin_amdgcn_readfirstlane(tid / 64);
    w.clear();
    if (ALoader::gathers_rows && src.a_rows)  // A's rows from the table (a grouped GEMM's tokens)
      f.locate_by([&](int r) { return t.m0 + r < src.m ? src.a_rows[t.m0 + r] : -1; }, src.a_ld, t.n0, src.n, src.b_ld,
                  tid);
    else
      f.locate(t.m0, src.m, src.a_ld, t.n0, src.n, src.b_ld, tid);
    const int skip = KTail ? src.skip : 0;
    const int k_begin = t.group_begin * Policy::group_k - skip;  // K of the range's first step
    // The first step's loads, into stage `first`.
    auto prologue = [&](unsigned char* first) {
      if (KTail && skip > 0 && t.group_begin == 0)
        f.issue_skipping(src.a, src.b, skip, first, wave, tid);
      else
        f.issue(src.a, src.b, k_begin, first, wave);
      policy.prologue(t.group_begin);
    };
    // Phase: the stage of the group's first step. Each step's stage is known at compile time, so
    // its reads name their array (the compiler then waits for none of the other stage's loads).
    auto group = [&]<bool Last, int Phase>(int g) {
      policy.group_begin(g);
      static_for<kps>([&](auto s_constant) {
        constexpr int s = decltype(s_constant)::value;
        constexpr bool more = !Last || s + 1 < kps;
        constexpr int cur = (Phase + s) % 2;
        const int step = (g - t.group_begin) * kps + s;
        arch::wait_vmcnt<0>();  // this thread's loads of the step (the only ones in flight)
        __syncthreads();
        policy.template issue_loads<s>(g, more);
        if constexpr (more) f.issue(src.a, src.b, k_begin + (step + 1) * step_k, lds.stage[cur ^ 1], wave);
        if constexpr (requires { policy.template stage_in_lds<s>(lds.stage[cur]); })
          policy.template stage_in_lds<s>(lds.stage[cur]);
        policy.template before_mma<s>(g);
        w.template step<Policy::restarts && s == 0>(lds.stage[cur], lds.stage[cur] + fill::a_bytes, wave_row, wave_col,
                                                    lane, policy.template mma_scales<s>());
        arch::schedule_fence();
        if constexpr (more) policy.template after_stores<s>(g);
        policy.template after_mma<s>(w);
      });
    };
    const int groups = t.group_end - t.group_begin;
    if constexpr (kps % 2 == 0) {
      if (groups > 0) {
        prologue(lds.stage[0]);
        for (int g = t.group_begin; g < t.group_end - 1; ++g) group.template operator()<false, 0>(g);
        group.template operator()<true, 0>(t.group_end - 1);
      }
    } else {
      // An odd number of steps a group: groups in pairs (stages 0 then 1), the last pair peeled;
      // an odd count runs its first group alone, in stage 1, before them.
      int g = t.group_begin;
      if (groups % 2 == 1) {
        prologue(lds.stage[1]);
        if (groups == 1)
          group.template operator()<true, 1>(g);
        else
          group.template operator()<false, 1>(g);
        ++g;
      } else if (groups > 0) {
        prologue(lds.stage[0]);
      }
      if (g < t.group_end) {
        for (; g + 2 < t.group_end; g += 2) {
          group.template operator()<false, 0>(g);
          group.template operator()<false, 1>(g + 1);
        }
        group.template operator()<false, 0>(g);
        group.template operator()<true, 1>(g + 1);
      }
    }
    w.finish();
  }
};

}  // namespace wavekit::block
